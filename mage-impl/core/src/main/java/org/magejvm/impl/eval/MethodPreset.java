package org.magejvm.impl.eval;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Grouping;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.rollout.OpponentSampling;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;

/**
 * The methods compared in the MAGE paper, as rollout, credit and evaluation settings.
 *
 * <table>
 *   <caption>Presets (N = the environment's episodes per meta-episode, 3 in the reference)</caption>
 *   <tr><th>id</th><th>trains</th><th>optimizer</th><th>returns</th><th>training rollout</th>
 *       <th>evaluation</th></tr>
 *   <tr><td>react</td><td>no</td><td>-</td><td>-</td><td>-</td><td>N attempts, blank context each</td></tr>
 *   <tr><td>reflexion</td><td>no</td><td>-</td><td>-</td><td>-</td><td>N episodes with reflections</td></tr>
 *   <tr><td>grpo</td><td>yes</td><td>grpo</td><td>single-episode</td><td>1 episode, group 24</td>
 *       <td>N attempts, blank context each</td></tr>
 *   <tr><td>gigpo</td><td>yes</td><td>gigpo</td><td>single-episode</td><td>1 episode, group 24</td>
 *       <td>N attempts, blank context each</td></tr>
 *   <tr><td>lamer</td><td>yes</td><td>gigpo</td><td>cumulative</td><td>N episodes with reflections, group 8</td>
 *       <td>N episodes with reflections</td></tr>
 *   <tr><td>mage</td><td>yes</td><td>gigpo</td><td>differential</td><td>N episodes with reflections, group 8</td>
 *       <td>N episodes with reflections</td></tr>
 * </table>
 *
 * <p>Common to the training presets: 16 tasks per batch, the reference's training sampling (temperature 1), one
 * opponent per group drawn from the environment's training pool (opponent-stationary groups; the reference gives
 * every method this grouping), mixed seats with half the groups second for two-player games, early stop after a
 * win, and the environment's discounts and penalties. Evaluation: 128 meta-episodes against the environment's
 * evaluation opponent and seat with the reference's evaluation sampling. Single-episode methods are evaluated with
 * N independent attempts that see no earlier attempt ({@link ContextMode#NONE}), so their success rate over k
 * attempts is comparable with the meta-learners'.
 */
@Api(status = Api.Status.STABLE)
public enum MethodPreset {
  /** Prompting only, one episode without memory; no training. */
  REACT("react", false, "", null, ContextMode.NONE, false, 1, ContextMode.NONE),
  /** Prompting with reflections between episodes; no training. */
  REFLEXION("reflexion", false, "", null, ContextMode.REFLECTION_ONLY, true, 1, ContextMode.REFLECTION_ONLY),
  /** GRPO on single episodes (episode-level advantages only). */
  GRPO("grpo", true, "grpo", MetaReturn.SINGLE_EPISODE, ContextMode.NONE, false, 24, ContextMode.NONE),
  /** GiGPO on single episodes (the upstream algorithm). */
  GIGPO("gigpo", true, "gigpo", MetaReturn.SINGLE_EPISODE, ContextMode.NONE, false, 24, ContextMode.NONE),
  /** LaMer: meta-episodes with reflections, cumulative cross-episode returns, GiGPO. */
  LAMER("lamer", true, "gigpo", MetaReturn.CUMULATIVE, ContextMode.REFLECTION_ONLY, true, 8,
      ContextMode.REFLECTION_ONLY),
  /** MAGE: meta-episodes with reflections, differential meta-reward, opponent-stationary groups, GiGPO. */
  MAGE("mage", true, "gigpo", MetaReturn.DIFFERENTIAL, ContextMode.REFLECTION_ONLY, true, 8,
      ContextMode.REFLECTION_ONLY);

  /** Episode groups per training batch in every training preset (the reference's {@code train_batch_size}). */
  public static final int TRAINING_TASKS = 16;
  /** Meta-episodes per evaluation (the reference's {@code val_batch_size}). */
  public static final int EVALUATION_META_EPISODES = 128;
  /** The share of groups whose agent sits second when training on a two-player game. */
  public static final double TRAINING_SECOND_SEAT_RATIO = 0.5;

  private final String id;
  private final boolean trains;
  private final String optimizerId;
  private final MetaReturn metaReturn;
  private final ContextMode trainingContextMode;
  private final boolean multiEpisode;
  private final int trainingGroupSize;
  private final ContextMode evaluationContextMode;

  MethodPreset(String id, boolean trains, String optimizerId, MetaReturn metaReturn, ContextMode trainingContextMode,
      boolean multiEpisode, int trainingGroupSize, ContextMode evaluationContextMode) {
    this.id = id;
    this.trains = trains;
    this.optimizerId = optimizerId;
    this.metaReturn = metaReturn;
    this.trainingContextMode = trainingContextMode;
    this.multiEpisode = multiEpisode;
    this.trainingGroupSize = trainingGroupSize;
    this.evaluationContextMode = evaluationContextMode;
  }

