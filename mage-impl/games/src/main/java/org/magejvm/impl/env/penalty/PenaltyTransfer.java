package org.magejvm.impl.env.penalty;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What learning the training population can do on held-out strikers, exactly: the question a held-out evaluation
 * asks, answered for a perfect learner before any training run.
 *
 * <ul>
 *   <li>{@link #heldOutPassAt}: the lowest and highest held-out Pass@K over every keeper that is optimal for a
 *       training objective ({@link PenaltyPlanner}): one that takes an optimal dive wherever the training strikers can
 *       have shot the history so far, and may dive anywhere else (histories no training striker shoots, which only a
 *       held-out striker leads to). The highest is what a perfect learner with the luckiest generalization reaches;
 *       where it is not above the held-out blind ceiling ({@link PenaltyCeilings#historyBlind}), no keeper that plays
 *       the training population optimally beats that ceiling on the held-out strikers.</li>
 *   <li>{@link #frontier}: the trade-off between the two populations, the keepers that maximize {@code lambda *
 *       training Pass@K + (1 - lambda) * held-out Pass@K} exactly for a grid of weights, each point an actual keeper's
 *       exact pair: the corners of the upper convex hull of all keepers' pairs that the grid's weights reach (a keeper
 *       on an edge between two corners may be missing), and the hull's two ends exactly.</li>
 * </ul>
 *
 * <p>With the games' defaults (3 attempts, 5 spots): on {@code mage-penalty-graded} the keepers optimal for MAGE's
 * objective on the training population save 0.30 to 0.65 of the held-out strikers within 3 attempts, and 0.65 is the
 * held-out blind ceiling; the frontier runs through (training, held-out) Pass@3 (0.65, 1), (0.75, 0.95), (0.90, 0.80),
 * (0.95, 0.75) and (1, 0.65). On {@code mage-penalty} the optimal keepers save 0.35 to 0.40 against the blind ceiling
 * 0.60, and the frontier is the line from (0.60, 1) to (1, 0.40). On both games, then, saving more of the
 * held-out strikers than a history-blind keeper costs saves on the training population: their held-out strikers
 * continue histories that training strikers begin, elsewhere. The tests check both against brute force over every
 * deterministic keeper.
 */
public final class PenaltyTransfer {

  /** How many steps the frontier's grid of weights has between 0 and 1. */
  public static final int FRONTIER_STEPS = 100;

  private PenaltyTransfer() {}

  /**
   * The lowest and highest value a quantity takes over a set of keepers.
   *
   * @param min the lowest
   * @param max the highest
   */
  public record Range(double min, double max) {}

  /**
   * One keeper's exact Pass@K on the two populations.
   *
   * @param training Pass@K against the training strikers
   * @param heldOut Pass@K against the held-out strikers
   */
  public record Point(double training, double heldOut) {}

  private record Hypothesis(Striker striker, int first) {}

  /**
   * The held-out Pass@K of the keepers that are optimal for a planner's objective on its population.
   *
   * @param trainingOptimum the training population's planner: its objective, population, sizes and scoring
   * @param heldOut the held-out strikers, each equally likely
   * @return the lowest and the highest Pass@K ({@code K = trainingOptimum.attempts()}) over those keepers
   */
  public static Range heldOutPassAt(PenaltyPlanner trainingOptimum, List<Striker> heldOut) {
    Objects.requireNonNull(trainingOptimum, "trainingOptimum");
    List<Hypothesis> all = new ArrayList<>();
    for (Striker s : PenaltyPlanner.checkPool(heldOut)) {
      for (int f = 1; f <= trainingOptimum.spots(); f++) {
        all.add(new Hypothesis(s, f));
      }
    }
    return new Range(extreme(trainingOptimum, new ArrayList<>(), all, false),
        extreme(trainingOptimum, new ArrayList<>(), all, true));
  }

  /** The held-out saves from a history on, the best or worst over the dives the training optimum allows. */
  private static double extreme(PenaltyPlanner plan, List<PenaltyEnvironment.Penalty> history, List<Hypothesis> belief,
      boolean max) {
    int spots = plan.spots();
    List<Integer> allowed = plan.optimalDives(history);
    if (allowed.isEmpty()) {
      allowed = new ArrayList<>();
      for (int d = 1; d <= spots; d++) {
        allowed.add(d);
      }
    }
    Map<Integer, List<Hypothesis>> byShot = new HashMap<>();
    for (Hypothesis h : belief) {
      byShot.computeIfAbsent(h.striker().shoot(spots, h.first(), history), s -> new ArrayList<>()).add(h);
    }
    double best = max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    for (int d : allowed) {
      double saved = 0;
      for (Map.Entry<Integer, List<Hypothesis>> e : byShot.entrySet()) {
        int shot = e.getKey();
        if (shot == d) {
          saved += e.getValue().size();
        } else if (history.size() + 1 < plan.attempts()) {
          List<PenaltyEnvironment.Penalty> next = new ArrayList<>(history);
          next.add(new PenaltyEnvironment.Penalty(d, shot, plan.scoring().score(d, shot, spots)));
          saved += e.getValue().size() * extreme(plan, next, e.getValue(), max);
        }
      }
      double v = saved / belief.size();
      best = max ? Math.max(best, v) : Math.min(best, v);
    }
    return best;
  }

  /**
   * The trade-off between saving training and held-out strikers within K attempts: for {@code lambda = i /
   * FRONTIER_STEPS}, the keeper that maximizes {@code lambda * training + (1 - lambda) * held-out} Pass@K (each
   * population's strikers equally likely within it), played on both; at {@code lambda = 1} the training-optimal
   * keeper with the most held-out saves ({@link #heldOutPassAt}) and at 0 the reverse. Points that another point
   * matches or beats on both populations are dropped.
   *
   * @param training the training strikers
   * @param heldOut the held-out strikers, none of them a training striker
   * @param spots N, 3 to 9
   * @param attempts K, 1 to 6
   * @return the points, by increasing training Pass@K (and so decreasing held-out Pass@K)
   * @throws IllegalArgumentException if a size is out of range, a list is empty or the two share a striker
   */
  public static List<Point> frontier(List<Striker> training, List<Striker> heldOut, int spots, int attempts) {
    PenaltyPopulation population = new PenaltyPopulation(training, heldOut);
    List<Striker> both = new ArrayList<>(population.training());
    both.addAll(population.heldOut());
    int t = population.training().size();
    int h = population.heldOut().size();
    List<Point> points = new ArrayList<>();
    PenaltyPlanner trainingOnly = PenaltyPlanner.of(population.training(), spots, attempts, Scoring.BINARY,
        PenaltyPlanner.Objective.FINAL_ATTEMPT, 1.0);
    PenaltyPlanner heldOutOnly = PenaltyPlanner.of(population.heldOut(), spots, attempts, Scoring.BINARY,
        PenaltyPlanner.Objective.FINAL_ATTEMPT, 1.0);
    points.add(new Point(trainingOnly.value(), heldOutPassAt(trainingOnly, population.heldOut()).max()));
    points.add(new Point(heldOutPassAt(heldOutOnly, population.training()).max(), heldOutOnly.value()));
    for (int i = 1; i < FRONTIER_STEPS; i++) {
      double lambda = (double) i / FRONTIER_STEPS;
      List<Double> weights = new ArrayList<>();
      for (int j = 0; j < both.size(); j++) {
        weights.add(j < t ? lambda / t : (1 - lambda) / h);
      }
      PenaltyPlanner keeper = PenaltyPlanner.weighted(both, weights, spots, attempts);
      points.add(new Point(passAtK(population.training(), spots, attempts, keeper),
          passAtK(population.heldOut(), spots, attempts, keeper)));
    }
    List<Point> kept = new ArrayList<>();
    for (Point p : points) {
      boolean dominated = false;
      for (Point q : points) {
        boolean atLeast = q.training() >= p.training() - 1e-12 && q.heldOut() >= p.heldOut() - 1e-12;
        boolean better = q.training() > p.training() + 1e-12 || q.heldOut() > p.heldOut() + 1e-12;
        dominated |= atLeast && better;
      }
      if (!dominated && kept.stream().noneMatch(k -> Math.abs(k.training() - p.training()) < 1e-12
          && Math.abs(k.heldOut() - p.heldOut()) < 1e-12)) {
        kept.add(p);
      }
    }
    kept.sort((a, b) -> Double.compare(a.training(), b.training()));
    return List.copyOf(kept);
  }

  private static double passAtK(List<Striker> pool, int spots, int attempts, PenaltyPlanner keeper) {
    List<Double> passAt = PenaltyCeilings.play(pool, spots, attempts, Scoring.BINARY, keeper::dive).passAt();
    return passAt.get(attempts - 1);
  }
}
