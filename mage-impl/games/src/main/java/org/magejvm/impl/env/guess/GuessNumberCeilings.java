package org.magejvm.impl.env.guess;

import java.util.function.BiFunction;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * The exact ceilings of Guess the Number with a hidden number uniform on 1..N and K attempts, as the paper's
 * cumulative success rate (Pass@k) and as the per-attempt win rate (among the meta-episodes that reached attempt k).
 *
 * <ul>
 *   <li><b>History-blind</b>: a player that never reads its earlier attempts may still know which attempt it plays
 *       (the prompt says so), so the best it can do is guess a different number in each attempt: Pass@k =
 *       min(1, k / N). No history-blind player does better: its k guesses are fixed before any clue, and a guess is
 *       right with probability 1/N, so the chance that one of k is right is at most k / N (the union bound, reached
 *       exactly by k distinct guesses). The {@code sweep} player plays it; a player that repeats one guess ({@code
 *       middle}) has 1/N, and uniform guessing ({@code random}) 1 - (1 - 1/N)^k.</li>
 *   <li><b>Adaptive</b>: a player that reads the clues can halve the range with each guess (binary search, the
 *       {@code bisect} player): Pass@k = min(1, (2^k - 1) / N). No player does better: a guess answered by one of
 *       three clues (right, too low, too high) can end at most one branch of the search, so k guesses identify at
 *       most 1 + 2 + ... + 2^(k-1) = 2^k - 1 numbers.</li>
 * </ul>
 *
 * <p>For the default N = 7 and K = 3: history-blind Pass@3 = 3/7 = 0.429, adaptive Pass@3 = 1, a gap of 0.571.
 * The values below are computed by playing both players against every hidden number, not by the formulas; the tests
 * check them against the formulas and against brute force over every deterministic player for small N.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class GuessNumberCeilings {

  private GuessNumberCeilings() {}

  /**
   * The best history-blind player's rates ({@code sweep}: a different number in each attempt).
   *
   * @param max N, the range
   * @param attempts K
   * @return its rates
   */
  public static AttemptCeiling historyBlind(int max, int attempts) {
    return play(max, attempts, (state, attempt) -> GuessNumberPolicies.Sweep.guess(max, attempt));
  }

  /**
   * The best adaptive player's rates ({@code bisect}: the middle of the range the clues leave).
   *
   * @param max N, the range
   * @param attempts K
   * @return its rates
   */
  public static AttemptCeiling adaptive(int max, int attempts) {
    return play(max, attempts, (state, attempt) -> GuessNumberPolicies.Bisect.guess(state));
  }

  /**
   * Plays a deterministic player against every hidden number 1..N and measures it.
   *
   * @param max N
   * @param attempts K
   * @param player the guess for the state (the clues so far) and the attempt index
   * @return its rates
   */
  static AttemptCeiling play(int max, int attempts,
      BiFunction<GuessNumberEnvironment.State, Integer, Integer> player) {
    if (max < 2 || attempts < 1) {
      throw new IllegalArgumentException("need max >= 2 and attempts >= 1, got " + max + " and " + attempts);
    }
    HiddenNumberEnvironment.Tally t = new GuessNumberEnvironment(max).playEveryNumber(attempts, player);
    return AttemptCeiling.ofCounts(t.wonAt(), t.reached(), max);
  }
}
