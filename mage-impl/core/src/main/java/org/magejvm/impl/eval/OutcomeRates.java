package org.magejvm.impl.eval;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;

/**
 * Per-episode outcome rates of a set of meta-episodes, each list indexed by the episode k = 0..N-1.
 *
 * <ul>
 *   <li>{@code successRate[k]}: the fraction that won some episode {@code <= k} (cumulative, so a meta-episode
 *       that stopped early after a win counts as won for every later k);
 *   <li>{@code drawRate[k]}: the fraction that drew some episode {@code <= k};
 *   <li>{@code successAndDrawRate[k]}: the fraction that won or drew some episode {@code <= k};
 *   <li>{@code independentSuccessRate[k]}: the fraction whose first win was episode k (these sum to the last
 *       success rate);
 *   <li>{@code independentDrawRate[k]}: the fraction that played episode k and drew it;
 *   <li>{@code score[k]}: the mean over meta-episodes of the best final score among the episodes played up to k
 *       (a truncated episode scores 0);
 *   <li>{@code reached[k]}: the fraction that played episode k (below 1 for k > 0 when won meta-episodes stop
 *       early);
 *   <li>{@code perAttemptSuccess[k]}: among the meta-episodes that played episode k, the fraction that won it: how
 *       well the k-th attempt plays, which rises with k only for a player that learns from its earlier attempts
 *       (NaN when none played it);
 *   <li>{@code perAttemptScore[k]}: among the meta-episodes that played episode k, its mean final score (NaN when
 *       none played it).
 * </ul>
 *
 * @param metaEpisodes the number of meta-episodes measured
 * @param successRate cumulative success rate per episode
 * @param drawRate cumulative draw rate per episode
 * @param successAndDrawRate cumulative success-or-draw rate per episode
 * @param independentSuccessRate first-win rate per episode
 * @param independentDrawRate draw rate of each episode
 * @param score mean best score up to each episode
 * @param reached the fraction that played each episode
 * @param perAttemptSuccess the win rate of each episode among those that played it
 * @param perAttemptScore the mean score of each episode among those that played it
 */
@Api(status = Api.Status.STABLE)
public record OutcomeRates(
    int metaEpisodes,
    List<Double> successRate,
    List<Double> drawRate,
    List<Double> successAndDrawRate,
    List<Double> independentSuccessRate,
    List<Double> independentDrawRate,
    List<Double> score,
    List<Double> reached,
    List<Double> perAttemptSuccess,
    List<Double> perAttemptScore) {

  /**
   * Validates and copies.
   *
   * @param metaEpisodes count
   * @param successRate success rates
   * @param drawRate draw rates
   * @param successAndDrawRate success-or-draw rates
   * @param independentSuccessRate first-win rates
   * @param independentDrawRate per-episode draw rates
   * @param score scores
   * @param reached reached fractions
   * @param perAttemptSuccess per-attempt win rates
   * @param perAttemptScore per-attempt scores
   */
  public OutcomeRates {
    successRate = ImmutableList.copyOf(successRate);
    drawRate = ImmutableList.copyOf(drawRate);
    successAndDrawRate = ImmutableList.copyOf(successAndDrawRate);
    independentSuccessRate = ImmutableList.copyOf(independentSuccessRate);
    independentDrawRate = ImmutableList.copyOf(independentDrawRate);
    score = ImmutableList.copyOf(score);
    reached = ImmutableList.copyOf(reached);
    perAttemptSuccess = ImmutableList.copyOf(perAttemptSuccess);
    perAttemptScore = ImmutableList.copyOf(perAttemptScore);
    int n = successRate.size();
    if (drawRate.size() != n || successAndDrawRate.size() != n || independentSuccessRate.size() != n
        || independentDrawRate.size() != n || score.size() != n || reached.size() != n
        || perAttemptSuccess.size() != n || perAttemptScore.size() != n) {
      throw new IllegalArgumentException("all rate lists must have one entry per episode (" + n + ")");
    }
  }

  /** @return N, the number of episodes covered */
  public int episodes() {
    return successRate.size();
  }

  /**
   * Measures meta-episodes.
   *
   * @param metaEpisodes the meta-episodes, at least one
   * @param episodes N, the episodes each meta-episode was configured with
   * @return the rates
   * @throws IllegalArgumentException if the list is empty, N is below 1, or a meta-episode has more than N episodes,
   *     none, or does not start with episode 0
   */
  public static OutcomeRates of(List<MetaEpisode> metaEpisodes, int episodes) {
    if (episodes < 1) {
      throw new IllegalArgumentException("episodes must be >= 1, got " + episodes);
    }
    if (metaEpisodes.isEmpty()) {
      throw new IllegalArgumentException("no meta-episodes to measure");
    }
    double[] success = new double[episodes];
    double[] draw = new double[episodes];
    double[] either = new double[episodes];
    double[] firstWin = new double[episodes];
    double[] drawAt = new double[episodes];
    double[] score = new double[episodes];
    double[] played = new double[episodes];
    double[] wonAt = new double[episodes];
    double[] scoreAt = new double[episodes];
    for (MetaEpisode m : metaEpisodes) {
      List<Episode> eps = m.episodes();
      if (eps.isEmpty() || eps.size() > episodes || eps.get(0).index() != 0) {
        throw new IllegalArgumentException("meta-episode " + m.groupId() + "/" + m.indexInGroup() + " has "
            + eps.size() + " episodes" + (eps.isEmpty() ? "" : " starting at index " + eps.get(0).index())
            + "; expected 1 to " + episodes + " starting at index 0");
      }
      boolean won = false;
      boolean drew = false;
      double best = Double.NEGATIVE_INFINITY;
      int next = 0;
      for (int k = 0; k < episodes; k++) {
        while (next < eps.size() && eps.get(next).index() <= k) {
          Episode e = eps.get(next++);
          if (e.index() >= episodes) {
            throw new IllegalArgumentException("meta-episode " + m.groupId() + "/" + m.indexInGroup()
                + " has an episode with index " + e.index() + ", beyond the " + episodes + " measured");
          }
          if (e.won() && !won) {
            firstWin[e.index()]++;
          }
          if (e.draw()) {
            drawAt[e.index()]++;
          }
          played[e.index()]++;
          wonAt[e.index()] += e.won() ? 1 : 0;
          scoreAt[e.index()] += e.score();
          won |= e.won();
          drew |= e.draw();
          best = Math.max(best, e.score());
        }
        success[k] += won ? 1 : 0;
        draw[k] += drew ? 1 : 0;
        either[k] += won || drew ? 1 : 0;
        score[k] += best;
      }
    }
    int m = metaEpisodes.size();
    ImmutableList.Builder<Double> perWin = ImmutableList.builder();
    ImmutableList.Builder<Double> perScore = ImmutableList.builder();
    for (int k = 0; k < episodes; k++) {
      perWin.add(played[k] == 0 ? Double.NaN : wonAt[k] / played[k]);
      perScore.add(played[k] == 0 ? Double.NaN : scoreAt[k] / played[k]);
    }
    return new OutcomeRates(m, divide(success, m), divide(draw, m), divide(either, m), divide(firstWin, m),
        divide(drawAt, m), divide(score, m), divide(played, m), perWin.build(), perScore.build());
  }

  private static List<Double> divide(double[] sums, int n) {
    ImmutableList.Builder<Double> b = ImmutableList.builder();
    for (double s : sums) {
      b.add(s / n);
    }
    return b.build();
  }
}
