package org.magejvm.impl.eval;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;

/**
 * What an {@link Evaluator} plays: M independent meta-episodes (each its own task seed, group size 1) against one
 * opponent from one seat. Immutable; build with {@link #builder()}.
 *
 * <p>The rollout settings an evaluation shares with training (environment and its options, episodes, turn limit,
 * context mode, prompt style, sampling, early stop, history window, seed) live in the wrapped {@link RolloutConfig},
 * whose {@code tasks} is M. The evaluation adds the opponent and the seat, and {@link
 * #toRolloutConfig(EnvironmentProvider)} fills what is left empty from the provider: its evaluation opponent and
 * seat, episodes per meta-episode, turn limit, and the reference's evaluation sampling (temperature 0.7, top-p 0.8,
 * top-k 20) at its response-token limit.
 *
 * @param rollout the rollout settings: group size 1, no fixed opponent and first-seat seating (the evaluation sets
 *     those from {@code opponent} and {@code seat}); {@code tasks} is the number of meta-episodes
 * @param opponent the opponent id; empty for the provider's evaluation opponent (ignored by single-player games)
 * @param seat the agent's seat; empty for the provider's evaluation seat
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record EvaluationConfig(RolloutConfig rollout, Optional<String> opponent, Optional<Seat> seat) {

  /** Meta-episodes evaluated unless the builder says otherwise, as the reference validates. */
  public static final int DEFAULT_META_EPISODES = 128;

  /** The group-id prefix of evaluation meta-episodes. */
  public static final String GROUP_PREFIX = "eval";

  /**
   * Validates.
   *
   * @param rollout rollout settings
   * @param opponent opponent id
   * @param seat seat
   * @throws IllegalArgumentException if the rollout groups meta-episodes, names a fixed opponent or seats the agent
   *     itself: an evaluation plays independent meta-episodes and takes its opponent and seat from {@code
   *     opponent} and {@code seat}
   */
  public EvaluationConfig {
    Objects.requireNonNull(rollout, "rollout");
    Objects.requireNonNull(opponent, "opponent");
    Objects.requireNonNull(seat, "seat");
    if (rollout.groupSize() != 1) {
      throw new IllegalArgumentException("an evaluation plays independent meta-episodes (group size 1), but the"
          + " rollout has group size " + rollout.groupSize());
    }
    if (rollout.fixedOpponent().isPresent()) {
      throw new IllegalArgumentException("name the evaluation opponent with optOpponent, not the rollout's fixed"
          + " opponent ('" + rollout.fixedOpponent().get() + "')");
    }
    if (!rollout.seating().equals(Seating.first())) {
      throw new IllegalArgumentException("choose the evaluation seat with optSeat, not the rollout's seating ("
          + rollout.seating() + ")");
    }
  }

  /** @return the environment provider id */
  public String environmentId() {
    return rollout.environmentId();
  }

  /** @return M, the number of meta-episodes */
  public int metaEpisodes() {
    return rollout.tasks();
  }

  /**
   * The rollout this evaluation runs, with the provider's defaults filled in.
   *
   * @param provider the environment's provider
   * @return M groups of one meta-episode, one fixed opponent, one seat
   * @throws IllegalArgumentException if the game has opponents but no opponent is named and the provider has no
   *     evaluation opponent, if an opponent is named for a single-player game, or if the provider's id differs from
   *     {@link #environmentId()}
   */
  public RolloutConfig toRolloutConfig(EnvironmentProvider provider) {
    String environmentId = environmentId();
    if (!provider.id().equals(environmentId)) {
      throw new IllegalArgumentException(
          "the evaluation is for environment '" + environmentId + "', not '" + provider.id() + "'");
    }
    EnvironmentDefaults d = provider.defaults();
    RolloutConfig.Builder b = rollout.toBuilder()
        .optEpisodes(rollout.episodes().orElse(d.episodes()))
        .optMaxTurns(rollout.maxTurns().orElse(d.maxTurns()))
        .optSampling(rollout.sampling().orElseGet(() -> SamplingConfig.evaluation(d.maxResponseTokens())))
        .optGroupPrefix(GROUP_PREFIX);
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
    return new Builder(RolloutConfig.builder().optTasks(DEFAULT_META_EPISODES).optGroupSize(1));
  }

  /** @return a builder preset with this config's values */
  public Builder toBuilder() {
    Builder b = new Builder(rollout.toBuilder());
    b.opponent = opponent;
    b.seat = seat;
    return b;
  }

  /**
   * Builds an {@link EvaluationConfig}: the environment, the number of meta-episodes, the opponent and the seat
   * here, every other rollout setting through {@link #rollout(Consumer)}.
   */
  public static final class Builder {
    private final RolloutConfig.Builder rollout;
    private Optional<String> opponent = Optional.empty();
    private Optional<Seat> seat = Optional.empty();

    private Builder(RolloutConfig.Builder rollout) {
      this.rollout = rollout;
    }

    /**
     * @param v the environment id (required)
     * @return this builder
     */
    public Builder setEnvironmentId(String v) {
      rollout.setEnvironmentId(v);
      return this;
    }

    /**
     * @param v M, the number of meta-episodes (default {@value EvaluationConfig#DEFAULT_META_EPISODES})
     * @return this builder
     * @throws IllegalArgumentException naming {@code metaEpisodes} when {@code v} is below 1
     */
    public Builder optMetaEpisodes(int v) {
      if (v < 1) {
        // checked here: the rollout's own check would name its key, tasks, which the caller never set
        throw new IllegalArgumentException("metaEpisodes must be >= 1, got " + v);
      }
      rollout.optTasks(v);
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
     * Sets the other rollout settings on the wrapped {@link RolloutConfig.Builder}, whose defaults apply otherwise:
     * for example {@code rollout(r -> r.optEpisodes(3).optContextMode(ContextMode.NONE).optSeed(7))}. Empty
     * episodes, turn limit and sampling fall back to the provider's (sampling to the evaluation sampling, not the
     * training one). Group size, fixed opponent and seating belong to the evaluation: setting them here fails at
     * {@link #build()}.
     *
     * @param settings changes to the rollout builder
     * @return this builder
     */
    public Builder rollout(Consumer<RolloutConfig.Builder> settings) {
      settings.accept(rollout);
      return this;
    }

    /** @return the validated config */
    public EvaluationConfig build() {
      return new EvaluationConfig(rollout.build(), opponent, seat);
    }
  }
}
