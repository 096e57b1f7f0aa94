package org.magejvm.impl.env.keeper;

import org.magejvm.impl.env.KeeperLessons;
import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.StatePolicy;

/** The scripted keepers of Goalkeeper. */
final class GoalkeeperPolicies {

  private GoalkeeperPolicies() {}

  /** A keeper that reads the environment's state. */
  private abstract static class Keeper extends StatePolicy<GoalkeeperEnvironment.State> {
    Keeper(String name, long seed) {
      super(name, seed, GoalkeeperEnvironment.State.class, GoalkeeperProvider.ID, "keepers");
    }
  }

  /**
   * The best keeper that reads its earlier attempts: it dives where the last shot went (the middle spot before any
   * shot), so it saves every penalty from the second on.
   */
  static final class Follow extends Keeper {
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
  static final class Sweep extends Keeper {
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
  static final class Stay extends Keeper {
    Stay(long seed) {
      super(GoalkeeperProvider.STAY_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString((1 + state(request).spots()) / 2);
    }
  }

  /**
   * A keeper that writes lessons and acts on them, but whose lessons carry nothing about the striker that its own
   * dive does not: after a missed penalty it writes {@code <remark> next shot R</remark>}, R drawn uniformly from the
   * spots other than the one it just dove to (the shot it just saw plays no part, so R is the shot's spot with
   * probability 1/(spots - 1), as for any guess that avoids a known miss), and in the next attempt it dives to R. Its
   * first dive, and any dive with no lesson of its own to act on, is uniform. A keeper that follows these lessons
   * plays almost the best history-blind keeper's sweep (it may guess the spot it missed two attempts before): it saves
   * within three attempts with probability 1 - (6/7)(5/6)(5/6) = 0.405 for 7 spots, just below 3/7 = 0.429.
   *
   * <p>It is the quick start's warm start with reflections. It teaches the lesson's format and that a lesson is acted
   * on, and it makes acting on the lessons the best a keeper can do without knowing the spot, so reinforcement has no
   * cheaper gain than ignoring them: what is left to discover is that a lesson naming the shot's spot beats a fresh
   * guess. The guess's words are the ones the prompt puts before the shot's spot ({@code shot 5}), token for token.
   */
  static final class RandomPlan extends Keeper {
    private final KeeperLessons lessons = new KeeperLessons();

    RandomPlan(long seed) {
      super(GoalkeeperProvider.RANDOM_PLAN_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return lessons.dive(request, state(request).spots(), random);
    }

    @Override
    protected String reflect(PolicyRequest request, Random random) {
      return lessons.reflect(request, state(request).spots(), random);
    }

    /**
     * @param guess the guessed spot of the next shot
     * @return the lesson's text ({@link KeeperLessons#lesson})
     */
    static String lesson(int guess) {
      return KeeperLessons.lesson(guess);
    }
  }
}
