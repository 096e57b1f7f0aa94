package org.magejvm.api;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * Settings of a GiGPO/GRPO optimizer. Defaults follow the reference (see {@code docs/configuration.md}).
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
 * @param learningRate the AdamW learning rate
 * @param weightDecay the AdamW weight decay
 * @param gradientClip the global gradient-norm clip
 * @param miniBatchTurns the number of turns per optimizer step
 * @param epochs the number of passes over a batch
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
    double learningRate,
    double weightDecay,
    double gradientClip,
    int miniBatchTurns,
    int epochs,
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
   * @param learningRate learning rate
   * @param weightDecay weight decay
   * @param gradientClip gradient clip
   * @param miniBatchTurns mini-batch size
   * @param epochs epochs
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
    requireNonNegative("learningRate", learningRate);
    requireNonNegative("weightDecay", weightDecay);
    requireNonNegative("gradientClip", gradientClip);
    if (!(dualClip > 1)) {
      throw new IllegalArgumentException("dualClip must be > 1, got " + dualClip);
    }
    if (clipRatioLow >= 1) {
      throw new IllegalArgumentException("clipRatioLow must be < 1, got " + clipRatioLow);
    }
    if (miniBatchTurns < 1 || epochs < 1) {
      throw new IllegalArgumentException(
          "miniBatchTurns and epochs must be >= 1, got " + miniBatchTurns + " and " + epochs);
    }
  }

  /**
   * A config with {@link LossAggregation#TOKEN_MEAN} (the constructor before the aggregation became a setting).
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
   * @param learningRate learning rate
   * @param weightDecay weight decay
   * @param gradientClip gradient clip
   * @param miniBatchTurns mini-batch size
   * @param epochs epochs
   */
  public OptimizerConfig(NormalizationMode normalization, double stepWeight, Grouping grouping,
      AnchorScope anchorScope, double epsilon, double clipRatioLow, double clipRatioHigh, double dualClip,
      double entropyCoefficient, double klCoefficient, double learningRate, double weightDecay, double gradientClip,
      int miniBatchTurns, int epochs) {
    this(normalization, stepWeight, grouping, anchorScope, epsilon, clipRatioLow, clipRatioHigh, dualClip,
        entropyCoefficient, klCoefficient, learningRate, weightDecay, gradientClip, miniBatchTurns, epochs,
        LossAggregation.TOKEN_MEAN);
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
        .optLearningRate(learningRate)
        .optWeightDecay(weightDecay)
        .optGradientClip(gradientClip)
        .optMiniBatchTurns(miniBatchTurns)
        .optEpochs(epochs)
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
    private double learningRate = 1e-6;
    private double weightDecay = 0.01;
    private double gradientClip = 1.0;
    private int miniBatchTurns = 64;
    private int epochs = 1;
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
     * @param v learning rate (default 1e-6)
     * @return this builder
     */
    public Builder optLearningRate(double v) {
      learningRate = v;
      return this;
    }

    /**
     * @param v weight decay (default 0.01)
     * @return this builder
     */
    public Builder optWeightDecay(double v) {
      weightDecay = v;
      return this;
    }

    /**
     * @param v gradient-norm clip (default 1.0)
     * @return this builder
     */
    public Builder optGradientClip(double v) {
      gradientClip = v;
      return this;
    }

    /**
     * @param v turns per optimizer step (default 64)
     * @return this builder
     */
    public Builder optMiniBatchTurns(int v) {
      miniBatchTurns = v;
      return this;
    }

    /**
     * @param v passes over each batch (default 1)
     * @return this builder
     */
    public Builder optEpochs(int v) {
      epochs = v;
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
          clipRatioHigh, dualClip, entropyCoefficient, klCoefficient, learningRate, weightDecay, gradientClip,
          miniBatchTurns, epochs, lossAggregation);
    }
  }
}
