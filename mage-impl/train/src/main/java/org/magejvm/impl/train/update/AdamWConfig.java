package org.magejvm.impl.train.update;

import org.magejvm.api.annotation.Api;
import org.magejvm.api.ConfigException;

/**
 * Settings of the {@link AdamW} optimizer. The defaults are the reference trainer's: learning rate 1e-6 held
 * constant, betas (0.9, 0.999), epsilon 1e-8, decoupled weight decay 0.01 and a global gradient-norm clip of 1.0.
 *
 * @param learningRate the peak learning rate, in (0, 1]
 * @param beta1 the decay of the first-moment average, in {@code [0, 1)}
 * @param beta2 the decay of the second-moment average, in {@code [0, 1)}
 * @param eps added to the root of the bias-corrected second moment, finite and {@code > 0}
 * @param weightDecay the decoupled weight decay: each step multiplies every parameter by {@code 1 - lr * wd}
 *     before the Adam update; finite and {@code >= 0}
 * @param gradientClip the largest global L2 norm of the gradients; a larger norm scales every gradient by
 *     {@code clip / (norm + 1e-6)}. {@code 0} disables clipping
 * @param warmupSteps the number of applied steps over which the learning rate rises linearly to its peak (step
 *     {@code t}, counted from 1, uses {@code lr * min(1, t / warmupSteps)}); {@code 0} means the peak from the first
 *     step
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record AdamWConfig(
    double learningRate,
    double beta1,
    double beta2,
    double eps,
    double weightDecay,
    double gradientClip,
    int warmupSteps) {

  /** The default learning rate, the reference's. */
  public static final double DEFAULT_LEARNING_RATE = 1e-6;
  /** The default first-moment decay. */
  public static final double DEFAULT_BETA1 = 0.9;
  /** The default second-moment decay. */
  public static final double DEFAULT_BETA2 = 0.999;
  /** The default epsilon (PyTorch's). */
  public static final double DEFAULT_EPS = 1e-8;
  /** The default decoupled weight decay, the reference's. */
  public static final double DEFAULT_WEIGHT_DECAY = 0.01;
  /** The default global gradient-norm clip, the reference's. */
  public static final double DEFAULT_GRADIENT_CLIP = 1.0;

  /** The longest warm-up a config may ask for (as many steps as the most iterations). */
  public static final int MAX_WARMUP_STEPS = 1_000_000;

  /**
   * Validates, once for every path a setting comes by (a builder here, a {@code TrainingConfig}'s {@code adamw}
   * section, a config file): a value out of range is a {@link ConfigException} naming its config key.
   *
   * @param learningRate learning rate, in (0, 1]
   * @param beta1 first-moment decay, in [0, 1)
   * @param beta2 second-moment decay, in [0, 1)
   * @param eps epsilon, in (0, 1]
   * @param weightDecay weight decay, in [0, 1]
   * @param gradientClip gradient-norm clip, in [0, 1e9] (0: off)
   * @param warmupSteps warm-up length, in [0, {@value #MAX_WARMUP_STEPS}]
   * @throws ConfigException naming the key ({@code adamw.learning_rate}, ...) of the value that is out of range
   */
  public AdamWConfig {
    if (!(learningRate > 0 && learningRate <= 1)) {
      throw new ConfigException("adamw.learning_rate", "adamw.learning_rate must be in (0, 1], got " + learningRate);
    }
    if (!(beta1 >= 0 && beta1 < 1)) {
      throw new ConfigException("adamw.beta1", "adamw.beta1 must be in [0, 1), got " + beta1);
    }
    if (!(beta2 >= 0 && beta2 < 1)) {
      throw new ConfigException("adamw.beta2", "adamw.beta2 must be in [0, 1), got " + beta2);
    }
    if (!(eps > 0 && eps <= 1)) {
      throw new ConfigException("adamw.eps", "adamw.eps must be in (0, 1], got " + eps);
    }
    ConfigException.requireInRange("adamw.weight_decay", weightDecay, 0, 1);
    ConfigException.requireInRange("adamw.gradient_clip", gradientClip, 0, 1e9);
    ConfigException.requireInRange("adamw.warmup_steps", warmupSteps, 0, MAX_WARMUP_STEPS);
  }

  /** @return the reference defaults */
  public static AdamWConfig defaults() {
    return builder().build();
  }

  /** @return a builder preset with the defaults */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a builder preset with this config's values */
  public Builder toBuilder() {
    return new Builder()
        .optLearningRate(learningRate)
        .optBeta1(beta1)
        .optBeta2(beta2)
        .optEps(eps)
        .optWeightDecay(weightDecay)
        .optGradientClip(gradientClip)
        .optWarmupSteps(warmupSteps);
  }

  /** @return whether {@link #gradientClip()} limits the gradient norm (it is positive) */
  public boolean clipsGradients() {
    return gradientClip > 0;
  }

  /**
   * The scheduled learning rate of an applied step.
   *
   * @param step the step's number, counted from 1
   * @return {@code learningRate * min(1, step / warmupSteps)}, or {@code learningRate} without warm-up
   * @throws IllegalArgumentException when {@code step < 1}
   */
  public double learningRateAt(long step) {
    if (step < 1) {
      throw new IllegalArgumentException("steps are counted from 1, got " + step);
    }
    if (warmupSteps == 0 || step >= warmupSteps) {
      return learningRate;
    }
    return learningRate * ((double) step / warmupSteps);
  }

  /** Builds an {@link AdamWConfig}; every value has a default. */
  public static final class Builder {
    private double learningRate = DEFAULT_LEARNING_RATE;
    private double beta1 = DEFAULT_BETA1;
    private double beta2 = DEFAULT_BETA2;
    private double eps = DEFAULT_EPS;
    private double weightDecay = DEFAULT_WEIGHT_DECAY;
    private double gradientClip = DEFAULT_GRADIENT_CLIP;
    private int warmupSteps;

    private Builder() {}

    /**
     * @param v the peak learning rate (default 1e-6)
     * @return this builder
     */
    public Builder optLearningRate(double v) {
      learningRate = v;
      return this;
    }

    /**
     * @param v the first-moment decay (default 0.9)
     * @return this builder
     */
    public Builder optBeta1(double v) {
      beta1 = v;
      return this;
    }

    /**
     * @param v the second-moment decay (default 0.999)
     * @return this builder
     */
    public Builder optBeta2(double v) {
      beta2 = v;
      return this;
    }

    /**
     * @param v epsilon (default 1e-8)
     * @return this builder
     */
    public Builder optEps(double v) {
      eps = v;
      return this;
    }

    /**
     * @param v the decoupled weight decay (default 0.01)
     * @return this builder
     */
    public Builder optWeightDecay(double v) {
      weightDecay = v;
      return this;
    }

    /**
     * @param v the global gradient-norm clip (default 1.0; 0 or +inf disables it)
     * @return this builder
     */
    public Builder optGradientClip(double v) {
      gradientClip = v;
      return this;
    }

    /**
     * @param v the number of linear warm-up steps (default 0)
     * @return this builder
     */
    public Builder optWarmupSteps(int v) {
      warmupSteps = v;
      return this;
    }

    /**
     * @return the validated config
     * @throws IllegalArgumentException naming the value that is out of range
     */
    public AdamWConfig build() {
      return new AdamWConfig(learningRate, beta1, beta2, eps, weightDecay, gradientClip, warmupSteps);
    }
  }
}
