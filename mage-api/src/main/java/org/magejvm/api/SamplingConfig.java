package org.magejvm.api;

import java.util.OptionalLong;
import org.magejvm.api.annotation.Api;

/**
 * How a policy samples its response. Immutable; build with {@link #builder()} or take a preset.
 *
 * <p>Temperature 0 means greedy decoding. {@code topK <= 0} and {@code topP >= 1} switch those filters off.
 *
 * @param temperature the softmax temperature, 0 for greedy
 * @param topP nucleus sampling: keep the smallest set of tokens whose probability reaches this mass
 * @param topK keep only the k most likely tokens; 0 or less disables the filter
 * @param maxNewTokens the most tokens generated per response
 * @param minNewTokens stop tokens are suppressed until this many tokens have been generated
 * @param seed the sampling seed; empty to draw from the policy's own generator
 */
@Api(status = Api.Status.STABLE)
public record SamplingConfig(
    double temperature, double topP, int topK, int maxNewTokens, int minNewTokens, OptionalLong seed) {

  /**
   * Validates the values.
   *
   * @param temperature the temperature
   * @param topP the nucleus mass
   * @param topK the top-k cutoff
   * @param maxNewTokens the token limit
   * @param minNewTokens the minimum number of tokens
   * @param seed the seed
   */
  public SamplingConfig {
    if (!(temperature >= 0) || Double.isInfinite(temperature)) {
      throw new IllegalArgumentException("temperature must be finite and >= 0, got " + temperature);
    }
    if (!(topP > 0 && topP <= 1)) {
      throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
    }
    if (maxNewTokens < 1) {
      throw new IllegalArgumentException("maxNewTokens must be >= 1, got " + maxNewTokens);
    }
    if (minNewTokens < 0 || minNewTokens > maxNewTokens) {
      throw new IllegalArgumentException(
          "minNewTokens must be in [0, maxNewTokens=" + maxNewTokens + "], got " + minNewTokens);
    }
    seed = seed == null ? OptionalLong.empty() : seed;
  }

  /** @return whether decoding is greedy (temperature 0) */
  public boolean greedy() {
    return temperature == 0;
  }

  /**
   * The reference's training sampling: temperature 1, no top-p or top-k.
   *
   * @param maxNewTokens the token limit
   * @return the preset
   */
  public static SamplingConfig training(int maxNewTokens) {
    return builder().optMaxNewTokens(maxNewTokens).build();
  }

  /**
   * The reference's evaluation sampling: temperature 0.7, top-p 0.8, top-k 20, at least 5 tokens.
   *
   * @param maxNewTokens the token limit
   * @return the preset
   */
  public static SamplingConfig evaluation(int maxNewTokens) {
    return builder()
        .optTemperature(0.7)
        .optTopP(0.8)
        .optTopK(20)
        .optMinNewTokens(Math.min(5, maxNewTokens))
        .optMaxNewTokens(maxNewTokens)
        .build();
  }

  /**
   * @param s the new seed
   * @return a copy with that seed
   */
  public SamplingConfig withSeed(long s) {
    return new SamplingConfig(temperature, topP, topK, maxNewTokens, minNewTokens, OptionalLong.of(s));
  }

  /** @return a builder starting from temperature 1, top-p 1, no top-k, 256 new tokens, no seed */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link SamplingConfig}; every value has a default. */
  public static final class Builder {
    private double temperature = 1.0;
    private double topP = 1.0;
    private int topK = 0;
    private int maxNewTokens = 256;
    private int minNewTokens = 0;
    private OptionalLong seed = OptionalLong.empty();

    private Builder() {}

    /**
     * @param v temperature, 0 for greedy
     * @return this builder
     */
    public Builder optTemperature(double v) {
      temperature = v;
      return this;
    }

    /**
     * @param v nucleus mass in (0, 1]
     * @return this builder
     */
    public Builder optTopP(double v) {
      topP = v;
      return this;
    }

    /**
     * @param v top-k cutoff, 0 to disable
     * @return this builder
     */
    public Builder optTopK(int v) {
      topK = v;
      return this;
    }

    /**
     * @param v token limit
     * @return this builder
     */
    public Builder optMaxNewTokens(int v) {
      maxNewTokens = v;
      return this;
    }

    /**
     * @param v minimum tokens before a stop token may end the response
     * @return this builder
     */
    public Builder optMinNewTokens(int v) {
      minNewTokens = v;
      return this;
    }

    /**
     * @param v the sampling seed
     * @return this builder
     */
    public Builder optSeed(long v) {
      seed = OptionalLong.of(v);
      return this;
    }

    /** @return the validated config */
    public SamplingConfig build() {
      return new SamplingConfig(temperature, topP, topK, maxNewTokens, minNewTokens, seed);
    }
  }
}
