package org.magejvm.impl.env.penalty;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The best keeper of Penalty Shoot-out against a population of strikers, for a training objective, computed exactly
 * by backward induction over histories.
 *
 * <p>The unknowns are the striker (each of the population equally likely, or with weights for {@link
 * PenaltyTransfer#frontier}) and its first spot (each spot equally likely); every striker is deterministic, so a
 * history of penalties (dives and shots) leaves the pairs that would have shot exactly those shots, the keeper's
 * belief. A meta-episode has {@code attempts} penalties and stops at the first save. The keeper's return at attempt k
 * is, with {@code R_j} the score of attempt j and {@code gamma} the discount between attempts ({@code trajGamma}):
 *
 * <ul>
 *   <li>{@link Objective#FINAL_ATTEMPT} (MAGE's differential return): {@code sum_(j>=k) gamma^(j-k) (R_j - R_(j-1))},
 *       {@code R_(-1) = 0}; with {@code gamma = 1} it telescopes to the score of the last attempt played, so a near
 *       miss before the last attempt is worth nothing.</li>
 *   <li>{@link Objective#CUMULATIVE} (LaMer's): {@code sum_(j>=k) gamma^(j-k) R_j}, every attempt's score.</li>
 * </ul>
 *
 * <p>For every history the planner keeps the dives that maximize the expected return given the belief (ties within
 * 1e-9), preferring among them the dive most likely to save now, then the lowest spot. With binary scoring, the
 * final-attempt objective and {@code gamma = 1} its value is the best Pass@{@code attempts} any keeper reaches: the
 * adaptive ceiling ({@link PenaltyCeilings#adaptive}).
 *
 * <p>Every reachable history is solved at construction (a few thousand for 9 spots and 3 attempts), so instances are
 * immutable and thread-safe.
 */
public final class PenaltyPlanner {

  /** Which return the keeper maximizes. */
  public enum Objective {
    /** MAGE's differential return: the last attempt's score when undiscounted. */
    FINAL_ATTEMPT,
    /** LaMer's cumulative return: the sum of the attempts' scores when undiscounted. */
    CUMULATIVE
  }

  private static final double TIE = 1e-9;

  /** One unknown: the striker and its first spot, with its prior weight. */
  private record Hypothesis(Striker striker, int first, double weight) {}

  /** A solved history: its value and its optimal dives, preferred first. */
  private record Node(double value, List<Integer> optimal) {}

  private final List<Striker> pool;
  private final int spots;
  private final int attempts;
  private final Scoring scoring;
  private final Objective objective;
  private final double trajGamma;
  private final List<Double> weights;
  private final Map<String, Node> nodes = new HashMap<>();
  private final double value;

  private PenaltyPlanner(List<Striker> pool, List<Double> weights, int spots, int attempts, Scoring scoring,
      Objective objective, double trajGamma) {
    this.pool = pool;
    this.spots = spots;
    this.attempts = attempts;
    this.scoring = scoring;
    this.objective = objective;
    this.trajGamma = trajGamma;
    this.weights = weights;
    value = solve(new ArrayList<>(), hypotheses()).value();
  }

  /**
   * Solves a population.
   *
   * @param pool the strikers, each equally likely (at least one, no two alike)
   * @param spots how many spots, 3 to 9
   * @param attempts the attempts of a meta-episode, 1 to 6
   * @param scoring how dives score
   * @param objective which return to maximize
   * @param trajGamma the discount between attempts, in [0, 1]
   * @return the planner
   * @throws IllegalArgumentException naming the parameter that is out of range
   */
  public static PenaltyPlanner of(List<Striker> pool, int spots, int attempts, Scoring scoring, Objective objective,
      double trajGamma) {
    List<Striker> p = checkPool(pool);
    checkSizes(spots, attempts);
    Objects.requireNonNull(scoring, "scoring");
    Objects.requireNonNull(objective, "objective");
    if (!(trajGamma >= 0 && trajGamma <= 1)) {
      throw new IllegalArgumentException("trajGamma must be in [0, 1], got " + trajGamma);
    }
    return new PenaltyPlanner(p, null, spots, attempts, scoring, objective, trajGamma);
  }

  /**
   * Solves a population whose strikers are not equally likely, for Pass@{@code attempts} (binary scoring, the
   * final-attempt objective, no discount): the value is the highest weighted Pass@{@code attempts} any keeper reaches,
   * as {@link PenaltyTransfer#frontier} needs.
   *
   * @param pool the strikers (at least one, no two alike)
   * @param weights each striker's weight, in the pool's order, none negative, not all zero
   * @param spots how many spots, 3 to 9
   * @param attempts the attempts of a meta-episode, 1 to 6
   * @return the planner
   * @throws IllegalArgumentException if a size or weight is out of range
   */
  static PenaltyPlanner weighted(List<Striker> pool, List<Double> weights, int spots, int attempts) {
    List<Striker> p = checkPool(pool);
    checkSizes(spots, attempts);
    List<Double> w = List.copyOf(weights);
    if (w.size() != p.size() || w.stream().anyMatch(x -> !(x >= 0)) || w.stream().allMatch(x -> x == 0)) {
      throw new IllegalArgumentException("need one weight of 0 or more per striker, not all 0, got " + w);
    }
    return new PenaltyPlanner(p, w, spots, attempts, Scoring.BINARY, Objective.FINAL_ATTEMPT, 1.0);
  }

  /** Every striker and first spot with its weight (1 each for an unweighted planner); a weight of 0 leaves it out. */
  private List<Hypothesis> hypotheses() {
    List<Hypothesis> all = new ArrayList<>();
    for (int i = 0; i < pool.size(); i++) {
      double w = weights == null ? 1.0 : weights.get(i);
      for (int f = 1; f <= spots && w > 0; f++) {
        all.add(new Hypothesis(pool.get(i), f, w));
      }
    }
    return all;
  }

  private static double weight(List<Hypothesis> belief) {
    double w = 0;
    for (Hypothesis h : belief) {
      w += h.weight();
    }
    return w;
  }

  static List<Striker> checkPool(List<Striker> pool) {
    Objects.requireNonNull(pool, "pool");
    if (pool.isEmpty() || pool.stream().distinct().count() != pool.size()) {
      throw new IllegalArgumentException("the pool needs at least one striker and no striker twice, got " + pool);
    }
    return List.copyOf(pool);
  }

  static void checkSizes(int spots, int attempts) {
    if (spots < 3 || spots > 9 || attempts < 1 || attempts > 6) {
      throw new IllegalArgumentException("need 3 to 9 spots and 1 to 6 attempts, got " + spots + " and " + attempts);
    }
  }

  /** @return the expected return of the first attempt under the optimal play */
  public double value() {
    return value;
  }

  /** @return the strikers, each equally likely */
  public List<Striker> pool() {
    return pool;
  }

  /** @return how many spots */
  public int spots() {
    return spots;
  }

  /** @return the attempts of a meta-episode */
  public int attempts() {
    return attempts;
  }

  /** @return how dives score */
  public Scoring scoring() {
    return scoring;
  }

  /** @return the objective */
  public Objective objective() {
    return objective;
  }

  /** @return the discount between attempts */
  public double trajGamma() {
    return trajGamma;
  }

  /**
   * The optimal dives after a history, the preferred one first.
   *
   * @param earlier the penalties already taken, all missed
   * @return the dives, or an empty list when no striker of the population (from any first spot) shoots that history,
   *     or the history has {@code attempts} penalties or more
   */
  public List<Integer> optimalDives(List<PenaltyEnvironment.Penalty> earlier) {
    Node n = nodes.get(key(earlier));
    return n == null ? List.of() : n.optimal();
  }

  /**
   * The preferred optimal dive after a history. Where the population has no answer ({@link #optimalDives} is empty:
   * a striker outside the population, or an attempt beyond the planned ones), the keeper dives where the last shot
   * went.
   *
   * @param earlier the penalties already taken
   * @return a spot from 1 to spots
   */
  public int dive(List<PenaltyEnvironment.Penalty> earlier) {
    List<Integer> best = optimalDives(earlier);
    if (!best.isEmpty()) {
      return best.get(0);
    }
    return earlier.isEmpty() ? (spots + 1) / 2 : earlier.get(earlier.size() - 1).shot();
  }

  /**
   * The expected return from a history on, under optimal play.
   *
   * @param earlier the penalties already taken, all missed
   * @return the value, or NaN where {@link #optimalDives} is empty
   */
  public double value(List<PenaltyEnvironment.Penalty> earlier) {
    Node n = nodes.get(key(earlier));
    return n == null ? Double.NaN : n.value();
  }

  /** A measure of a keeper's outcome, for {@link #range}. */
  public enum Measure {
    /** Pass@(k+1): the probability of a save within the first k+1 attempts. */
    PASS_AT,
    /** The expected score of the last attempt played. */
    FINAL_SCORE,
    /** The expected sum of the scores of the attempts played. */
    CUMULATIVE_SCORE
  }

  /**
   * The lowest and the highest value of a measure over every keeper that is optimal for this planner (one that takes
   * one of {@link #optimalDives} after every history), against the planner's own population. Where the two are equal
   * the ties between optimal dives do not matter for the measure, and every optimal keeper reaches it exactly.
   *
   * @param measure the measure
   * @param k the attempt index for {@link Measure#PASS_AT} (0 for Pass@1), else ignored
   * @return {min, max}
   * @throws IllegalArgumentException if {@code k} is not an attempt index for {@link Measure#PASS_AT}
   */
  public double[] range(Measure measure, int k) {
    Objects.requireNonNull(measure, "measure");
    if (measure == Measure.PASS_AT && (k < 0 || k >= attempts)) {
      throw new IllegalArgumentException("k must be from 0 to " + (attempts - 1) + ", got " + k);
    }
    List<Hypothesis> all = hypotheses();
    return new double[] {extreme(new ArrayList<>(), all, measure, k, false),
        extreme(new ArrayList<>(), all, measure, k, true)};
  }

  private double extreme(List<PenaltyEnvironment.Penalty> history, List<Hypothesis> belief, Measure measure, int j,
      boolean max) {
    int k = history.size();
    double best = max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    for (int d : nodes.get(key(history)).optimal()) {
      Map<Integer, List<Hypothesis>> byShot = new HashMap<>();
      for (Hypothesis h : belief) {
        byShot.computeIfAbsent(h.striker().shoot(spots, h.first(), history), s -> new ArrayList<>()).add(h);
      }
      double total = 0;
      for (Map.Entry<Integer, List<Hypothesis>> e : byShot.entrySet()) {
        int shot = e.getKey();
        double w = weight(e.getValue());
        double score = scoring.score(d, shot, spots);
        boolean last = shot == d || k + 1 == attempts;
        total += w * switch (measure) {
          case PASS_AT -> shot == d && k <= j ? 1 : 0;
          case FINAL_SCORE -> last ? score : 0;
          case CUMULATIVE_SCORE -> score;
        };
        if (!last) {
          List<PenaltyEnvironment.Penalty> next = new ArrayList<>(history);
          next.add(new PenaltyEnvironment.Penalty(d, shot, score));
          total += w * extreme(next, e.getValue(), measure, j, max);
        }
      }
      double v = total / weight(belief);
      best = max ? Math.max(best, v) : Math.min(best, v);
    }
    return best;
  }

  private Node solve(List<PenaltyEnvironment.Penalty> history, List<Hypothesis> belief) {
    int k = history.size();
    double weight = weight(belief);
    double previous = k == 0 ? 0 : history.get(k - 1).score();
    double[] q = new double[spots + 1];
    double[] saves = new double[spots + 1];
    double best = Double.NEGATIVE_INFINITY;
    for (int d = 1; d <= spots; d++) {
      Map<Integer, List<Hypothesis>> byShot = new HashMap<>();
      for (Hypothesis h : belief) {
        byShot.computeIfAbsent(h.striker().shoot(spots, h.first(), history), s -> new ArrayList<>()).add(h);
      }
      double total = 0;
      for (Map.Entry<Integer, List<Hypothesis>> e : byShot.entrySet()) {
        int shot = e.getKey();
        double w = weight(e.getValue());
        double score = scoring.score(d, shot, spots);
        total += w * (objective == Objective.FINAL_ATTEMPT ? score - previous : score);
        if (shot == d) {
          saves[d] += w;
        } else if (k + 1 < attempts) {
          List<PenaltyEnvironment.Penalty> next = new ArrayList<>(history);
          next.add(new PenaltyEnvironment.Penalty(d, shot, score));
          total += trajGamma * w * solve(next, e.getValue()).value();
        }
      }
      q[d] = total / weight;
      best = Math.max(best, q[d]);
    }
    List<Integer> optimal = new ArrayList<>();
    for (int d = 1; d <= spots; d++) {
      if (q[d] >= best - TIE) {
        optimal.add(d);
      }
    }
    optimal.sort(Comparator.comparingDouble((Integer d) -> -saves[d]).thenComparingInt(d -> d));
    Node n = new Node(best, List.copyOf(optimal));
    nodes.put(key(history), n);
    return n;
  }

  private static String key(List<PenaltyEnvironment.Penalty> history) {
    StringBuilder sb = new StringBuilder();
    for (PenaltyEnvironment.Penalty p : history) {
      sb.append(p.dive()).append('>').append(p.shot()).append(',');
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "PenaltyPlanner[" + objective + ", gamma " + trajGamma + ", " + scoring.id() + ", spots " + spots
        + ", attempts " + attempts + ", pool " + pool.stream().map(Striker::id).toList() + "]";
  }
}
