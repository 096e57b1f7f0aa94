package org.magejvm.impl.env;

import java.util.ArrayList;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * What a player can reach over the attempts of a meta-episode, as the paper's cumulative success rate (Pass@k) and as
 * the per-attempt win rate (among the meta-episodes that reached attempt k). The built-in sanity games compute their
 * history-blind and adaptive ceilings as values of this type.
 *
 * @param passAt for k = 0..K-1, the fraction of meta-episodes won by attempt k (Pass@k+1)
 * @param perAttempt for k = 0..K-1, among the meta-episodes not won before attempt k, the fraction attempt k wins
 *     (NaN when none is left)
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record AttemptCeiling(List<Double> passAt, List<Double> perAttempt) {

  /**
   * Copies.
   *
   * @param passAt cumulative rates
   * @param perAttempt per-attempt rates
   */
  public AttemptCeiling {
    passAt = List.copyOf(passAt);
    perAttempt = List.copyOf(perAttempt);
    if (passAt.size() != perAttempt.size()) {
      throw new IllegalArgumentException("passAt and perAttempt differ in length: " + passAt.size() + " and "
          + perAttempt.size());
    }
  }

  /**
   * The rates of counted play over equally likely hidden cases.
   *
   * @param wonAt for each attempt, how many cases were won at that attempt
   * @param reached for each attempt, how many cases reached it
   * @param cases how many cases there are
   * @return the rates
   */
  public static AttemptCeiling ofCounts(int[] wonAt, int[] reached, int cases) {
    if (wonAt.length != reached.length || cases < 1) {
      throw new IllegalArgumentException("need counts of one length and at least one case");
    }
    List<Double> passAt = new ArrayList<>();
    List<Double> perAttempt = new ArrayList<>();
    int won = 0;
    for (int k = 0; k < wonAt.length; k++) {
      won += wonAt[k];
      passAt.add((double) won / cases);
      perAttempt.add(reached[k] == 0 ? Double.NaN : (double) wonAt[k] / reached[k]);
    }
    return new AttemptCeiling(passAt, perAttempt);
  }

  /**
   * The rates of a player from its cumulative success rates: the per-attempt rate of attempt k is {@code (Pass@(k+1)
   * - Pass@k) / (1 - Pass@k)} (NaN where every meta-episode was won before).
   *
   * @param passAt for k = 0..K-1, the fraction of meta-episodes won by attempt k
   * @return the rates
   */
  public static AttemptCeiling ofPassAt(double[] passAt) {
    List<Double> cumulative = new ArrayList<>();
    List<Double> perAttempt = new ArrayList<>();
    double before = 0;
    for (double p : passAt) {
      cumulative.add(p);
      perAttempt.add(before >= 1 ? Double.NaN : (p - before) / (1 - before));
      before = p;
    }
    return new AttemptCeiling(cumulative, perAttempt);
  }

  /** @return the number of attempts */
  public int attempts() {
    return passAt.size();
  }
}
