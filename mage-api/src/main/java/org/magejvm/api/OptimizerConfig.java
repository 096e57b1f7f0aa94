package org.magejvm.api;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * Settings of a GiGPO/GRPO optimizer: how advantages are estimated and how the policy loss is formed. Defaults
 * follow the reference (see {@code docs/configuration.md}). The step that applies the gradient (learning rate,
 * weight decay, gradient clip) and the batching of the update are the trainer's settings, not this record's.
 *
 * @param normalization how group values become advantages
 * @param stepWeight omega, the weight of the step-level term
 * @param grouping opponent-stationary groups (MAGE) or mixed groups (ablation)
 * @param anchorScope global or per-episode anchors
 * @param epsilon added to the standard deviation in {@link NormalizationMode#MEAN_STD_NORM}
 * @param clipRatioLow PPO lower clip, {@code 1 - clipRatioLow}
 * @param clipRatioHigh PPO upper clip, {@code 1 + clipRatioHigh}
 * @param dualClip the dual-clip constant c for negative advantages
 * @param entropyCoefficient the entropy bonus weight
 * @param klCoefficient the k3 KL weight against the reference policy, 0 to disable
 * @param lossAggregation how the policy loss aggregates tokens
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record OptimizerConfig(
    NormalizationMode normalization,
    double stepWeight,
    Grouping grouping,
    AnchorScope anchorScope,
    double epsilon,
    double clipRatioLow,
    double clipRatioHigh,
    double dualClip,
    double entropyCoefficient,
    double klCoefficient,
    LossAggregation lossAggregation) {

  /**
   * Validates.
   *
   * @param normalization normalization mode
   * @param stepWeight omega
   * @param grouping grouping
   * @param anchorScope anchor scope
   * @param epsilon epsilon
   * @param clipRatioLow lower clip
   * @param clipRatioHigh upper clip
   * @param dualClip dual clip
   * @param entropyCoefficient entropy weight
   * @param klCoefficient KL weight
   * @param lossAggregation loss aggregation
   */
  public OptimizerConfig {
    Objects.requireNonNull(normalization, "normalization");
    Objects.requireNonNull(grouping, "grouping");
    Objects.requireNonNull(anchorScope, "anchorScope");
    Objects.requireNonNull(lossAggregation, "lossAggregation");
    requireNonNegative("stepWeight", stepWeight);
    requireNonNegative("epsilon", epsilon);
    requireNonNegative("clipRatioLow", clipRatioLow);
    requireNonNegative("clipRatioHigh", clipRatioHigh);
    requireNonNegative("entropyCoefficient", entropyCoefficient);
    requireNonNegative("klCoefficient", klCoefficient);
    if (!(dualClip > 1)) {
      throw new IllegalArgumentException("dualClip must be > 1, got " + dualClip);
    }
    if (clipRatioLow >= 1) {
      throw new IllegalArgumentException("clipRatioLow must be < 1, got " + clipRatioLow);
    }
  }

  private static void requireNonNegative(String name, double v) {
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(name + " must be finite and >= 0, got " + v);
    }
  }

  /** @return the reference defaults */
  public static OptimizerConfig defaults() {
    return builder().build();
  }

  /** @return a builder preset with the reference defaults */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a builder preset with this config's values */
  public Builder toBuilder() {
    return new Builder()
        .optNormalization(normalization)
        .optStepWeight(stepWeight)
        .optGrouping(grouping)
        .optAnchorScope(anchorScope)
        .optEpsilon(epsilon)
        .optClipRatioLow(clipRatioLow)
        .optClipRatioHigh(clipRatioHigh)
        .optDualClip(dualClip)
        .optEntropyCoefficient(entropyCoefficient)
        .optKlCoefficient(klCoefficient)
        .optLossAggregation(lossAggregation);
  }

  /** Builds an {@link OptimizerConfig}; every value defaults to the reference's. */
  public static final class Builder {
    private NormalizationMode normalization = NormalizationMode.MEAN_NORM;
    private double stepWeight = 1.0;
    private Grouping grouping = Grouping.OPPONENT_STATIONARY;
    private AnchorScope anchorScope = AnchorScope.GLOBAL;
    private double epsilon = 1e-6;
    private double clipRatioLow = 0.2;
    private double clipRatioHigh = 0.2;
    private double dualClip = 3.0;
    private double entropyCoefficient = 0.001;
    private double klCoefficient = 0.1;
    private LossAggregation lossAggregation = LossAggregation.TOKEN_MEAN;

    private Builder() {}

    /**
     * @param v normalization mode (default mean_norm)
     * @return this builder
     */
    public Builder optNormalization(NormalizationMode v) {
      normalization = v;
      return this;
    }

    /**
     * @param v omega (default 1.0)
     * @return this builder
     */
    public Builder optStepWeight(double v) {
      stepWeight = v;
      return this;
    }

    /**
     * @param v grouping (default opponent-stationary)
     * @return this builder
     */
    public Builder optGrouping(Grouping v) {
      grouping = v;
      return this;
    }

    /**
     * @param v anchor scope (default global)
     * @return this builder
     */
    public Builder optAnchorScope(AnchorScope v) {
      anchorScope = v;
      return this;
    }

    /**
     * @param v epsilon (default 1e-6)
     * @return this builder
     */
    public Builder optEpsilon(double v) {
      epsilon = v;
      return this;
    }

    /**
     * @param v lower clip ratio (default 0.2)
     * @return this builder
     */
    public Builder optClipRatioLow(double v) {
      clipRatioLow = v;
      return this;
    }

    /**
     * @param v upper clip ratio (default 0.2)
     * @return this builder
     */
    public Builder optClipRatioHigh(double v) {
      clipRatioHigh = v;
      return this;
    }

    /**
     * @param v dual-clip constant (default 3.0)
     * @return this builder
     */
    public Builder optDualClip(double v) {
      dualClip = v;
      return this;
    }

    /**
     * @param v entropy bonus weight (default 0.001)
     * @return this builder
     */
    public Builder optEntropyCoefficient(double v) {
      entropyCoefficient = v;
      return this;
    }

    /**
     * @param v KL weight (default 0.1; 0 disables)
     * @return this builder
     */
    public Builder optKlCoefficient(double v) {
      klCoefficient = v;
      return this;
    }

    /**
     * @param v how the policy loss aggregates tokens (default token-mean)
     * @return this builder
     */
    public Builder optLossAggregation(LossAggregation v) {
      lossAggregation = v;
      return this;
    }

    /** @return the validated config */
    public OptimizerConfig build() {
      return new OptimizerConfig(normalization, stepWeight, grouping, anchorScope, epsilon, clipRatioLow,
          clipRatioHigh, dualClip, entropyCoefficient, klCoefficient, lossAggregation);
    }
  }
}