  /** @return the lower-case id used on the command line */
  public String id() {
    return id;
  }

  /** @return whether the method updates the policy */
  public boolean trains() {
    return trains;
  }

  /** @return the id of the {@link org.magejvm.api.PolicyOptimizerProvider} it trains with, if it trains */
  public Optional<String> optimizerId() {
    return trains ? Optional.of(optimizerId) : Optional.empty();
  }

  /** @return how rewards become returns, if it trains */
  public Optional<MetaReturn> metaReturn() {
    return Optional.ofNullable(metaReturn);
  }

  /** @return whether the method plays several episodes per meta-episode (with reflections) */
  public boolean multiEpisode() {
    return multiEpisode;
  }

  /** @return the context mode of its own rollouts */
  public ContextMode trainingContextMode() {
    return trainingContextMode;
  }

  /** @return G, meta-episodes per group when training */
  public int trainingGroupSize() {
    return trainingGroupSize;
  }

  /** @return the context mode used to evaluate it */
  public ContextMode evaluationContextMode() {
    return evaluationContextMode;
  }

  /**
   * @param defaults the environment's defaults
   * @return episodes per meta-episode when training: the environment's N, or 1 for single-episode methods
   */
  public int trainingEpisodes(EnvironmentDefaults defaults) {
    return multiEpisode ? defaults.episodes() : 1;
  }

  /**
   * The training rollout of this method on an environment; adjust the returned builder (seed, tasks, ...) as needed.
   *
   * @param provider the environment
   * @return a builder preset with the method's rollout settings
   * @throws IllegalStateException if the method does not train
   */
  public RolloutConfig.Builder trainingRollout(EnvironmentProvider provider) {
    requireTrains();
    EnvironmentDefaults d = provider.defaults();
    return RolloutConfig.builder()
        .setEnvironmentId(provider.id())
        .optTasks(TRAINING_TASKS)
        .optGroupSize(trainingGroupSize)
        .optEpisodes(trainingEpisodes(d))
        .optMaxTurns(d.maxTurns())
        .optContextMode(trainingContextMode)
        .optEarlyStop(true)
        .optSeating(provider.twoPlayer() ? Seating.mixed(TRAINING_SECOND_SEAT_RATIO) : Seating.first())
        .optOpponentSampling(OpponentSampling.PER_GROUP)
        .optSampling(SamplingConfig.training(d.maxResponseTokens()));
  }

  /**
   * The credit assignment of this method on an environment.
   *
   * @param defaults the environment's defaults (discounts and penalties)
   * @return the credit config
   * @throws IllegalStateException if the method does not train
   */
  public CreditConfig credit(EnvironmentDefaults defaults) {
    requireTrains();
    return CreditConfig.forEnvironment(defaults).optMetaReturn(metaReturn).build();
  }

  /**
   * The optimizer settings of this method: the reference defaults with opponent-stationary grouping.
   *
   * @return the optimizer config
   * @throws IllegalStateException if the method does not train
   */
  public OptimizerConfig optimizerConfig() {
    requireTrains();
    return OptimizerConfig.builder().optGrouping(Grouping.OPPONENT_STATIONARY).build();
  }

  /**
   * The evaluation of this method on an environment: 128 meta-episodes of N episodes against the environment's
   * evaluation opponent and seat, in the method's evaluation context mode.
   *
   * @param provider the environment
   * @return a builder preset with the evaluation settings
   */
  public EvaluationConfig.Builder evaluation(EnvironmentProvider provider) {
    EnvironmentDefaults d = provider.defaults();
    return EvaluationConfig.builder()
        .setEnvironmentId(provider.id())
        .optMetaEpisodes(EVALUATION_META_EPISODES)
        .rollout(r -> r.optEpisodes(d.episodes())
            .optMaxTurns(d.maxTurns())
            .optContextMode(evaluationContextMode)
            .optEarlyStop(true)
            .optSampling(SamplingConfig.evaluation(d.maxResponseTokens())));
  }

  private void requireTrains() {
    if (!trains) {
      throw new IllegalStateException("method '" + id + "' does not train; it has only evaluation settings");
    }
  }

  /**
   * Looks a preset up by id, case-insensitively.
   *
   * @param text the id
   * @return the preset
   * @throws IllegalArgumentException naming the known ids
   */
  public static MethodPreset parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    for (MethodPreset p : values()) {
      if (p.id.equals(t)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown method preset '" + text + "'; known presets: "
        + Arrays.stream(values()).map(MethodPreset::id).collect(Collectors.joining(", ")));
  }
}
