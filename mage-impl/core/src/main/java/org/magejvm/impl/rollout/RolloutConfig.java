package org.magejvm.impl.rollout;

import com.google.common.collect.ImmutableMap;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.ContextMode;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.SamplingConfig;
import org.magejvm.spi.PromptStyle;

/**
 * What one call of {@link MetaEpisodeRunner#run} plays: {@code tasks x groupSize} meta-episodes of {@code episodes}
 * episodes each, against opponents drawn from a pool. Immutable; build with {@link #builder()}.
 *
 * <p>Empty optional values fall back to the environment provider's {@link org.magejvm.spi.EnvironmentDefaults} (turn
 * limit, episodes, response-token limit) and built-in opponent pool when the run starts.
 *
 * @param environmentId the id of the environment provider
 * @param environmentOptions options passed to {@link org.magejvm.spi.EnvironmentProvider#create(Map)}
 * @param tasks B, the number of episode groups (each with its own task seed)
 * @param groupSize G, the meta-episodes per group (same task seed, opponent and seat)
 * @param episodes N, the episodes per meta-episode; empty for the provider's default
 * @param maxTurns the play-turn limit per episode; empty for the provider's default
 * @param contextMode what play prompts show about earlier episodes, and whether reflections are written
 * @param earlyStop whether a meta-episode stops after its first won episode (the reference behaviour)
 * @param promptStyle verbose or compact prompts
 * @param historyLength how many of the current episode's latest steps a play prompt lists
 * @param playObservations how many of those steps (the latest) show the state after them
 * @param reflectObservations how many of the finished episode's latest steps a reflect prompt shows with their
 *     state ({@link Integer#MAX_VALUE}, the default, for all)
 * @param seating the agent's seat per group
 * @param opponentPool the pool to draw training opponents from; empty for the provider's pool
 * @param fixedOpponent the id of the one opponent every meta-episode faces (looked up in the pool, training or
 *     held out); empty to sample
 * @param opponentSampling draw an opponent per group (opponent-stationary), per meta-episode, or assign the groups
 *     by the pool's fixed quotas ({@link OpponentSampling#QUOTA})
 * @param sampling how the policy samples; empty for the reference's training sampling at the provider's
 *     response-token limit
 * @param seed the base seed every other seed is derived from (see {@link Seeds})
 * @param groupPrefix the prefix of group ids ({@code prefix + groupIndex}); keep it distinct when batches of several
 *     runs are trained together
 * @param stepTimeout the longest one call into the environment plugin (reset, restart, prompt rendering, step,
 *     close) may take before its meta-episode fails with a {@link StepTimeoutException}; empty (the default) for no
 *     limit. See {@link MetaEpisodeRunner} for what happens to a call that never returns.
 * @param generateTimeout the longest one batched {@link org.magejvm.api.LanguagePolicy#generate} call may take
 *     before the meta-episodes of its batch fail with a {@link GenerateTimeoutException}; empty (the default) for no
 *     limit. See {@link MetaEpisodeRunner} for what happens to the policy afterwards.
 * @param taskSeeds the task seed of each group, in group order, instead of the seeds derived from {@code seed}
 *     (empty, the default): an evaluation set chosen task by task, for example balanced over a hidden value
 * @param reflectionControl what later attempts are shown of the reflections written before them ({@link
 *     ReflectionControl#OWN}, the default; the others are evaluation controls)
 */
