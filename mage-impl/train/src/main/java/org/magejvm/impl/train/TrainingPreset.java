package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.OldLogProbs;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.Optional;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Grouping;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.credit.EpisodeScore;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.PromptStyle;

/**
 * The training algorithms as complete configurations: a preset is a function of the environment (its discounts,
 * penalties, lengths and whether it has two players) to a {@link TrainingConfig}.
 *
 * <ul>
 *   <li>{@code mage}: MAGE as this library recommends it, the settings under which the quick start's model learns
 *       within the meta-episode (docs/results.md): the paper's final-attempt objective (attempt discount 1), the
 *       reference's context (later attempts see the reflections written after the earlier ones, not their moves),
 *       GiGPO's episode score taken over the whole meta-episode (reflections included) and its step groups keyed by
 *       the whole prompt, an invalid-action penalty of 25 (larger than any gain a nonsense answer can buy under the
 *       differential return), an AdamW step per 64 turns as in the reference (a full-batch step per iteration learned
 *       nothing on Goalkeeper in 120 iterations, docs/results.md) at learning rate 5e-4 with KL weight 1.0 to the
 *       initial model, and every update checked against the log-probability of 256 turns of the environment's {@link
 *       EnvironmentProvider#formatPolicy() format player} (reflections included). The learning rate and KL weight
 *       were measured on a 131,776-parameter model; a checkpoint of 0.6B parameters or more wants a far smaller
 *       learning rate ({@code mage-reference} has 1e-6).</li>
 *   <li>{@code mage-reference}: MAGE exactly as the reference code trains it (the settings its fidelity tests
 *       pin): differential return with the environment's attempt discount (0.6 for the games), per-attempt episode
 *       scores, global anchors, reflections in the prompt, the environment's invalid-action penalty, learning rate
 *       1e-6, KL weight 0.1 (none on Sokoban, whose reference script turns the KL loss off), minibatches of 64 turns
 *       with every turn in the update (zero advantages included, {@code update.skip_zero_advantage} false), opponents
 *       by the reference's fixed quotas ({@link OpponentAssignment#QUOTA}), no update check, and the reference
 *       script's length (150 iterations, Sokoban 300).</li>
 *   <li>{@code lamer}: LaMer, the reference's settings with cumulative returns.</li>
 *   <li>{@code gigpo} and {@code grpo}: single-episode GiGPO and GRPO (groups of 24 single attempts), the
 *       reference's settings.</li>
 *   <li>{@code react} and {@code reflexion}: evaluation-only prompting baselines (N independent attempts; N attempts
 *       with reflections); they train nothing, and {@code mage train} refuses them.</li>
 * </ul>
 *
 * <p>Each preset is also a method of the paper's comparison, with its own rollout, credit, optimizer and evaluation
 * settings ({@link #trainingRollout}, {@link #credit}, {@link #optimizerConfig}, {@link #evaluation}): single-episode
 * methods train on one attempt and are evaluated on the environment's N attempts without context ({@link
 * ContextMode#NONE}), so that their success rate over k attempts compares with the meta-learners'.
 *
 * <p>Common to all: 16 task groups per iteration, opponent-stationary groups (one opponent per group from the
 * environment's training pool: by the reference's fixed quotas in the reference presets, drawn from the pool's weights
 * every iteration in {@code mage}), half the groups seated second in two-player games, early stop after a win, the
 * environment's response limit, validation every 5 iterations on 128 meta-episodes per set, a checkpoint every 10,
 * seed 0, full fine-tuning (LoRA: rank 16, alpha 32, every linear projection), and 150 iterations.
 *
 * <p>The reference presets ({@code mage-reference}, {@code lamer}, {@code gigpo}, {@code grpo}) take what the
 * reference's script for the environment sets: every environment's discounts, penalties and lengths come with its
 * {@link EnvironmentDefaults}; the KL weight and the run's length come from this class, keyed by the environment's
 * id: {@code mage-sokoban} trains without a KL term and for 300 iterations (its {@code mage.sh}, and LaMer's,
 * GiGPO's and GRPO's Sokoban scripts: {@code use_kl_loss=False}, {@code total_epochs=300}); every other environment
 * has KL weight 0.1 and 150 iterations (the Tic-Tac-Toe and Kuhn Poker scripts). The {@code mage} preset keeps its
 * own values on every environment.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum TrainingPreset {
  /** MAGE with the settings under which the quick start learns; see the class comment. */
  MAGE("mage", "gigpo", MetaReturn.DIFFERENTIAL, ContextMode.REFLECTION_ONLY, true, 8,
      "MAGE, final-attempt objective (gamma_traj 1), reflections in the prompt (reflection_only),"
          + " whole-meta-episode episode score, prompt anchors, invalid penalty 25, an AdamW step per 64 turns at lr"
          + " 5e-4, KL 1.0, anchor check 0.01 on the environment's format player: the settings under which the quick"
          + " start learns (measured on a tiny model; lower adamw.learning_rate for real checkpoints)"),
  /** MAGE exactly as the reference code trains it. */
  MAGE_REFERENCE("mage-reference", "gigpo", MetaReturn.DIFFERENTIAL, ContextMode.REFLECTION_ONLY, true, 8,
      "MAGE as the reference code trains it: differential return, the environment's attempt discount (0.6),"
          + " reflections, per-attempt episode score, global anchors, lr 1e-6, KL 0.1 (Sokoban none, 300"
          + " iterations), every turn trained (zero advantages too), opponents by fixed quotas; the fidelity tests pin"
          + " it"),
  /** LaMer with the reference's settings: meta-episodes with reflections, cumulative cross-episode returns. */
  LAMER("lamer", "gigpo", MetaReturn.CUMULATIVE, ContextMode.REFLECTION_ONLY, true, 8,
      "LaMer: cumulative cross-episode returns with reflections, otherwise the reference's settings"),
  /** Single-episode GiGPO with the reference's settings (the upstream algorithm). */
  GIGPO("gigpo", "gigpo", MetaReturn.SINGLE_EPISODE, ContextMode.NONE, false, 24,
      "GiGPO on single episodes (groups of 24), the reference's settings: the no-meta-learning baseline"),
  /** Single-episode GRPO with the reference's settings (episode-level advantages only). */
  GRPO("grpo", "grpo", MetaReturn.SINGLE_EPISODE, ContextMode.NONE, false, 24,
      "GRPO on single episodes (groups of 24, episode-level advantages only), the reference's settings"),
  /** Prompting only, one attempt without memory; evaluation-only. */
  REACT("react", "", null, ContextMode.NONE, false, 1,
      "evaluation only: N independent attempts, no memory; trains nothing"),
  /** Prompting with reflections between attempts; evaluation-only. */
  REFLEXION("reflexion", "", null, ContextMode.REFLECTION_ONLY, true, 1,
      "evaluation only: N attempts with written reflections between them; trains nothing");

  /** Episode groups per training batch in every training preset (the reference's {@code train_batch_size}). */
  public static final int TRAINING_TASKS = 16;
  /** Meta-episodes per evaluation (the reference's {@code val_batch_size}). */
  public static final int EVALUATION_META_EPISODES = 128;
  /** The share of groups whose agent sits second when training on a two-player game. */
  public static final double TRAINING_SECOND_SEAT_RATIO = 0.5;

  /**
   * Every preset's {@code update.micro_batch_tokens}: at most this many token slots per forward and backward pass.
   * The quick start's micro-batches (64 turns of about 80 tokens) stay under it; a Kuhn Poker run with verbose
   * prompts (about 950 tokens a turn) goes 8 turns to a pass instead of 64, which took the peak resident set of one
   * iteration of {@code mage train --preset mage --env mage-kuhn-poker --tiny --lora-rank 4} from 7.2 GB down
   * (docs/benchmarks.md).
   */
  public static final int DEFAULT_MICRO_BATCH_TOKENS = 8192;

  /** Turns per AdamW step in the reference ({@code ppo_mini_batch_size}), with one pass over each batch. */
  public static final int REFERENCE_MINI_BATCH_TURNS = 64;

  /** Iterations of a reference run ({@code trainer.total_epochs} of the Tic-Tac-Toe and Kuhn Poker scripts). */
  public static final int REFERENCE_ITERATIONS = 150;

  /**
   * What a reference script sets per environment beyond {@link EnvironmentDefaults}.
   *
   * @param klCoefficient the KL loss weight, 0 where the script sets {@code use_kl_loss=False}
   * @param iterations the script's {@code trainer.total_epochs} (one batch per epoch)
   */
  private record ReferenceScript(double klCoefficient, int iterations) {}

  /** The reference scripts that differ from the default, by environment id. */
  private static final Map<String, ReferenceScript> REFERENCE_SCRIPTS = Map.of(
      "mage-sokoban", new ReferenceScript(0.0, 300));

  /** The anchor check's limit in the {@code mage} preset: the largest mean per-token log-probability drop. */
  public static final double MAGE_MAX_ANCHOR_DROP = 0.01;
  /**
   * The anchor answers of the {@code mage} preset on most environments: the scripted {@code random} player; the
   * preset takes the environment's {@link EnvironmentProvider#formatPolicy()}, which is this unless the game names
   * another.
   */
  public static final String MAGE_ANCHOR_POLICY = "random";

  private final String id;
  private final String optimizerId;
  private final MetaReturn metaReturn;
  private final ContextMode trainingContextMode;
  private final boolean multiEpisode;
  private final int trainingGroupSize;
  private final String description;

  TrainingPreset(String id, String optimizerId, MetaReturn metaReturn, ContextMode trainingContextMode,
      boolean multiEpisode, int trainingGroupSize, String description) {
    this.id = id;
    this.optimizerId = optimizerId;
    this.metaReturn = metaReturn;
    this.trainingContextMode = trainingContextMode;
    this.multiEpisode = multiEpisode;
    this.trainingGroupSize = trainingGroupSize;
    this.description = description;
  }

  /** @return the preset's name on the command line and in config files */
  public String id() {
    return id;
  }

  /** @return whether the preset trains (react and reflexion only evaluate) */
  public boolean trains() {
    return metaReturn != null;
  }

  /** @return the id of the {@link org.magejvm.api.PolicyOptimizerProvider} it trains with, if it trains */
  public Optional<String> optimizerId() {
    return trains() ? Optional.of(optimizerId) : Optional.empty();
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

  /** @return the context mode it is evaluated in: its training context, or none for single-episode methods */
  public ContextMode evaluationContextMode() {
    return trainingContextMode;
  }

  /**
   * @param defaults the environment's defaults
   * @return episodes per meta-episode when training: the environment's N, or 1 for single-episode methods
   */
  public int trainingEpisodes(EnvironmentDefaults defaults) {
    return multiEpisode ? defaults.episodes() : 1;
  }

  /**
   * The training rollout of this preset's method on an environment, as the reference runs it; adjust the returned
   * builder (seed, tasks, ...) as needed. A {@link TrainingConfig}'s own rollout is {@code config(provider)}'s.
   *
   * @param provider the environment
   * @return a builder preset with the method's rollout settings
   * @throws IllegalStateException if the preset does not train
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
        .optOpponentSampling(opponentAssignment().sampling())
        .optSampling(SamplingConfig.training(d.maxResponseTokens()));
  }

  /**
   * The reference's credit assignment of this preset's method on an environment.
   *
   * @param defaults the environment's defaults (discounts and penalties)
   * @return the credit config
   * @throws IllegalStateException if the preset does not train
   */
  public CreditConfig credit(EnvironmentDefaults defaults) {
    requireTrains();
    return CreditConfig.forEnvironment(defaults).optMetaReturn(metaReturn).build();
  }

  /**
   * The reference's optimizer settings: its defaults with opponent-stationary grouping (the KL weight 0.1 of the
   * Tic-Tac-Toe and Kuhn Poker scripts).
   *
   * @return the optimizer config
   * @throws IllegalStateException if the preset does not train
   */
  public OptimizerConfig optimizerConfig() {
    requireTrains();
    return OptimizerConfig.builder().optGrouping(Grouping.OPPONENT_STATIONARY).build();
  }

  /**
   * The reference's optimizer settings on an environment: {@link #optimizerConfig()} with the KL weight of the
   * environment's reference script (0 on Sokoban).
   *
   * @param provider the environment
   * @return the optimizer config
   * @throws IllegalStateException if the preset does not train
   */
  public OptimizerConfig optimizerConfig(EnvironmentProvider provider) {
    return optimizerConfig().toBuilder().optKlCoefficient(script(provider).klCoefficient()).build();
  }

  /**
   * How this preset's runs give the episode groups their opponents: {@code mage} draws them every iteration, the
   * reference presets assign the reference's fixed quotas.
   *
   * @return the assignment
   */
  public OpponentAssignment opponentAssignment() {
    return this == MAGE ? OpponentAssignment.SAMPLED : OpponentAssignment.QUOTA;
  }

  private static ReferenceScript script(EnvironmentProvider provider) {
    return REFERENCE_SCRIPTS.getOrDefault(provider.id(),
        new ReferenceScript(OptimizerConfig.defaults().klCoefficient(), REFERENCE_ITERATIONS));
  }

  /**
   * The evaluation of this preset's method on an environment: 128 meta-episodes of N episodes against the
   * environment's evaluation opponent and seat, in the method's evaluation context mode, with the reference's
   * evaluation sampling.
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
            .optContextMode(evaluationContextMode())
            .optEarlyStop(true)
            .optSampling(SamplingConfig.evaluation(d.maxResponseTokens())));
  }

  private void requireTrains() {
    if (!trains()) {
      throw new IllegalStateException("preset '" + id + "' does not train; it has only evaluation settings");
    }
  }

  /** @return one line: what the preset sets and why */
  public String description() {
    return description;
  }

  /**
   * The preset's configuration on an environment.
   *
   * @param provider the environment
   * @return the complete configuration
   */
  public TrainingConfig config(EnvironmentProvider provider) {
    TrainingConfig reference = reference(provider);
    if (this != MAGE) {
      ReferenceScript script = script(provider);
      return reference.toBuilder()
          .set("loss.kl_coefficient", script.klCoefficient())
          .set("iterations", script.iterations())
          .build();
    }
    // the quick start's settings; skip_zero_advantage true, as the five-seed measurement on the quick start chose
    // (docs/results.md), and the opponents drawn as they always were
    return reference.toBuilder()
        .set("preset", id)
        .set("rollout.opponent_assignment", OpponentAssignment.SAMPLED)
        .set("update.skip_zero_advantage", true)
        .set("rollout.context_mode", ContextMode.REFLECTION_ONLY)
        // the sections that are the components' own types are written typed, checked by the compiler
        .credit(reference.credit().toBuilder().optGammaTraj(1.0).optInvalidPenalty(25.0)
            .optEpisodeScore(EpisodeScore.META_EPISODE).build())
        .adamw(reference.adamw().toBuilder().optLearningRate(5e-4).build())
        .set("advantages.anchor_scope", AnchorScope.PROMPT)
        .set("loss.kl_coefficient", 1.0)
        .set("update.mini_batch_turns", 64)
        .set("update.micro_batch_turns", 64)
        .set("update.old_log_probs", OldLogProbs.AUTO)
        .set("checks.max_anchor_drop", MAGE_MAX_ANCHOR_DROP)
        .set("checks.anchor_policy", provider.formatPolicy())
        .build();
  }

  /**
   * The reference code's settings for this preset's method, before the environment's script: every turn trained,
   * opponents by quotas, KL weight 0.1, 150 iterations.
   */
  private TrainingConfig reference(EnvironmentProvider provider) {
    EnvironmentDefaults d = provider.defaults();
    OptimizerConfig o = OptimizerConfig.defaults();
    AdamWConfig a = AdamWConfig.defaults();
    MetaReturn returns = metaReturn().orElse(MetaReturn.SINGLE_EPISODE);
    return new TrainingConfig(id,
        new TrainingConfig.EnvironmentSettings(provider.id(), Map.of(), null),
        new TrainingConfig.RolloutSettings(TRAINING_TASKS, trains() ? trainingGroupSize : 1,
            trainingEpisodes(d) == 1 && !trains() ? d.episodes() : trainingEpisodes(d),
            d.maxTurns(), trainingContextMode, PromptStyle.VERBOSE, true,
            provider.twoPlayer() ? "mixed:" + TRAINING_SECOND_SEAT_RATIO : "first", 0, 0.25,
            OpponentAssignment.QUOTA),
        new TrainingConfig.SamplingSettings(1.0, 1.0, 0, d.maxResponseTokens()),
        new CreditConfig(returns, d.stepGamma(), d.trajGamma(), d.invalidPenalty(), d.lengthPenalty(),
            d.maxResponseTokens(), EpisodeScore.ATTEMPT),
        new TrainingConfig.AdvantageSettings(optimizerId().orElse("gigpo"), o.normalization(), o.stepWeight(),
            o.grouping(), o.anchorScope(), o.epsilon()),
        new TrainingConfig.LossSettings(o.clipRatioLow(), o.clipRatioHigh(), o.dualClip(), o.entropyCoefficient(),
            o.klCoefficient(), o.lossAggregation()),
        a,
        new TrainingConfig.UpdateSettings(REFERENCE_MINI_BATCH_TURNS, 8, DEFAULT_MICRO_BATCH_TOKENS, 1,
            OldLogProbs.RECOMPUTE, false),
        new TrainingConfig.CheckSettings(0, 0, 256, null),
        new TrainingConfig.ValidationSettings(5, EVALUATION_META_EPISODES, true),
        new TrainingConfig.CheckpointSettings(10, 3),
        new TrainingConfig.FineTuningSettings(TrainingConfig.FineTuningSettings.FULL, 16, 32, List.of("all-linear"),
            null, null),
        REFERENCE_ITERATIONS, 0, 0, TrainingConfig.HardwareSettings.cpu());
  }

  /**
   * @param text a preset name
   * @return the preset of that name (case-insensitive), if there is one
   */
  public static java.util.Optional<TrainingPreset> find(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
    return Arrays.stream(values()).filter(p -> p.id.equals(t)).findFirst();
  }

  /**
   * Looks a preset up by name, case-insensitively.
   *
   * @param text the name
   * @return the preset
   * @throws ConfigException naming the known presets
   */
  public static TrainingPreset parse(String text) {
    return find(text).orElseThrow(() -> unknown(text, ""));
  }

  /**
   * @param text a name that is no preset's
   * @param more what to add to the message
   * @return the error naming the known presets
   */
  static ConfigException unknown(String text, String more) {
    return new ConfigException("preset", "unknown preset '" + text + "'; known presets: "
        + Arrays.stream(values()).map(TrainingPreset::id).collect(Collectors.joining(", ")) + more);
  }
}
