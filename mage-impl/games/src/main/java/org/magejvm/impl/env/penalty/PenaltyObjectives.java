package org.magejvm.impl.env.penalty;

import java.util.List;

/**
 * Where theory separates MAGE from LaMer: Penalty Shoot-out with {@link Scoring#GRADED} scoring, in which a near miss,
 * one spot beside the shot, scores half a save (reward 5) without winning, so the meta-episode goes on after it,
 * against the strikers of {@link PenaltyStrikers#GRADED_POPULATION}: the sister game {@code mage-penalty-graded}
 * ({@link GradedPenaltyProvider}), a second provider because the engine samples from a provider's own population.
 *
 * <p>MAGE's differential return with {@code trajGamma = 1} telescopes to the score of the last attempt played, so
 * partial credit in an earlier attempt is worth nothing to it; LaMer's cumulative return adds every attempt's score.
 * Both optima are computed exactly ({@link PenaltyPlanner}). They part at the second attempt: both training strikers
 * {@code step+2} and {@code alternate+2} shoot their second penalty two spots right of the first one and their third
 * ones apart (four right, and back to the first spot), while {@code fixed} shoots the first spot again. The
 * final-attempt optimum dives two right and saves both (half the population); the cumulative optimum dives one right,
 * between the two predictions, where it is a near miss against {@code fixed}, {@code step+2} and {@code alternate+2}
 * alike (three quarters of the population, half a save each), and is left with a coin flip between {@code step+2}
 * and {@code alternate+2} in the last attempt. With the defaults (5 spots, 3 attempts, {@code trajGamma = 1}):
 *
 * <pre>
 * training population     Pass@1  Pass@2  Pass@3  final-attempt score  cumulative score
 * final-attempt optimum    0.20    0.65    1.00          1.000              1.250
 * cumulative optimum       0.20    0.25    0.75          0.875              1.400
 * held-out strikers
 * final-attempt optimum    0.20    0.65    1.00          1.000              1.250
 * cumulative optimum       0.20    0.25    0.80          0.900              1.400
 * </pre>
 *
 * <p>(each optimum computed for the population it faces; every optimal keeper reaches these numbers, whatever it does
 * where several dives are optimal: {@link PenaltyPlanner#range}). The predicted order, written before any training run:
 * MAGE's final-attempt score, Pass@2 and Pass@3 above LaMer's (by 0.125, 0.40 and 0.25 on the training population at
 * the optima), LaMer's cumulative score above MAGE's (by 0.15); with binary scoring the two objectives coincide (a
 * meta-episode stops at its first save, so both returns are 1 for a save within K attempts and 0 otherwise) and so do
 * their optima. With the games' default {@code trajGamma = 0.6} the order is the same and the gaps smaller (training
 * population: cumulative optimum Pass@2 0.35, Pass@3 0.80, final-attempt score 0.90, cumulative score 1.375; the
 * final-attempt optimum unchanged). On {@code mage-penalty}'s own population the two optima differ only a little and
 * in ways that depend on ties (its second shots are all different, so the final-attempt optimum has no pair to save at
 * once): the tests pin that too.
 */
public final class PenaltyObjectives {

  private PenaltyObjectives() {}

  /**
   * The two optima's outcomes against the population they were computed for.
   *
   * @param finalAttempt the outcome of the final-attempt (MAGE) optimum
   * @param cumulative the outcome of the cumulative (LaMer) optimum
   */
  public record Comparison(PenaltyCeilings.Outcome finalAttempt, PenaltyCeilings.Outcome cumulative) {}

  /**
   * The keeper that maximizes MAGE's differential return.
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @param scoring how dives score
   * @param trajGamma the discount between attempts
   * @return the planner
   */
  public static PenaltyPlanner finalAttemptOptimum(List<Striker> pool, int spots, int attempts, Scoring scoring,
      double trajGamma) {
    return PenaltyPlanner.of(pool, spots, attempts, scoring, PenaltyPlanner.Objective.FINAL_ATTEMPT, trajGamma);
  }

  /**
   * The keeper that maximizes LaMer's cumulative return.
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @param scoring how dives score
   * @param trajGamma the discount between attempts
   * @return the planner
   */
  public static PenaltyPlanner cumulativeOptimum(List<Striker> pool, int spots, int attempts, Scoring scoring,
      double trajGamma) {
    return PenaltyPlanner.of(pool, spots, attempts, scoring, PenaltyPlanner.Objective.CUMULATIVE, trajGamma);
  }

  /**
   * Computes both optima for a population and plays each against it.
   *
   * @param pool the strikers, each equally likely
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @param scoring how dives score
   * @param trajGamma the discount between attempts, in [0, 1]
   * @return both outcomes
   */
  public static Comparison compare(List<Striker> pool, int spots, int attempts, Scoring scoring, double trajGamma) {
    PenaltyPlanner mage = finalAttemptOptimum(pool, spots, attempts, scoring, trajGamma);
    PenaltyPlanner lamer = cumulativeOptimum(pool, spots, attempts, scoring, trajGamma);
    return new Comparison(PenaltyCeilings.play(pool, spots, attempts, scoring, mage::dive),
        PenaltyCeilings.play(pool, spots, attempts, scoring, lamer::dive));
  }
}
