package org.magejvm.impl.eval;

import com.google.common.collect.ImmutableMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.magejvm.api.ContextMode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.PromptStyle;

/**
 * What an {@link Evaluator} plays: M independent meta-episodes (each its own task seed, group size 1) against one
 * opponent from one seat. Immutable; build with {@link #builder()}. Empty optional values fall back to the
 * environment provider's evaluation opponent, evaluation seat, episodes per meta-episode, turn limit and
 * response-token limit.
 *
 * @param environmentId the environment provider id
 * @param environmentOptions options for {@link EnvironmentProvider#create(Map)}
 * @param metaEpisodes M, the number of meta-episodes
 * @param episodes N, episodes per meta-episode; empty for the provider's default
 * @param opponent the opponent id; empty for the provider's evaluation opponent (ignored by single-player games)
 * @param seat the agent's seat; empty for the provider's evaluation seat
 * @param contextMode what play prompts show about earlier episodes
 * @param promptStyle verbose or compact prompts
 * @param sampling how the policy samples; empty for the reference's evaluation sampling (T 0.7, top-p 0.8, top-k
 *     20) at the provider's response-token limit
 * @param maxTurns the play-turn limit; empty for the provider's default
 * @param earlyStop whether a meta-episode stops after its first win
 * @param seed the base seed of the task seeds
 */
