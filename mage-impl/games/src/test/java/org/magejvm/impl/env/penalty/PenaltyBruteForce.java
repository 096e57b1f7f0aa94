package org.magejvm.impl.env.penalty;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Brute force for the tests, independent of {@link PenaltyPlanner}: every deterministic keeper (a dive for every
 * history of missed penalties it can meet), enumerated one by one and played against every striker and first spot
 * with the strikers' own rules.
 */
final class PenaltyBruteForce {

  private PenaltyBruteForce() {}

  /** What a keeper's meta-episode against one striker from one first spot gave. */
  record Play(int savedAt, List<Double> scores) {}

  /**
   * The best value of a measure over every deterministic keeper.
   *
   * @param pool the strikers, each equally likely
   * @param spots N
   * @param attempts K
   * @param scoring the scoring
   * @param measure the measure of one meta-episode
   * @return the highest mean over strikers and first spots
   */
  static double best(List<Striker> pool, int spots, int attempts, Scoring scoring, ToDoubleFunction<Play> measure) {
    double[] best = {Double.NEGATIVE_INFINITY};
    List<String> frontier = new ArrayList<>();
    frontier.add("");
    enumerate(new HashMap<>(), frontier, spots, attempts,
        keeper -> best[0] = Math.max(best[0], mean(keeper, pool, measure, spots, attempts, scoring)));
    return best[0];
  }

  /**
   * Every deterministic keeper's means of two measures, each over its own population.
   *
   * @param first the first population, each striker equally likely
   * @param firstMeasure the first measure of one meta-episode
   * @param second the second population
   * @param secondMeasure the second measure
   * @param spots N
   * @param attempts K
   * @param scoring the scoring
   * @return one {first mean, second mean} per keeper
   */
  static List<double[]> pairs(List<Striker> first, ToDoubleFunction<Play> firstMeasure, List<Striker> second,
      ToDoubleFunction<Play> secondMeasure, int spots, int attempts, Scoring scoring) {
    List<double[]> pairs = new ArrayList<>();
    List<String> frontier = new ArrayList<>();
    frontier.add("");
    enumerate(new HashMap<>(), frontier, spots, attempts, keeper -> pairs.add(new double[] {
        mean(keeper, first, firstMeasure, spots, attempts, scoring),
        mean(keeper, second, secondMeasure, spots, attempts, scoring)}));
    return pairs;
  }

  private static double mean(Map<String, Integer> keeper, List<Striker> pool, ToDoubleFunction<Play> measure,
      int spots, int attempts, Scoring scoring) {
    double v = 0;
    for (Striker s : pool) {
      for (int f = 1; f <= spots; f++) {
        v += measure.applyAsDouble(play(keeper, s, f, spots, attempts, scoring));
      }
    }
    return v / (pool.size() * spots);
  }

  /**
   * The discounted return of a meta-episode at its first attempt.
   *
   * @param p the meta-episode
   * @param objective MAGE's differential or LaMer's cumulative return
   * @param gamma the discount between attempts
   * @return {@code sum_k gamma^k (R_k - R_(k-1))} or {@code sum_k gamma^k R_k}
   */
  static double firstReturn(Play p, PenaltyPlanner.Objective objective, double gamma) {
    double g = 0;
    double w = 1;
    double previous = 0;
    for (double r : p.scores()) {
      g += w * (objective == PenaltyPlanner.Objective.FINAL_ATTEMPT ? r - previous : r);
      previous = r;
      w *= gamma;
    }
    return g;
  }

  private interface KeeperVisitor {
    void visit(Map<String, Integer> keeper);
  }

  /** Assigns a dive to every open history in turn; a dive that misses opens the histories it can lead to. */
  private static void enumerate(Map<String, Integer> keeper, List<String> frontier, int spots, int attempts,
      KeeperVisitor visitor) {
    if (frontier.isEmpty()) {
      visitor.visit(keeper);
      return;
    }
    String h = frontier.get(frontier.size() - 1);
    List<String> rest = new ArrayList<>(frontier.subList(0, frontier.size() - 1));
    int depth = h.isEmpty() ? 0 : h.split(",").length;
    for (int d = 1; d <= spots; d++) {
      keeper.put(h, d);
      List<String> next = new ArrayList<>(rest);
      if (depth + 1 < attempts) {
        for (int s = 1; s <= spots; s++) {
          if (s != d) {
            next.add(h + (h.isEmpty() ? "" : ",") + d + ">" + s);
          }
        }
      }
      enumerate(keeper, next, spots, attempts, visitor);
      keeper.remove(h);
    }
  }

  private static Play play(Map<String, Integer> keeper, Striker striker, int first, int spots, int attempts,
      Scoring scoring) {
    List<PenaltyEnvironment.Penalty> earlier = new ArrayList<>();
    List<Double> scores = new ArrayList<>();
    StringBuilder h = new StringBuilder();
    for (int k = 0; k < attempts; k++) {
      int dive = keeper.get(h.toString());
      int shot = striker.shoot(spots, first, earlier);
      double score = scoring.score(dive, shot, spots);
      scores.add(score);
      if (dive == shot) {
        return new Play(k, scores);
      }
      earlier.add(new PenaltyEnvironment.Penalty(dive, shot, score));
      h.append(h.length() == 0 ? "" : ",").append(dive).append('>').append(shot);
    }
    return new Play(-1, scores);
  }
}
