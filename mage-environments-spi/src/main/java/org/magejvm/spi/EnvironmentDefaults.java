package org.magejvm.spi;

import java.util.ArrayList;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * The per-environment settings of the reference configuration; a training or evaluation config starts from these.
 * Build them with {@link #builder()}, which names every value:
 *
 * <pre>{@code
 * EnvironmentDefaults.builder()
 *     .setMaxTurns(6).setEpisodes(3)
 *     .setStepGamma(0.95).setTrajGamma(0.6)
 *     .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(1024)
 *     .build();
 * }</pre>
 *
 * @param maxTurns the most play turns per episode before truncation
 * @param episodes episodes per meta-episode
 * @param stepGamma the discount between turns of an episode
 * @param trajGamma the discount between episodes
 * @param invalidPenalty subtracted from the episode score of a turn whose action was invalid
 * @param lengthPenalty the coefficient of the overlong-response penalty on the episode score
 * @param maxResponseTokens the response-token limit the length penalty is measured against
 */
@Api(status = Api.Status.STABLE)
public record EnvironmentDefaults(
    int maxTurns,
    int episodes,
    double stepGamma,
    double trajGamma,
    double invalidPenalty,
    double lengthPenalty,
    int maxResponseTokens) {

  /**
   * Validates. Prefer {@link #builder()}, which names the values.
   *
   * @param maxTurns turn limit
   * @param episodes episodes per meta-episode
   * @param stepGamma step discount
   * @param trajGamma episode discount
   * @param invalidPenalty invalid-action penalty
   * @param lengthPenalty length-penalty coefficient
   * @param maxResponseTokens response-token limit
   */
  public EnvironmentDefaults {
    if (maxTurns < 1 || episodes < 1 || maxResponseTokens < 1) {
      throw new IllegalArgumentException("maxTurns, episodes and maxResponseTokens must be >= 1, got " + maxTurns
          + ", " + episodes + " and " + maxResponseTokens);
    }
    if (!(stepGamma >= 0 && stepGamma <= 1) || !(trajGamma >= 0 && trajGamma <= 1)) {
      throw new IllegalArgumentException("discounts must lie in [0, 1], got " + stepGamma + ", " + trajGamma);
    }
    if (!(invalidPenalty >= 0) || !(lengthPenalty >= 0)
        || Double.isInfinite(invalidPenalty) || Double.isInfinite(lengthPenalty)) {
      throw new IllegalArgumentException(
          "penalties must be finite and >= 0, got " + invalidPenalty + " and " + lengthPenalty);
    }
  }

  /** @return a builder; every value must be set */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a builder preset with these values, to change some of them */
  public Builder toBuilder() {
    return new Builder().setMaxTurns(maxTurns).setEpisodes(episodes).setStepGamma(stepGamma).setTrajGamma(trajGamma)
        .setInvalidPenalty(invalidPenalty).setLengthPenalty(lengthPenalty).setMaxResponseTokens(maxResponseTokens);
  }

  /** Builds {@link EnvironmentDefaults}; every value is required, since each game has its own reasons for them. */
  public static final class Builder {
    private Integer maxTurns;
    private Integer episodes;
    private Double stepGamma;
    private Double trajGamma;
    private Double invalidPenalty;
    private Double lengthPenalty;
    private Integer maxResponseTokens;

    private Builder() {}

    /**
     * @param v the most play turns per episode before truncation
     * @return this builder
     */
    public Builder setMaxTurns(int v) {
      maxTurns = v;
      return this;
    }

    /**
     * @param v episodes per meta-episode
     * @return this builder
     */
    public Builder setEpisodes(int v) {
      episodes = v;
      return this;
    }

    /**
     * @param v the discount between turns of an episode
     * @return this builder
     */
    public Builder setStepGamma(double v) {
      stepGamma = v;
      return this;
    }

    /**
     * @param v the discount between episodes
     * @return this builder
     */
    public Builder setTrajGamma(double v) {
      trajGamma = v;
      return this;
    }

    /**
     * @param v subtracted from the episode score of a turn whose action was invalid
     * @return this builder
     */
    public Builder setInvalidPenalty(double v) {
      invalidPenalty = v;
      return this;
    }

    /**
     * @param v the coefficient of the overlong-response penalty on the episode score
     * @return this builder
     */
    public Builder setLengthPenalty(double v) {
      lengthPenalty = v;
      return this;
    }

    /**
     * @param v the response-token limit the length penalty is measured against
     * @return this builder
     */
    public Builder setMaxResponseTokens(int v) {
      maxResponseTokens = v;
      return this;
    }

    /**
     * @return the validated defaults
     * @throws IllegalStateException naming every value that was not set
     * @throws IllegalArgumentException if a value is out of range
     */
    public EnvironmentDefaults build() {
      List<String> missing = new ArrayList<>();
      if (maxTurns == null) {
        missing.add("maxTurns");
      }
      if (episodes == null) {
        missing.add("episodes");
      }
      if (stepGamma == null) {
        missing.add("stepGamma");
      }
      if (trajGamma == null) {
        missing.add("trajGamma");
      }
      if (invalidPenalty == null) {
        missing.add("invalidPenalty");
      }
      if (lengthPenalty == null) {
        missing.add("lengthPenalty");
      }
      if (maxResponseTokens == null) {
        missing.add("maxResponseTokens");
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException("EnvironmentDefaults needs every value; not set: " + String.join(", ", missing));
      }
      return new EnvironmentDefaults(maxTurns, episodes, stepGamma, trajGamma, invalidPenalty, lengthPenalty,
          maxResponseTokens);
    }
  }
}
