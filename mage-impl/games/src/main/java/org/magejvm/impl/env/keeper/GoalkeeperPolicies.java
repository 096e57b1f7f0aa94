package org.magejvm.impl.env.keeper;

import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.ScriptedPolicy;

/** The scripted keepers of Goalkeeper. */
final class GoalkeeperPolicies {

  private GoalkeeperPolicies() {}

  /**
   * The best keeper that reads its earlier attempts: it dives where the last shot went (the middle spot before any
   * shot), so it saves every penalty from the second on.
   */
  static final class Follow extends ScriptedPolicy {
    Follow(long seed) {
      super(GoalkeeperProvider.FOLLOW_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString(dive(state(request)));
    }

    /**
     * @param s the penalties so far
     * @return where the last shot went, else the middle spot
     */
    static int dive(GoalkeeperEnvironment.State s) {
      return s.lastShot().orElse((1 + s.spots()) / 2);
    }
  }

  /**
   * The best keeper that never reads its earlier attempts: it knows only which attempt it plays and dives to a
   * different spot in each (1, 2, 3, ...), so k attempts cover k spots.
   */
  static final class Sweep extends ScriptedPolicy {
    Sweep(long seed) {
      super(GoalkeeperProvider.SWEEP_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString(dive(state(request).spots(), request.episodeIndex()));
    }

    /**
     * @param spots how many spots
     * @param attempt the attempt index
     * @return the attempt's dive
     */
    static int dive(int spots, int attempt) {
      return org.magejvm.impl.env.NumberAnswer.sweep(spots, attempt);
    }
  }

  /** A keeper that never reads its earlier attempts and always dives to the middle spot. */
  static final class Stay extends ScriptedPolicy {
    Stay(long seed) {
      super(GoalkeeperProvider.STAY_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString((1 + state(request).spots()) / 2);
    }
  }

  private static GoalkeeperEnvironment.State state(PolicyRequest request) {
    if (!(request.state() instanceof GoalkeeperEnvironment.State)) {
      throw new IllegalArgumentException("the request carries no " + GoalkeeperProvider.ID + " state (got "
          + (request.state() == null ? "null" : request.state().getClass().getName()) + "); scripted "
          + GoalkeeperProvider.ID + " keepers need the environment's state");
    }
    return (GoalkeeperEnvironment.State) request.state();
  }
}
