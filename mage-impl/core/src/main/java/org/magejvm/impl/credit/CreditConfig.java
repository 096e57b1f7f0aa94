package org.magejvm.impl.credit;

import org.magejvm.api.ConfigException;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.MetaReturn;
import org.magejvm.spi.EnvironmentDefaults;

/**
 * How {@link CreditAssigner} turns rewards into step returns and episode scores. Immutable; start from an
 * environment's reference settings with {@link #forEnvironment(EnvironmentDefaults)} and override what differs.
 *
 * @param metaReturn differential (MAGE), cumulative (LaMer) or single-episode (GiGPO) returns
 * @param gammaStep the discount between turns of an episode
 * @param gammaTraj the discount between episodes (unused by single-episode returns)
 * @param invalidPenalty subtracted from the episode score of every turn whose action (or reflection tag) was invalid
 * @param lengthPenalty the coefficient of the overlong-response penalty on the episode score (0 disables it)
 * @param maxResponseTokens {@code Lmax}: responses longer than {@code Lmax/2} tokens are penalised, fully at
 *     {@code Lmax}
 * @param episodeScore which episode score a play turn gets (default {@link EpisodeScore#ATTEMPT}, the reference's)
 */
@Api(status = Api.Status.STABLE)
public record CreditConfig(
    MetaReturn metaReturn,
    double gammaStep,
    double gammaTraj,
    double invalidPenalty,
    double lengthPenalty,
    int maxResponseTokens,
    EpisodeScore episodeScore) {

  /** The largest invalid-action or length penalty. */
  public static final double MAX_PENALTY = 1e6;
  /** The largest response-token limit. */
  public static final int MAX_RESPONSE_TOKENS = 1 << 20;

  /**
   * Validates, once for every path a setting comes by (this record's builder, a {@code TrainingConfig}'s {@code
   * credit} section, which is this record, a config file): a value out of range is a {@link ConfigException} naming
   * its config key.
   *
   * @param metaReturn the return kind
   * @param gammaStep step discount, in [0, 1]
   * @param gammaTraj episode discount, in [0, 1]
   * @param invalidPenalty invalid-action penalty, in [0, {@value #MAX_PENALTY}]
   * @param lengthPenalty length-penalty coefficient, in [0, {@value #MAX_PENALTY}]
   * @param maxResponseTokens response-token limit, in [1, {@value #MAX_RESPONSE_TOKENS}]
   * @param episodeScore the episode score
   * @throws ConfigException naming the key ({@code credit.gamma_traj}, ...) of a value that is missing or out of range
   */
  public CreditConfig {
    ConfigException.requireGiven("credit.meta_return", metaReturn);
    ConfigException.requireInRange("credit.gamma_step", gammaStep, 0, 1);
    ConfigException.requireInRange("credit.gamma_traj", gammaTraj, 0, 1);
    ConfigException.requireInRange("credit.invalid_penalty", invalidPenalty, 0, MAX_PENALTY);
    ConfigException.requireInRange("credit.length_penalty", lengthPenalty, 0, MAX_PENALTY);
    ConfigException.requireInRange("credit.max_response_tokens", maxResponseTokens, 1, MAX_RESPONSE_TOKENS);
    ConfigException.requireGiven("credit.episode_score", episodeScore);
  }

  /**
   * A config with the reference's episode score ({@link EpisodeScore#ATTEMPT}).
   *
   * @param metaReturn the return kind
   * @param gammaStep step discount
   * @param gammaTraj episode discount
   * @param invalidPenalty invalid-action penalty
   * @param lengthPenalty length-penalty coefficient
   * @param maxResponseTokens response-token limit
   */
  public CreditConfig(MetaReturn metaReturn, double gammaStep, double gammaTraj, double invalidPenalty,
      double lengthPenalty, int maxResponseTokens) {
    this(metaReturn, gammaStep, gammaTraj, invalidPenalty, lengthPenalty, maxResponseTokens, EpisodeScore.ATTEMPT);
  }

  /**
   * A builder preset with an environment's reference discounts and penalties and differential returns.
   *
   * @param defaults the environment's defaults
   * @return the builder
   */
  public static Builder forEnvironment(EnvironmentDefaults defaults) {
    return new Builder()
        .optGammaStep(defaults.stepGamma())
        .optGammaTraj(defaults.trajGamma())
        .optInvalidPenalty(defaults.invalidPenalty())
        .optLengthPenalty(defaults.lengthPenalty())
        .optMaxResponseTokens(defaults.maxResponseTokens());
  }

  /** @return a builder with the reference's Tic-Tac-Toe values (0.95, 0.6, 0.5, 2.0, 3072), differential */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a builder preset with this config's values */
  public Builder toBuilder() {
    return new Builder()
        .optMetaReturn(metaReturn)
        .optGammaStep(gammaStep)
        .optGammaTraj(gammaTraj)
        .optInvalidPenalty(invalidPenalty)
        .optLengthPenalty(lengthPenalty)
        .optMaxResponseTokens(maxResponseTokens)
        .optEpisodeScore(episodeScore);
  }

  /** Builds a {@link CreditConfig}; every value has a default. */
  public static final class Builder {
    private MetaReturn metaReturn = MetaReturn.DIFFERENTIAL;
    private double gammaStep = 0.95;
    private double gammaTraj = 0.6;
    private double invalidPenalty = 0.5;
    private double lengthPenalty = 2.0;
    private int maxResponseTokens = 3072;
    private EpisodeScore episodeScore = EpisodeScore.ATTEMPT;

    private Builder() {}

    /**
     * @param v the episode score of play turns (default {@link EpisodeScore#ATTEMPT}, the reference's)
     * @return this builder
     */
    public Builder optEpisodeScore(EpisodeScore v) {
      episodeScore = v;
      return this;
    }

    /**
     * @param v the return kind (default differential)
     * @return this builder
     */
    public Builder optMetaReturn(MetaReturn v) {
      metaReturn = v;
      return this;
    }

    /**
     * @param v the step discount (default 0.95)
     * @return this builder
     */
    public Builder optGammaStep(double v) {
      gammaStep = v;
      return this;
    }

    /**
     * @param v the episode discount (default 0.6)
     * @return this builder
     */
    public Builder optGammaTraj(double v) {
      gammaTraj = v;
      return this;
    }

    /**
     * @param v the invalid-action penalty (default 0.5)
     * @return this builder
     */
    public Builder optInvalidPenalty(double v) {
      invalidPenalty = v;
      return this;
    }

    /**
     * @param v the length-penalty coefficient (default 2.0; 0 disables)
     * @return this builder
     */
    public Builder optLengthPenalty(double v) {
      lengthPenalty = v;
      return this;
    }

    /**
     * @param v the response-token limit Lmax (default 3072)
     * @return this builder
     */
    public Builder optMaxResponseTokens(int v) {
      maxResponseTokens = v;
      return this;
    }

    /** @return the validated config */
    public CreditConfig build() {
      return new CreditConfig(metaReturn, gammaStep, gammaTraj, invalidPenalty, lengthPenalty, maxResponseTokens,
          episodeScore);
    }
  }
}
