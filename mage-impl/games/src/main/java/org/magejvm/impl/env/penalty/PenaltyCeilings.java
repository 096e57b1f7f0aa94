package org.magejvm.impl.env.penalty;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.magejvm.impl.env.AttemptCeiling;

/**
 * The exact ceilings of Penalty Shoot-out against a population of strikers (each equally likely) whose first spot is
 * uniform on 1..N, with K attempts that stop at the first save, and the exact rates of any deterministic keeper
 * ({@link #play}). Every number is an enumeration over the strikers and first spots, never a sample.
 *
 * <ul>
 *   <li><b>History-blind</b> ({@link #historyBlind}): a keeper that never reads its earlier attempts may know which
 *       attempt it plays, so it is a sequence of dives fixed in advance (a stochastic one mixes such sequences and
 *       does no better). It still knows its own earlier dives, so it can exploit a striker that aims by them: diving
 *       twice to the same spot saves {@code copy}'s second shot. Pass@k is the best over all N^k sequences.</li>
 *   <li><b>Adaptive</b> ({@link #adaptive}): a keeper that reads where every earlier shot went, the best over all
 *       keepers, by backward induction over the histories ({@link PenaltyPlanner}, binary scoring, final-attempt
 *       objective, no discount, horizon k).</li>
 * </ul>
 *
 * <p>The first attempt saves 1/N whatever the keeper does (the first spot is uniform and unseen), and a keeper that
 * dives uniformly at random saves 1/N in every attempt (Pass@3 = 1 - (4/5)^3 = 0.488 with 5 spots). With the games'
 * defaults (5 spots, 7 on {@code mage-penalty-steps}, and 3 attempts), each striker equally likely:
 *
 * <pre>
 *                                     Pass@1  Pass@2  Pass@3
 * mage-penalty, training    blind      0.200   0.467   0.633
 *                           adaptive   0.200   0.467   1.000
 * mage-penalty, held out    blind      0.200   0.400   0.600
 *                           adaptive   0.200   0.400   1.000
 * mage-penalty-graded,      blind      0.200   0.500   0.650
 *   training or held out    adaptive   0.200   0.650   1.000
 * mage-penalty-steps,       blind      0.143   0.286   0.429
 *   either set (7 spots)
 *   training                adaptive   0.143   0.314   1.000
 *   held out                adaptive   0.143   0.571   1.000
 * </pre>
 *
 * <p>so reading the history is worth 0.367 and 0.4 in Pass@3 on {@code mage-penalty}, 0.35 on {@code
 * mage-penalty-graded}. One keeper reaches every Pass@k of its row at once (the blind one on the graded game's held-out
 * strikers excepted: its best Pass@3 sequence has Pass@2 0.35). The held-out adaptive ceiling assumes a keeper that
 * knows the held-out population; the training population's optimum ({@link PenaltyPlanner}) reaches only 0.35 against
 * {@code mage-penalty}'s held-out strikers, below their blind ceiling, because their histories look like training
 * strikers' that shoot elsewhere next: beating 0.6 there takes reading the habits beyond the training population. The
 * per-striker breakdown is in the tests and {@code docs/environments.md}. The tests check the ceilings against brute
 * force: every dive sequence played through the real environment, and every deterministic keeper (a dive for each
 * history) for small sizes.
 */
public final class PenaltyCeilings {

  private PenaltyCeilings() {}

  /** A deterministic keeper: its dive for the penalties already taken. */
  @FunctionalInterface
  public interface Keeper {
    /**
     * @param earlier the penalties already taken in the meta-episode, all missed, in order
     * @return the dive, a spot from 1 to N
     */
    int dive(List<PenaltyEnvironment.Penalty> earlier);
  }

  /**
   * What a keeper reaches against a population, exactly.
   *
   * @param passAt for k = 0..K-1, the probability of a save within the first k+1 attempts (Pass@k+1)
   * @param finalScore the expected score of the last attempt played (the save's, or the K-th attempt's): what MAGE's
   *     undiscounted differential return sums to
   * @param cumulativeScore the expected sum of the scores of the attempts played: LaMer's undiscounted return
   */
  public record Outcome(List<Double> passAt, double finalScore, double cumulativeScore) {
    /**
     * Copies.
     *
     * @param passAt cumulative success rates
     * @param finalScore final-attempt score
     * @param cumulativeScore cumulative score
     */
    public Outcome {
      passAt = List.copyOf(passAt);
    }

