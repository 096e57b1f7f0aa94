package org.magejvm.api;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * The arrays of one (micro-)batch of the policy loss. {@code B} is the number of sequences (turns) and {@code T} the
 * padded response length. Every array is floating point, of the same data type as {@code logProbs}.
 *
 * <p>Gradients flow into {@code logProbs} and {@code entropies}. {@code oldLogProbs}, {@code refLogProbs},
 * {@code advantages} and {@code mask} are constants: the loss never differentiates through them.
 *
 * <p>Where {@code mask} is 0, the values of every other array are ignored, even infinite or NaN ones.
 *
 * @param logProbs {@code (B, T)} log-probabilities of the response tokens under the policy being trained
 * @param oldLogProbs {@code (B, T)} log-probabilities under the policy that sampled the batch
 * @param refLogProbs {@code (B, T)} log-probabilities under the frozen reference policy, or {@code null} when the KL
 *     coefficient is 0
 * @param advantages {@code (B)} one advantage per sequence, broadcast over its tokens, or {@code (B, T)} per token
 * @param mask {@code (B, T)} 1 for response tokens, 0 for padding; no other value is allowed
 * @param entropies {@code (B, T)} the policy's entropy at each response position, or {@code null} when the entropy
 *     coefficient is 0
 * @param normalizer the divisor of the aggregation, counted over the whole minibatch this micro-batch belongs to:
 *     its number of response tokens ({@link LossAggregation#TOKEN_MEAN}) or of sequences
 *     ({@link LossAggregation#SEQ_MEAN_TOKEN_MEAN}); see {@link LossAggregation#units(NDArray)}
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record LossInput(
    NDArray logProbs,
    NDArray oldLogProbs,
    NDArray refLogProbs,
    NDArray advantages,
    NDArray mask,
    NDArray entropies,
    double normalizer) {

  /**
   * Checks that the required arrays are present and that all shapes and data types agree.
   *
   * @param logProbs current log-probabilities
   * @param oldLogProbs sampling-time log-probabilities
   * @param refLogProbs reference log-probabilities or {@code null}
   * @param advantages advantages
   * @param mask response mask
   * @param entropies entropies or {@code null}
   * @param normalizer the minibatch's token or sequence count
   */
  public LossInput {
    Objects.requireNonNull(logProbs, "logProbs");
    Objects.requireNonNull(oldLogProbs, "oldLogProbs");
    Objects.requireNonNull(advantages, "advantages");
    Objects.requireNonNull(mask, "mask");
    Shape shape = logProbs.getShape();
    if (shape.dimension() != 2) {
      throw new IllegalArgumentException("logProbs must have shape (B, T), got " + shape);
    }
    DataType type = logProbs.getDataType();
    if (!type.isFloating()) {
      throw new IllegalArgumentException("logProbs must be floating point, got " + type);
    }
    requireLike("oldLogProbs", oldLogProbs, shape, type);
    requireLike("mask", mask, shape, type);
    if (refLogProbs != null) {
      requireLike("refLogProbs", refLogProbs, shape, type);
    }
    if (entropies != null) {
      requireLike("entropies", entropies, shape, type);
    }
    Shape rows = new Shape(shape.get(0));
    if (!advantages.getShape().equals(rows) && !advantages.getShape().equals(shape)) {
      throw new IllegalArgumentException(
          "advantages must have shape " + rows + " or " + shape + ", got " + advantages.getShape());
    }
    requireType("advantages", advantages, type);
    if (!(normalizer > 0) || Double.isInfinite(normalizer)) {
      throw new IllegalArgumentException("normalizer must be finite and > 0, got " + normalizer);
    }
  }

  private static void requireLike(String name, NDArray array, Shape shape, DataType type) {
    if (!array.getShape().equals(shape)) {
      throw new IllegalArgumentException(
          name + " must have the shape of logProbs " + shape + ", got " + array.getShape());
    }
    requireType(name, array, type);
  }

  private static void requireType(String name, NDArray array, DataType type) {
    if (array.getDataType() != type) {
      throw new IllegalArgumentException(
          name + " must have the data type of logProbs (" + type + "), got " + array.getDataType());
    }
  }

  /** @return the number of sequences, {@code B} */
  public long batchSize() {
    return logProbs.getShape().get(0);
  }

  /** @return the padded response length, {@code T} */
  public long responseLength() {
    return logProbs.getShape().get(1);
  }

  /** @return a builder with nothing set */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a {@link LossInput}: {@code set*} for the required arrays and the normalizer, {@code opt*} for the
   * reference log-probabilities and the entropies.
   */
  public static final class Builder {
    private NDArray logProbs;
    private NDArray oldLogProbs;
    private NDArray refLogProbs;
    private NDArray advantages;
    private NDArray mask;
    private NDArray entropies;
    private double normalizer = Double.NaN;

    private Builder() {}

    /**
     * @param v {@code (B, T)} current log-probabilities (required)
     * @return this builder
     */
    public Builder setLogProbs(NDArray v) {
      logProbs = v;
      return this;
    }

    /**
     * @param v {@code (B, T)} sampling-time log-probabilities (required)
     * @return this builder
     */
    public Builder setOldLogProbs(NDArray v) {
      oldLogProbs = v;
      return this;
    }

    /**
     * @param v {@code (B)} or {@code (B, T)} advantages (required)
     * @return this builder
     */
    public Builder setAdvantages(NDArray v) {
      advantages = v;
      return this;
    }

    /**
     * @param v {@code (B, T)} response mask of 0 and 1 (required)
     * @return this builder
     */
    public Builder setMask(NDArray v) {
      mask = v;
      return this;
    }

    /**
     * @param v the whole minibatch's token count (token-mean) or sequence count (seq-mean-token-mean) (required)
     * @return this builder
     */
    public Builder setNormalizer(double v) {
      normalizer = v;
      return this;
    }

    /**
     * @param v {@code (B, T)} reference log-probabilities (needed when the KL coefficient is above 0)
     * @return this builder
     */
    public Builder optRefLogProbs(NDArray v) {
      refLogProbs = v;
      return this;
    }

    /**
     * @param v {@code (B, T)} per-position entropies (needed when the entropy coefficient is above 0)
     * @return this builder
     */
    public Builder optEntropies(NDArray v) {
      entropies = v;
      return this;
    }

    /** @return the validated input */
    public LossInput build() {
      return new LossInput(logProbs, oldLogProbs, refLogProbs, advantages, mask, entropies, normalizer);
    }
  }
}
