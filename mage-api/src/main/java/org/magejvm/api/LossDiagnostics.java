package org.magejvm.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.magejvm.api.annotation.Api;

/**
 * What one call of a {@link PolicyLoss} measured, as plain numbers.
 *
 * <p>Every value is <em>this micro-batch's contribution</em> to the minibatch value: it is aggregated like the loss
 * ({@link LossAggregation}) and divided by the same {@link LossInput#normalizer()}. Adding the diagnostics of all
 * micro-batches of a minibatch with {@link #plus(LossDiagnostics)} therefore gives the minibatch's values, for
 * example its clip fraction over all of its tokens (token-mean) or the mean over its sequences of their per-sequence
 * fraction (seq-mean-token-mean). The two counts are plain counts of this micro-batch.
 *
 * <p>A value that was not measured is NaN: {@code entropy} when no entropies were given, {@code klLoss} when no
 * reference log-probabilities were given. NaN stays NaN under {@link #plus(LossDiagnostics)}.
 *
 * @param loss the total loss, {@code pgLoss - entropyCoefficient * entropy + klCoefficient * klLoss}
 * @param pgLoss the clipped policy-gradient term
 * @param clipFracLow the share of tokens with {@code A < 0} and ratio below {@code 1 - clipRatioLow}: the
 *     clipped branch is active and the token gets no gradient
 * @param clipFracHigh the share of tokens with {@code A > 0} and ratio above {@code 1 + clipRatioHigh}: the clipped
 *     branch is active and the token gets no gradient
 * @param clipFracDual the share of tokens with {@code A < 0} and ratio above the dual-clip constant {@code c}: the
 *     loss is capped at {@code -A * c} and the token gets no gradient
 * @param ppoKl the mean of {@code oldLogProbs - logProbs}, the first-order estimate of KL(old || current)
 * @param entropy the aggregated entropy (before its coefficient), NaN if not measured
 * @param klLoss the aggregated k3 KL to the reference policy (before its coefficient), NaN if not measured
 * @param tokens the number of response tokens in this micro-batch
 * @param sequences the number of sequences with at least one response token in this micro-batch
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record LossDiagnostics(
    double loss,
    double pgLoss,
    double clipFracLow,
    double clipFracHigh,
    double clipFracDual,
    double ppoKl,
    double entropy,
    double klLoss,
    long tokens,
    long sequences) {

  /** Metric name of {@link #loss()}. */
  public static final String LOSS = "actor/loss";
  /** Metric name of {@link #pgLoss()}. */
  public static final String PG_LOSS = "actor/pg_loss";
  /** Metric name of {@link #clipFracLow()}. */
  public static final String PG_CLIPFRAC_LOW = "actor/pg_clipfrac_low";
  /** Metric name of {@link #clipFracHigh()}. */
  public static final String PG_CLIPFRAC_HIGH = "actor/pg_clipfrac_high";
  /** Metric name of {@link #clipFracDual()}. */
  public static final String PG_CLIPFRAC_DUAL = "actor/pg_clipfrac_dual";
  /** Metric name of {@link #ppoKl()}. */
  public static final String PPO_KL = "actor/ppo_kl";
  /** Metric name of {@link #entropy()}. */
  public static final String ENTROPY = "actor/entropy";
  /** Metric name of {@link #klLoss()}. */
  public static final String KL_LOSS = "actor/kl_loss";
  /** Metric name of {@link #tokens()}. */
  public static final String RESPONSE_TOKENS = "actor/response_tokens";
  /** Metric name of {@link #sequences()}. */
  public static final String SEQUENCES = "actor/sequences";

  private static final LossDiagnostics ZERO = new LossDiagnostics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /**
   * Checks the counts.
   *
   * @param loss total loss
   * @param pgLoss policy-gradient term
   * @param clipFracLow low clip fraction
   * @param clipFracHigh high clip fraction
   * @param clipFracDual dual-clip fraction
   * @param ppoKl KL to the sampling policy
   * @param entropy entropy or NaN
   * @param klLoss KL to the reference policy or NaN
   * @param tokens response tokens
   * @param sequences non-empty sequences
   */
  public LossDiagnostics {
    if (tokens < 0 || sequences < 0 || sequences > tokens) {
      throw new IllegalArgumentException(
          "tokens and sequences must satisfy 0 <= sequences <= tokens, got " + tokens + " and " + sequences);
    }
  }

  /** @return all zeros (with entropy and KL measured as 0): the neutral element of {@link #plus(LossDiagnostics)} */
  public static LossDiagnostics zero() {
    return ZERO;
  }

  /**
   * Adds another micro-batch's diagnostics, field by field.
   *
   * @param other the diagnostics of another micro-batch of the same minibatch (same normalizer)
   * @return the sum
   */
  public LossDiagnostics plus(LossDiagnostics other) {
    return new LossDiagnostics(loss + other.loss, pgLoss + other.pgLoss, clipFracLow + other.clipFracLow,
        clipFracHigh + other.clipFracHigh, clipFracDual + other.clipFracDual, ppoKl + other.ppoKl,
        entropy + other.entropy, klLoss + other.klLoss, tokens + other.tokens, sequences + other.sequences);
  }

  /**
   * The values under their metric names ({@code actor/...}), in declaration order. {@code actor/entropy} and
   * {@code actor/kl_loss} are left out when they were not measured (NaN).
   *
   * @return an unmodifiable, ordered map
   */
  public Map<String, Double> toMap() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put(LOSS, loss);
    m.put(PG_LOSS, pgLoss);
    m.put(PG_CLIPFRAC_LOW, clipFracLow);
    m.put(PG_CLIPFRAC_HIGH, clipFracHigh);
    m.put(PG_CLIPFRAC_DUAL, clipFracDual);
    m.put(PPO_KL, ppoKl);
    if (!Double.isNaN(entropy)) {
      m.put(ENTROPY, entropy);
    }
    if (!Double.isNaN(klLoss)) {
      m.put(KL_LOSS, klLoss);
    }
    m.put(RESPONSE_TOKENS, (double) tokens);
    m.put(SEQUENCES, (double) sequences);
    return Collections.unmodifiableMap(m);
  }
}