    /** @return the success rates as a ceiling: Pass@k and the per-attempt rates */
    public AttemptCeiling rates() {
      return AttemptCeiling.ofPassAt(passAt.stream().mapToDouble(Double::doubleValue).toArray());
    }
  }

  /**
   * Plays a deterministic keeper against every striker of a population from every first spot.
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @param scoring how dives score
   * @param keeper the keeper
   * @return its exact outcome
   * @throws IllegalArgumentException if a size is out of range, the pool is empty or the keeper dives off the goal
   */
  public static Outcome play(List<Striker> pool, int spots, int attempts, Scoring scoring, Keeper keeper) {
    List<Striker> p = PenaltyPlanner.checkPool(pool);
    PenaltyPlanner.checkSizes(spots, attempts);
    Objects.requireNonNull(scoring, "scoring");
    Objects.requireNonNull(keeper, "keeper");
    double[] passAt = new double[attempts];
    double last = 0;
    double cumulative = 0;
    double w = 1.0 / (p.size() * spots);
    for (Striker s : p) {
      for (int first = 1; first <= spots; first++) {
        List<PenaltyEnvironment.Penalty> earlier = new ArrayList<>();
        double score = 0;
        for (int k = 0; k < attempts; k++) {
          int dive = keeper.dive(List.copyOf(earlier));
          if (dive < 1 || dive > spots) {
            throw new IllegalArgumentException("the keeper dove to " + dive + ", off the goal of " + spots + " spots");
          }
          int shot = s.shoot(spots, first, earlier);
          score = scoring.score(dive, shot, spots);
          cumulative += w * score;
          if (dive == shot) {
            for (int j = k; j < attempts; j++) {
              passAt[j] += w;
            }
            break;
          }
          earlier.add(new PenaltyEnvironment.Penalty(dive, shot, score));
        }
        last += w * score;
      }
    }
    List<Double> rates = new ArrayList<>();
    for (double r : passAt) {
      rates.add(r);
    }
    return new Outcome(rates, last, cumulative);
  }

  /**
   * The best history-blind keeper's Pass@k, each k maximized on its own (one keeper, {@link #bestBlindDives}, reaches
   * all of them for the games' populations but the graded game's held-out strikers).
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @return the ceiling
   */
  public static AttemptCeiling historyBlind(List<Striker> pool, int spots, int attempts) {
    double[] best = new double[attempts];
    forEachSequence(spots, attempts, dives -> {
      List<Double> passAt = blind(pool, spots, dives).passAt();
      for (int k = 0; k < attempts; k++) {
        best[k] = Math.max(best[k], passAt.get(k));
      }
    });
    return AttemptCeiling.ofPassAt(best);
  }

  /**
   * The history-blind keeper with the best Pass@K: the dive sequence with the highest Pass@K, ties broken by the
   * higher Pass@(K-1), then Pass@(K-2) and so on, then the first in lexicographic order.
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @return its dives, one per attempt
   */
  public static int[] bestBlindDives(List<Striker> pool, int spots, int attempts) {
    return bestSequence(spots, attempts, dives -> blind(pool, spots, dives));
  }

  /**
   * The sequence of N^K whose outcome has the highest Pass@K, ties broken by the higher Pass@(K-1) and so on, then the
   * first in lexicographic order.
   */
  private static int[] bestSequence(int spots, int attempts, Function<int[], Outcome> outcome) {
    int[][] best = new int[1][];
    double[][] bestRates = new double[1][];
    forEachSequence(spots, attempts, sequence -> {
      List<Double> passAt = outcome.apply(sequence).passAt();
      double[] r = new double[attempts];
      for (int k = 0; k < attempts; k++) {
        r[k] = passAt.get(attempts - 1 - k);
      }
      if (best[0] == null || compare(r, bestRates[0]) > 0) {
        best[0] = sequence.clone();
        bestRates[0] = r;
      }
    });
    return best[0];
  }