@Api(status = Api.Status.STABLE)
public record RolloutConfig(
    String environmentId,
    Map<String, String> environmentOptions,
    int tasks,
    int groupSize,
    OptionalInt episodes,
    OptionalInt maxTurns,
    ContextMode contextMode,
    boolean earlyStop,
    PromptStyle promptStyle,
    int historyLength,
    int playObservations,
    int reflectObservations,
    Seating seating,
    Optional<OpponentPool> opponentPool,
    Optional<String> fixedOpponent,
    OpponentSampling opponentSampling,
    Optional<SamplingConfig> sampling,
    long seed,
    String groupPrefix,
    Optional<Duration> stepTimeout,
    Optional<Duration> generateTimeout,
    List<Long> taskSeeds,
    ReflectionControl reflectionControl) {

  /**
   * Validates and copies.
   *
   * @param environmentId environment id
   * @param environmentOptions environment options
   * @param tasks number of groups
   * @param groupSize meta-episodes per group
   * @param episodes episodes per meta-episode
   * @param maxTurns turn limit
   * @param contextMode context mode
   * @param earlyStop early stop after a win
   * @param promptStyle prompt style
   * @param historyLength steps listed in play prompts
   * @param playObservations steps with observations in play prompts
   * @param reflectObservations steps with observations in reflect prompts
   * @param seating seating
   * @param opponentPool opponent pool
   * @param fixedOpponent fixed opponent id
   * @param opponentSampling opponent sampling
   * @param sampling sampling config
   * @param seed base seed
   * @param groupPrefix group-id prefix
   * @param stepTimeout the limit of one plugin call, empty for none
   * @param generateTimeout the limit of one policy call, empty for none
   * @param taskSeeds the groups' task seeds, empty to derive them from the seed
   * @param reflectionControl what later attempts are shown of earlier reflections
   * @throws IllegalArgumentException naming the value that is out of range, or when {@code taskSeeds} is neither
   *     empty nor one seed per group
   */
  public RolloutConfig {
    if (environmentId == null || environmentId.isBlank()) {
      throw new IllegalArgumentException("environmentId must be set (setEnvironmentId)");
    }
    environmentOptions = ImmutableMap.copyOf(environmentOptions);
    requireAtLeast("tasks", tasks, 1);
    requireAtLeast("groupSize", groupSize, 1);
    Objects.requireNonNull(episodes, "episodes");
    Objects.requireNonNull(maxTurns, "maxTurns");
    if (episodes.isPresent()) {
      requireAtLeast("episodes", episodes.getAsInt(), 1);
    }
    if (maxTurns.isPresent()) {
      requireAtLeast("maxTurns", maxTurns.getAsInt(), 1);
    }
    Objects.requireNonNull(contextMode, "contextMode");
    Objects.requireNonNull(promptStyle, "promptStyle");
    requireAtLeast("historyLength", historyLength, 0);
    requireAtLeast("playObservations", playObservations, 0);
    requireAtLeast("reflectObservations", reflectObservations, 0);
    Objects.requireNonNull(seating, "seating");
    Objects.requireNonNull(opponentPool, "opponentPool");
    Objects.requireNonNull(fixedOpponent, "fixedOpponent");
    if (fixedOpponent.isPresent() && fixedOpponent.get().isBlank()) {
      throw new IllegalArgumentException("fixedOpponent must not be blank");
    }
    Objects.requireNonNull(opponentSampling, "opponentSampling");
    Objects.requireNonNull(sampling, "sampling");
    Objects.requireNonNull(groupPrefix, "groupPrefix");
    Objects.requireNonNull(stepTimeout, "stepTimeout");
    if (stepTimeout.isPresent() && (stepTimeout.get().isNegative() || stepTimeout.get().isZero())) {
      throw new IllegalArgumentException("stepTimeout must be positive, got " + stepTimeout.get());
    }
    Objects.requireNonNull(generateTimeout, "generateTimeout");
    if (generateTimeout.isPresent() && (generateTimeout.get().isNegative() || generateTimeout.get().isZero())) {
      throw new IllegalArgumentException("generateTimeout must be positive, got " + generateTimeout.get());
    }
    taskSeeds = List.copyOf(taskSeeds);
    if (!taskSeeds.isEmpty() && taskSeeds.size() != tasks) {
      throw new IllegalArgumentException("taskSeeds holds " + taskSeeds.size() + " seeds, but there are " + tasks
          + " tasks; give one seed per task (group), or none to derive them from the seed");
    }
    Objects.requireNonNull(reflectionControl, "reflectionControl");
  }

  /**
   * The form before {@code taskSeeds} and {@code reflectionControl} were added: derived task seeds, own reflections.
   *
   * @param environmentId environment id
   * @param environmentOptions environment options
   * @param tasks number of groups
   * @param groupSize meta-episodes per group
   * @param episodes episodes per meta-episode
   * @param maxTurns turn limit
   * @param contextMode context mode
   * @param earlyStop early stop after a win
   * @param promptStyle prompt style
   * @param historyLength steps listed in play prompts
   * @param playObservations steps with observations in play prompts
   * @param reflectObservations steps with observations in reflect prompts
   * @param seating seating
   * @param opponentPool opponent pool
   * @param fixedOpponent fixed opponent id
   * @param opponentSampling opponent sampling
   * @param sampling sampling config
   * @param seed base seed
   * @param groupPrefix group-id prefix
   * @param stepTimeout the limit of one plugin call, empty for none
   * @param generateTimeout the limit of one policy call, empty for none
   * @deprecated use {@link #builder()} or the canonical constructor
   */
  @Deprecated
  public RolloutConfig(String environmentId, Map<String, String> environmentOptions, int tasks, int groupSize,
      OptionalInt episodes, OptionalInt maxTurns, ContextMode contextMode, boolean earlyStop,
      PromptStyle promptStyle, int historyLength, int playObservations, int reflectObservations, Seating seating,
      Optional<OpponentPool> opponentPool, Optional<String> fixedOpponent, OpponentSampling opponentSampling,
      Optional<SamplingConfig> sampling, long seed, String groupPrefix, Optional<Duration> stepTimeout,
      Optional<Duration> generateTimeout) {
    this(environmentId, environmentOptions, tasks, groupSize, episodes, maxTurns, contextMode, earlyStop,
        promptStyle, historyLength, playObservations, reflectObservations, seating, opponentPool, fixedOpponent,
        opponentSampling, sampling, seed, groupPrefix, stepTimeout, generateTimeout, List.of(), ReflectionControl.OWN);
  }

  /**
   * The form before {@code generateTimeout} was added: no generate timeout.
   *
   * @param environmentId environment id
   * @param environmentOptions environment options
   * @param tasks number of groups
   * @param groupSize meta-episodes per group
   * @param episodes episodes per meta-episode
   * @param maxTurns turn limit
   * @param contextMode context mode
   * @param earlyStop early stop after a win
   * @param promptStyle prompt style
   * @param historyLength steps listed in play prompts
   * @param playObservations steps with observations in play prompts
   * @param reflectObservations steps with observations in reflect prompts
   * @param seating seating
   * @param opponentPool opponent pool
   * @param fixedOpponent fixed opponent id
   * @param opponentSampling opponent sampling
   * @param sampling sampling config
   * @param seed base seed
   * @param groupPrefix group-id prefix
   * @param stepTimeout the limit of one plugin call, empty for none
   * @deprecated use {@link #builder()} or the canonical constructor
   */
  @Deprecated
  public RolloutConfig(String environmentId, Map<String, String> environmentOptions, int tasks, int groupSize,
      OptionalInt episodes, OptionalInt maxTurns, ContextMode contextMode, boolean earlyStop,
      PromptStyle promptStyle, int historyLength, int playObservations, int reflectObservations, Seating seating,
      Optional<OpponentPool> opponentPool, Optional<String> fixedOpponent, OpponentSampling opponentSampling,
      Optional<SamplingConfig> sampling, long seed, String groupPrefix, Optional<Duration> stepTimeout) {
    this(environmentId, environmentOptions, tasks, groupSize, episodes, maxTurns, contextMode, earlyStop,
        promptStyle, historyLength, playObservations, reflectObservations, seating, opponentPool, fixedOpponent,
        opponentSampling, sampling, seed, groupPrefix, stepTimeout, Optional.empty(), List.of(),
        ReflectionControl.OWN);
  }

  /**
   * The form before {@code stepTimeout} was added: no step timeout.
   *
   * @param environmentId environment id
   * @param environmentOptions environment options
   * @param tasks number of groups
   * @param groupSize meta-episodes per group
   * @param episodes episodes per meta-episode
   * @param maxTurns turn limit
   * @param contextMode context mode
   * @param earlyStop early stop after a win
   * @param promptStyle prompt style
   * @param historyLength steps listed in play prompts
   * @param playObservations steps with observations in play prompts
   * @param reflectObservations steps with observations in reflect prompts
   * @param seating seating
   * @param opponentPool opponent pool
   * @param fixedOpponent fixed opponent id
   * @param opponentSampling opponent sampling
   * @param sampling sampling config
   * @param seed base seed
   * @param groupPrefix group-id prefix
   * @deprecated use {@link #builder()} or the canonical constructor
   */
  @Deprecated
  public RolloutConfig(String environmentId, Map<String, String> environmentOptions, int tasks, int groupSize,
      OptionalInt episodes, OptionalInt maxTurns, ContextMode contextMode, boolean earlyStop,
      PromptStyle promptStyle, int historyLength, int playObservations, int reflectObservations, Seating seating,
      Optional<OpponentPool> opponentPool, Optional<String> fixedOpponent, OpponentSampling opponentSampling,
      Optional<SamplingConfig> sampling, long seed, String groupPrefix) {
    this(environmentId, environmentOptions, tasks, groupSize, episodes, maxTurns, contextMode, earlyStop,
        promptStyle, historyLength, playObservations, reflectObservations, seating, opponentPool, fixedOpponent,
        opponentSampling, sampling, seed, groupPrefix, Optional.empty(), Optional.empty(), List.of(),
        ReflectionControl.OWN);
  }

  private static void requireAtLeast(String name, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be >= " + min + ", got " + value);
    }
  }

  /** @return the number of meta-episodes, {@code tasks * groupSize} */
  public int metaEpisodes() {
    return tasks * groupSize;
  }

  /** @return a builder with the defaults listed on its methods */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a builder preset with this config's values */
  public Builder toBuilder() {
    Builder b = new Builder()
        .setEnvironmentId(environmentId)
        .optEnvironmentOptions(environmentOptions)
        .optTasks(tasks)
        .optGroupSize(groupSize)
        .optContextMode(contextMode)
        .optEarlyStop(earlyStop)
        .optPromptStyle(promptStyle)
        .optHistoryLength(historyLength)
        .optPlayObservations(playObservations)
        .optReflectObservations(reflectObservations)
        .optSeating(seating)
        .optOpponentSampling(opponentSampling)
        .optSeed(seed)
        .optGroupPrefix(groupPrefix);
    b.episodes = episodes;
    b.maxTurns = maxTurns;
    b.opponentPool = opponentPool;
    b.fixedOpponent = fixedOpponent;
    b.sampling = sampling;
    b.stepTimeout = stepTimeout;
    b.generateTimeout = generateTimeout;
    b.taskSeeds = taskSeeds;
    b.reflectionControl = reflectionControl;
    return b;
  }

  /** Builds a {@link RolloutConfig}; only the environment id is required. */
  public static final class Builder {
    private String environmentId;
    private final Map<String, String> environmentOptions = new LinkedHashMap<>();
    private int tasks = 16;
    private int groupSize = 8;
    private OptionalInt episodes = OptionalInt.empty();
    private OptionalInt maxTurns = OptionalInt.empty();
    private ContextMode contextMode = ContextMode.REFLECTION_ONLY;
    private boolean earlyStop = true;
    private PromptStyle promptStyle = PromptStyle.VERBOSE;
    private int historyLength = 7;
    private int playObservations = 2;
    private int reflectObservations = Integer.MAX_VALUE;
    private Seating seating = Seating.first();
    private Optional<OpponentPool> opponentPool = Optional.empty();
    private Optional<String> fixedOpponent = Optional.empty();
    private OpponentSampling opponentSampling = OpponentSampling.PER_GROUP;
    private Optional<SamplingConfig> sampling = Optional.empty();
    private long seed;
    private String groupPrefix = "g";
    private Optional<Duration> stepTimeout = Optional.empty();
    private Optional<Duration> generateTimeout = Optional.empty();
    private List<Long> taskSeeds = List.of();
    private ReflectionControl reflectionControl = ReflectionControl.OWN;

    private Builder() {}

    /**
     * @param v the environment provider id (required)
     * @return this builder
     */
    public Builder setEnvironmentId(String v) {
      environmentId = v;
      return this;
    }

    /**
     * @param v environment options, replacing any set before (default none)
     * @return this builder
     */
    public Builder optEnvironmentOptions(Map<String, String> v) {
      environmentOptions.clear();
      environmentOptions.putAll(v);
      return this;
    }

    /**
     * @param key an environment option
     * @param value its value
     * @return this builder
     */
    public Builder addEnvironmentOption(String key, String value) {
      environmentOptions.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * @param v B, the number of episode groups (default 16)
     * @return this builder
     */
    public Builder optTasks(int v) {
      tasks = v;
      return this;
    }

    /**
     * @param v G, meta-episodes per group (default 8)
     * @return this builder
     */
    public Builder optGroupSize(int v) {
      groupSize = v;
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
     * @param v the play-turn limit per episode (default: the provider's)
     * @return this builder
     */
    public Builder optMaxTurns(int v) {
      maxTurns = OptionalInt.of(v);
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
     * @param v stop a meta-episode after its first win (default true)
     * @return this builder
     */
    public Builder optEarlyStop(boolean v) {
      earlyStop = v;
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
     * @param v steps listed in play prompts (default 7)
     * @return this builder
     */
    public Builder optHistoryLength(int v) {
      historyLength = v;
      return this;
    }

    /**
     * @param v latest steps shown with their state in play prompts (default 2)
     * @return this builder
     */
    public Builder optPlayObservations(int v) {
      playObservations = v;
      return this;
    }

    /**
     * @param v latest steps shown with their state in reflect prompts (default all)
     * @return this builder
     */
    public Builder optReflectObservations(int v) {
      reflectObservations = v;
      return this;
    }

    /**
     * @param v the seating (default first)
     * @return this builder
     */
    public Builder optSeating(Seating v) {
      seating = v;
      return this;
    }

    /**
     * @param v the pool to sample from (default: the provider's pool)
     * @return this builder
     */
    public Builder optOpponentPool(OpponentPool v) {
      opponentPool = Optional.of(v);
      return this;
    }

    /**
     * @param v the id of the only opponent (default: sample from the pool)
     * @return this builder
     */
    public Builder optFixedOpponent(String v) {
      fixedOpponent = Optional.of(v);
      return this;
    }

    /**
     * @param v per group (default) or per meta-episode
     * @return this builder
     */
    public Builder optOpponentSampling(OpponentSampling v) {
      opponentSampling = v;
      return this;
    }

    /**
     * @param v sampling (default: temperature 1 at the provider's token limit)
     * @return this builder
     */
    public Builder optSampling(SamplingConfig v) {
      sampling = Optional.of(v);
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

    /**
     * @param v the group-id prefix (default {@code g})
     * @return this builder
     */
    public Builder optGroupPrefix(String v) {
      groupPrefix = v;
      return this;
    }

    /**
     * Bounds every call into the environment plugin. A call that takes longer fails its meta-episode with a {@link
     * StepTimeoutException} and the run goes on; the call itself cannot be stopped (see {@link MetaEpisodeRunner}).
     * With a timeout set, plugin calls run on a daemon thread of the run instead of the caller's thread.
     *
     * @param v the limit, positive (default: no limit)
     * @return this builder
     */
    public Builder optStepTimeout(Duration v) {
      stepTimeout = Optional.of(Objects.requireNonNull(v, "stepTimeout"));
      return this;
    }

    /**
     * Bounds every batched {@link org.magejvm.api.LanguagePolicy#generate} call. A call that takes longer fails the
     * meta-episodes of its batch with a {@link GenerateTimeoutException} and the run goes on with the others; the
     * call itself cannot be stopped (see {@link MetaEpisodeRunner}). With a timeout set, policy calls run on a daemon
     * thread of the run instead of the caller's thread. Off by default: a slow model is not a fault, so set it well
     * above the slowest batch you expect (a full batch at the response-token limit).
     *
     * @param v the limit, positive (default: no limit)
     * @return this builder
     */
    public Builder optGenerateTimeout(Duration v) {
      generateTimeout = Optional.of(Objects.requireNonNull(v, "generateTimeout"));
      return this;
    }

    /**
     * Plays these tasks, one group each, instead of tasks whose seeds derive from {@link #optSeed}; also sets the
     * number of tasks to the list's size.
     *
     * @param v the task seeds, in group order, at least one (default: derived from the seed)
     * @return this builder
     */
    public Builder optTaskSeeds(List<Long> v) {
      taskSeeds = List.copyOf(v);
      if (taskSeeds.isEmpty()) {
        throw new IllegalArgumentException("taskSeeds must hold at least one seed");
      }
      tasks = taskSeeds.size();
      return this;
    }

    /**
     * @param v what later attempts are shown of the reflections written before them (default {@link
     *     ReflectionControl#OWN})
     * @return this builder
     */
    public Builder optReflectionControl(ReflectionControl v) {
      reflectionControl = Objects.requireNonNull(v, "reflectionControl");
      return this;
    }

    /** @return the validated config */
    public RolloutConfig build() {
      return new RolloutConfig(environmentId, environmentOptions, tasks, groupSize, episodes, maxTurns, contextMode,
          earlyStop, promptStyle, historyLength, playObservations, reflectObservations, seating, opponentPool,
          fixedOpponent, opponentSampling, sampling, seed, groupPrefix, stepTimeout, generateTimeout, taskSeeds,
          reflectionControl);
    }
  }
}