public record EvaluationConfig(
    String environmentId,
    Map<String, String> environmentOptions,
    int metaEpisodes,
    OptionalInt episodes,
    Optional<String> opponent,
    Optional<Seat> seat,
    ContextMode contextMode,
    PromptStyle promptStyle,
    Optional<SamplingConfig> sampling,
    OptionalInt maxTurns,
    boolean earlyStop,
    long seed) {

  /**
   * Validates and copies.
   *
   * @param environmentId environment id
   * @param environmentOptions environment options
   * @param metaEpisodes number of meta-episodes
   * @param episodes episodes per meta-episode
   * @param opponent opponent id
   * @param seat seat
   * @param contextMode context mode
   * @param promptStyle prompt style
   * @param sampling sampling
   * @param maxTurns turn limit
   * @param earlyStop early stop
   * @param seed base seed
   */
  public EvaluationConfig {
    if (environmentId == null || environmentId.isBlank()) {
      throw new IllegalArgumentException("environmentId must be set (setEnvironmentId)");
    }
    environmentOptions = ImmutableMap.copyOf(environmentOptions);
    if (metaEpisodes < 1) {
      throw new IllegalArgumentException("metaEpisodes must be >= 1, got " + metaEpisodes);
    }
    Objects.requireNonNull(episodes, "episodes");
    if (episodes.isPresent() && episodes.getAsInt() < 1) {
      throw new IllegalArgumentException("episodes must be >= 1, got " + episodes.getAsInt());
    }
    Objects.requireNonNull(opponent, "opponent");
    Objects.requireNonNull(seat, "seat");
    Objects.requireNonNull(contextMode, "contextMode");
    Objects.requireNonNull(promptStyle, "promptStyle");
    Objects.requireNonNull(sampling, "sampling");
    Objects.requireNonNull(maxTurns, "maxTurns");
    if (maxTurns.isPresent() && maxTurns.getAsInt() < 1) {
      throw new IllegalArgumentException("maxTurns must be >= 1, got " + maxTurns.getAsInt());
    }
  }

  /**
   * The rollout this evaluation runs, with the provider's defaults filled in.
   *
   * @param provider the environment's provider
   * @return M groups of one meta-episode, one fixed opponent, one seat, early stop as configured
   * @throws IllegalArgumentException if the game has opponents but no opponent is named and the provider has no
   *     evaluation opponent, or if the provider's id differs from {@link #environmentId()}
   */
  public RolloutConfig toRolloutConfig(EnvironmentProvider provider) {
    if (!provider.id().equals(environmentId)) {
      throw new IllegalArgumentException(
          "the evaluation is for environment '" + environmentId + "', not '" + provider.id() + "'");
    }
    EnvironmentDefaults d = provider.defaults();
    RolloutConfig.Builder b = RolloutConfig.builder()
        .setEnvironmentId(environmentId)
        .optEnvironmentOptions(environmentOptions)
        .optTasks(metaEpisodes)
        .optGroupSize(1)
        .optEpisodes(episodes.orElse(d.episodes()))
        .optMaxTurns(maxTurns.orElse(d.maxTurns()))
        .optContextMode(contextMode)
        .optEarlyStop(earlyStop)
        .optPromptStyle(promptStyle)
        .optSampling(sampling.orElseGet(() -> SamplingConfig.evaluation(d.maxResponseTokens())))
        .optSeed(seed)
        .optGroupPrefix("eval");
    if (provider.twoPlayer()) {
      String id = opponent.orElse(provider.evaluationOpponent());
      if (id == null || id.isEmpty()) {
        throw new IllegalArgumentException("environment '" + environmentId
            + "' names no evaluation opponent; choose one of " + provider.opponents().ids());
      }
      b.optFixedOpponent(id).optSeating(Seating.of(seat.orElse(provider.evaluationSeat())));
    } else if (opponent.isPresent()) {
      throw new IllegalArgumentException("environment '" + environmentId + "' is single-player, but opponent '"
          + opponent.get() + "' was requested");
    }
    return b.build();
  }

  /** @return a builder; only the environment id is required */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a builder preset with this config's values */
  public Builder toBuilder() {
    Builder b = new Builder()
        .setEnvironmentId(environmentId)
        .optEnvironmentOptions(environmentOptions)
        .optMetaEpisodes(metaEpisodes)
        .optContextMode(contextMode)
        .optPromptStyle(promptStyle)
        .optEarlyStop(earlyStop)
        .optSeed(seed);
    b.episodes = episodes;
    b.opponent = opponent;
    b.seat = seat;
    b.sampling = sampling;
    b.maxTurns = maxTurns;
    return b;
  }

  /** Builds an {@link EvaluationConfig}. */
  public static final class Builder {
    private String environmentId;
    private final Map<String, String> environmentOptions = new LinkedHashMap<>();
    private int metaEpisodes = 128;
    private OptionalInt episodes = OptionalInt.empty();
    private Optional<String> opponent = Optional.empty();
    private Optional<Seat> seat = Optional.empty();
    private ContextMode contextMode = ContextMode.REFLECTION_ONLY;
    private PromptStyle promptStyle = PromptStyle.VERBOSE;
    private Optional<SamplingConfig> sampling = Optional.empty();
    private OptionalInt maxTurns = OptionalInt.empty();
    private boolean earlyStop = true;
    private long seed;

    private Builder() {}

    /**
     * @param v the environment id (required)
     * @return this builder
     */
    public Builder setEnvironmentId(String v) {
      environmentId = v;
      return this;
    }

    /**
     * @param v environment options, replacing earlier ones (default none)
     * @return this builder
     */
    public Builder optEnvironmentOptions(Map<String, String> v) {
      environmentOptions.clear();
      environmentOptions.putAll(v);
      return this;
    }

    /**
     * @param v M, the number of meta-episodes (default 128, as the reference validates)
     * @return this builder
     */
    public Builder optMetaEpisodes(int v) {
      metaEpisodes = v;
      return this;
    }

    /**
     * @param v N, episodes per meta-episode (default: the provider's)
     * @return this builder
     */
    public Builder optEpisodes(int v) {
      episodes = OptionalInt.of(v);
      return this;
    }

    /**
     * @param v the opponent id (default: the provider's evaluation opponent)
     * @return this builder
     */
    public Builder optOpponent(String v) {
      opponent = Optional.of(v);
      return this;
    }

    /**
     * @param v the agent's seat (default: the provider's evaluation seat)
     * @return this builder
     */
    public Builder optSeat(Seat v) {
      seat = Optional.of(v);
      return this;
    }

    /**
     * @param v the context mode (default reflection only)
     * @return this builder
     */
    public Builder optContextMode(ContextMode v) {
      contextMode = v;
      return this;
    }

    /**
     * @param v the prompt style (default verbose)
     * @return this builder
     */
    public Builder optPromptStyle(PromptStyle v) {
      promptStyle = v;
      return this;
    }

    /**
     * @param v the sampling (default: the reference's evaluation sampling)
     * @return this builder
     */
    public Builder optSampling(SamplingConfig v) {
      sampling = Optional.of(v);
      return this;
    }

    /**
     * @param v the play-turn limit (default: the provider's)
     * @return this builder
     */
    public Builder optMaxTurns(int v) {
      maxTurns = OptionalInt.of(v);
      return this;
    }

    /**
     * @param v stop after the first win (default true)
     * @return this builder
     */
    public Builder optEarlyStop(boolean v) {
      earlyStop = v;
      return this;
    }

    /**
     * @param v the base seed (default 0)
     * @return this builder
     */
    public Builder optSeed(long v) {
      seed = v;
      return this;
    }

    /** @return the validated config */
    public EvaluationConfig build() {
      return new EvaluationConfig(environmentId, environmentOptions, metaEpisodes, episodes, opponent, seat,
          contextMode, promptStyle, sampling, maxTurns, earlyStop, seed);
    }
  }
}