  /**
   * The keeper that dives uniformly at random in every attempt: its rates are the mean over all N^K dive sequences.
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @return its rates
   */
  public static AttemptCeiling random(List<Striker> pool, int spots, int attempts) {
    double[] sum = new double[attempts];
    int[] count = new int[1];
    forEachSequence(spots, attempts, dives -> {
      List<Double> passAt = blind(pool, spots, dives).passAt();
      for (int k = 0; k < attempts; k++) {
        sum[k] += passAt.get(k);
      }
      count[0]++;
    });
    for (int k = 0; k < attempts; k++) {
      sum[k] /= count[0];
    }
    return AttemptCeiling.ofPassAt(sum);
  }

  /**
   * The best adaptive keeper's Pass@k, each k maximized on its own by backward induction ({@link PenaltyPlanner} with
   * horizon k); the planner for horizon K reaches all of them for the games' populations.
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @return the ceiling
   */
  public static AttemptCeiling adaptive(List<Striker> pool, int spots, int attempts) {
    PenaltyPlanner.checkSizes(spots, attempts);
    double[] best = new double[attempts];
    for (int k = 1; k <= attempts; k++) {
      best[k - 1] = PenaltyPlanner.of(pool, spots, k, Scoring.BINARY, PenaltyPlanner.Objective.FINAL_ATTEMPT, 1.0)
          .value();
    }
    return AttemptCeiling.ofPassAt(best);
  }

  /**
   * The best keeper that reads only the last shot, each attempt at its own fixed offset from it: a first dive, then
   * in attempt k the last shot plus {@code offsets[k]} spots (around the ring). The simplest keeper that uses the
   * history; by exhaustive search over the N^K first dives and offsets, the highest Pass@K, ties broken by the
   * higher Pass@(K-1) and so on, then the first in lexicographic order.
   *
   * <p>With the games' defaults it reaches Pass@3 0.667 on {@code mage-penalty}'s training population (the blind
   * ceiling is 0.633), 0.85 on {@code mage-penalty-graded}'s (0.65) and 0.486 on {@code mage-penalty-steps}' (0.429):
   * only on the graded game does reading one shot pay much more than reading none, and only there did the claims'
   * trained keepers beat the blind ceiling ({@code docs/results.md}).
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @param scoring how dives score (for the histories the keeper is played through; Pass@K does not depend on it)
   * @return the first dive, then the offset of every later attempt, 0 to N-1 spots right of the last shot
   */
  public static int[] bestLastShotOffsets(List<Striker> pool, int spots, int attempts, Scoring scoring) {
    int[] best = bestSequence(spots, attempts, plan -> lastShotOffsets(pool, spots, scoring, plan));
    for (int k = 1; k < attempts; k++) {
      best[k] %= spots;
    }
    return best;
  }

  /**
   * The outcome of a keeper that reads only the last shot ({@link #bestLastShotOffsets}).
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param scoring how dives score
   * @param plan the first dive (1 to N), then each later attempt's offset from the last shot (any whole number)
   * @return its exact outcome
   */
  public static Outcome lastShotOffsets(List<Striker> pool, int spots, Scoring scoring, int[] plan) {
    int[] p = plan.clone();
    return play(pool, spots, p.length, scoring, earlier -> earlier.isEmpty() ? p[0]
        : Striker.wrap(earlier.get(earlier.size() - 1).shot() + p[earlier.size()], spots));
  }

  /**
   * The rates of a history-blind keeper.
   *
   * @param pool the strikers
   * @param spots N
   * @param dives its dive in each attempt
   * @return its outcome, binary scoring
   */
  public static Outcome blind(List<Striker> pool, int spots, int[] dives) {
    int[] d = dives.clone();
    return play(pool, spots, d.length, Scoring.BINARY, earlier -> d[earlier.size()]);
  }

  private interface SequenceVisitor {
    void visit(int[] dives);
  }

  private static void forEachSequence(int spots, int attempts, SequenceVisitor visitor) {
    PenaltyPlanner.checkSizes(spots, attempts);
    int[] dives = new int[attempts];
    java.util.Arrays.fill(dives, 1);
    while (true) {
      visitor.visit(dives);
      int i = attempts - 1;
      while (i >= 0 && dives[i] == spots) {
        dives[i] = 1;
        i--;
      }
      if (i < 0) {
        return;
      }
      dives[i]++;
    }
  }

  private static int compare(double[] a, double[] b) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] > b[i] + 1e-12) {
        return 1;
      }
      if (a[i] < b[i] - 1e-12) {
        return -1;
      }
    }
    return 0;
  }
}
