package org.magejvm.impl.env.guess;

import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.StatePolicy;

/** The scripted players of Guess the Number. */
final class GuessNumberPolicies {

  private GuessNumberPolicies() {}

  /** A player that reads the environment's state. */
  private abstract static class Player extends StatePolicy<GuessNumberEnvironment.State> {
    Player(String name, long seed) {
      super(name, seed, GuessNumberEnvironment.State.class, GuessNumberProvider.ID, "players");
    }
  }

  /**
   * The best player that reads its earlier attempts: it guesses the middle of the range the clues leave (binary
   * search), so it needs at most ceil(log2(max + 1)) attempts.
   */
  static final class Bisect extends Player {
    Bisect(long seed) {
      super(GuessNumberProvider.BISECT_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString(guess(state(request)));
    }

    /**
     * @param s the clues so far
     * @return the middle of the range they leave
     */
    static int guess(GuessNumberEnvironment.State s) {
      int low = s.low();
      int high = Math.max(low, s.high());
      return (low + high) / 2;
    }
  }

  /**
   * The best player that never reads its earlier attempts: it knows only which attempt it plays and guesses a
   * different number in each (1, 2, 3, ...), so k attempts cover k numbers.
   */
  static final class Sweep extends Player {
    Sweep(long seed) {
      super(GuessNumberProvider.SWEEP_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString(guess(state(request).max(), request.episodeIndex()));
    }

    /**
     * @param max the range
     * @param attempt the attempt index
     * @return the attempt's guess
     */
    static int guess(int max, int attempt) {
      return org.magejvm.impl.env.NumberAnswer.sweep(max, attempt);
    }
  }

  /** A player that never reads its earlier attempts and always guesses the middle of the whole range. */
  static final class Middle extends Player {
    Middle(long seed) {
      super(GuessNumberProvider.MIDDLE_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString((1 + state(request).max()) / 2);
    }
  }
}
