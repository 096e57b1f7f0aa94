package org.magejvm.impl.env.keeper;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * The exact ceilings of Goalkeeper with the striker's spot uniform on 1..N and K attempts.
 *
 * <ul>
 *   <li><b>History-blind</b>: a keeper that never reads its earlier attempts may still know which attempt it plays,
 *       so the best it can do is dive to a different spot in each: Pass@k = min(1, k / N). No history-blind keeper
 *       does better: its k dives are fixed before any shot, each saves with probability 1/N, and k dives save at
 *       most k of the N spots (reached exactly by k distinct dives, the {@code sweep} keeper). Always the same spot
 *       ({@code stay}) has 1/N, a uniform dive each attempt ({@code random}) 1 - (1 - 1/N)^k.</li>
 *   <li><b>Adaptive</b>: the first dive can only guess (1/N); after one penalty the spot is known, so a keeper that
 *       reads its history saves every later penalty: Pass@1 = 1/N and Pass@k = 1 for k &gt;= 2 (the {@code follow}
 *       keeper). Nothing does better: no keeper beats 1/N on the first penalty, and 1 is the most any rate can
 *       be.</li>
 * </ul>
 *
 * <p>For the default N = 7 and K = 3: history-blind Pass@3 = 3/7 = 0.429, adaptive Pass@3 = 1, a gap of 0.571; per
 * attempt 1/7, 1/6, 1/5 against 1/7, 1, 1. The values are computed by playing both keepers against every spot; the
 * tests check them against the formulas and against brute force over every deterministic keeper for small N.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class GoalkeeperCeilings {

  private GoalkeeperCeilings() {}

  /**
   * The best history-blind keeper's rates ({@code sweep}).
   *
   * @param spots N
   * @param attempts K
   * @return its rates
   */
  public static AttemptCeiling historyBlind(int spots, int attempts) {
    return play(spots, attempts, (state, attempt) -> GoalkeeperPolicies.Sweep.dive(spots, attempt));
  }

  /**
   * The best adaptive keeper's rates ({@code follow}).
   *
   * @param spots N
   * @param attempts K
   * @return its rates
   */
  public static AttemptCeiling adaptive(int spots, int attempts) {
    return play(spots, attempts, (state, attempt) -> GoalkeeperPolicies.Follow.dive(state));
  }

  /**
   * The best keeper that cannot tell its attempts apart: with neither its earlier attempts nor the attempt number in
   * its prompt, every attempt's prompt is the same, so its dives are independent draws from one distribution p over
   * the spots. It misses k times with probability {@code sum_s (1/N) (1 - p_s)^k}, which is convex in p and symmetric,
   * so the uniform p is best: Pass@k = 1 - (1 - 1/N)^k and every attempt saves 1/N (the {@code random} keeper). For N
   * = 7 and K = 3: Pass@3 = 1 - (6/7)^3 = 0.370, against 3/7 = 0.429 for a keeper that knows the attempt number.
   *
   * @param spots N
   * @param attempts K
   * @return its rates
   */
  public static AttemptCeiling memoryless(int spots, int attempts) {
    if (spots < 2 || attempts < 1) {
      throw new IllegalArgumentException("need spots >= 2 and attempts >= 1, got " + spots + " and " + attempts);
    }
    List<Double> passAt = new ArrayList<>();
    List<Double> perAttempt = new ArrayList<>();
    for (int k = 1; k <= attempts; k++) {
      passAt.add(1 - Math.pow(1 - 1.0 / spots, k));
      perAttempt.add(1.0 / spots);
    }
    return new AttemptCeiling(passAt, perAttempt);
  }

  /**
   * Plays a deterministic keeper against every striker spot 1..N and measures it.
   *
   * @param spots N
   * @param attempts K
   * @param keeper the dive for the state (the penalties so far) and the attempt index
   * @return its rates
   */
  static AttemptCeiling play(int spots, int attempts,
      BiFunction<GoalkeeperEnvironment.State, Integer, Integer> keeper) {
    if (spots < 2 || attempts < 1) {
      throw new IllegalArgumentException("need spots >= 2 and attempts >= 1, got " + spots + " and " + attempts);
    }
    HiddenNumberEnvironment.Tally t = new GoalkeeperEnvironment(spots).playEveryNumber(attempts, keeper);
    return AttemptCeiling.ofCounts(t.wonAt(), t.reached(), spots);
  }
}
