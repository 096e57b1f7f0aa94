package org.magejvm.impl.train;

import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.OldLogProbs;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Grouping;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.credit.EpisodeScore;
import org.magejvm.impl.llm.generate.Recompute;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.model.AttentionKernel;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * One training run, completely described: the environment, the rollout and its sampling, credit assignment, the
 * advantage estimator, the loss, AdamW, the update schedule and its checks, validation, checkpoints, full or LoRA
 * fine-tuning, the number of iterations, the seed, the thread count, and the device and precision it trains in. Immutable, with value equality; its JSON form
 * ({@link #toJson()}, {@link #fromJson(String)}) uses the same snake_case keys as {@code mage train --set KEY=VALUE}
 * and round-trips exactly.
 *
 * <p>Start from a preset ({@link TrainingPreset#config}), change what differs ({@link #with(String, Object)} or
 * {@link #toBuilder()}), and give it to {@code MageTrainer.create}. Every value is checked when the config is built;
 * a value out of range, of the wrong type or under an unknown key is refused with a {@link ConfigException} whose
 * one-line message names the key (and, for an unknown key, the closest known one).
 *
 * @param preset the name of the preset the config started from (informational; {@code "custom"} for none)
 * @param environment the environment, its options and opponent
 * @param rollout the training rollout
 * @param sampling the training sampling
 * @param credit credit assignment (returns, discounts, penalties, episode score): its own settings type, {@link
 *     CreditConfig}, validated once
 * @param advantages the advantage estimator and its grouping
 * @param loss the PPO loss
 * @param adamw the AdamW optimizer: its own settings type, {@link AdamWConfig}, validated once
 * @param update the update schedule and micro-batching
 * @param checks the checks each update must pass
 * @param validation validation during training
 * @param checkpoints checkpoint schedule
 * @param fineTuning full fine-tuning or a LoRA adapter
 * @param iterations the iterations {@code fit} trains until
 * @param seed the base seed of every random draw of the run
 * @param threads libtorch intra-op threads, 0 for libtorch's default; a trainer built from the config ({@link
 *     MageTrainer#create}) resizes libtorch's pool to it, and the command-line tool also sets it before the engine
 *     starts
 * @param hardware the device the policy runs on and the precision it trains in ({@code cpu} and {@code float32} in
 *     every preset; a config written before the section existed reads so, as it ran)
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record TrainingConfig(
    String preset,
    EnvironmentSettings environment,
    RolloutSettings rollout,
    SamplingSettings sampling,
    CreditConfig credit,
    AdvantageSettings advantages,
    LossSettings loss,
    AdamWConfig adamw,
    UpdateSettings update,
    CheckSettings checks,
    ValidationSettings validation,
    CheckpointSettings checkpoints,
    FineTuningSettings fineTuning,
    int iterations,
    long seed,
    int threads,
    HardwareSettings hardware) {

  /**
   * The training config a checkpoint's run was created with, when it was created from one ({@code
   * MageTrainer.builder(TrainingConfig, ...)}): what {@code mage train --resume} continues.
   *
   * @param checkpoint a verified checkpoint
   * @return the config, or empty for a run built by hand
   * @throws TrainingException naming the state file when the recorded config does not read back
   */
  public static java.util.Optional<TrainingConfig> ofCheckpoint(TrainingCheckpoint checkpoint) {
    JsonObject run = checkpoint.runConfiguration();
    String key = TrainingCheckpoint.CONFIG_KEY;
    if (!run.has(key) || !run.get(key).isJsonObject()) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(fromJson(run.get(key).toString()));
    } catch (ConfigException e) {
      throw new TrainingException(checkpoint.directory().resolve(TrainingCheckpoint.STATE_FILE)
          + ": the recorded training config (run." + key + ") does not read back: " + e.getMessage(), e);
    }
  }

  /** The largest number of iterations a config may ask for. */
  public static final int MAX_ITERATIONS = 1_000_000;

  private static final Gson PRETTY = new GsonBuilder().setPrettyPrinting().serializeNulls().disableHtmlEscaping()
      .create();

  /**
   * Validates.
   *
   * @param preset preset name
   * @param environment environment
   * @param rollout rollout
   * @param sampling sampling
   * @param credit credit
   * @param advantages advantages
   * @param loss loss
   * @param adamw AdamW
   * @param update update
   * @param checks checks
   * @param validation validation
   * @param checkpoints checkpoints
   * @param fineTuning fine-tuning
   * @param iterations iterations
   * @param seed seed
   * @param threads threads
   * @param hardware device and precision
   */
  public TrainingConfig {
    ConfigChecks.notBlank("preset", preset);
    ConfigException.requireGiven("environment", environment);
    ConfigException.requireGiven("rollout", rollout);
    ConfigException.requireGiven("sampling", sampling);
    ConfigException.requireGiven("credit", credit);
    ConfigException.requireGiven("advantages", advantages);
    ConfigException.requireGiven("loss", loss);
    ConfigException.requireGiven("adamw", adamw);
    ConfigException.requireGiven("update", update);
    ConfigException.requireGiven("checks", checks);
    ConfigException.requireGiven("validation", validation);
    ConfigException.requireGiven("checkpoints", checkpoints);
    ConfigException.requireGiven("fine_tuning", fineTuning);
    ConfigException.requireInRange("iterations", iterations, 0, MAX_ITERATIONS);
    ConfigException.requireInRange("threads", threads, 0, 1024);
    ConfigException.requireGiven("hardware", hardware);
    if (credit.metaReturn() != MetaReturn.SINGLE_EPISODE && rollout.episodes() < 2) {
      throw new ConfigException("rollout.episodes", "rollout.episodes must be >= 2 for credit.meta_return "
          + lower(credit.metaReturn()) + " (a meta-episode of one attempt has no later attempt to credit); got "
          + rollout.episodes() + ", or use credit.meta_return single_episode");
    }
    if (checks.maxAnchorDrop() > 0 && checks.anchorPolicy() == null) {
      throw new ConfigException("checks.anchor_policy", "checks.anchor_policy must name a scripted policy of the"
          + " environment whose answers are the anchors when checks.max_anchor_drop > 0 (or set max_anchor_drop 0)");
    }
  }

  // ------------------------------------------------------------------------------------------------------ sections

  /**
   * The environment of the run.
   *
   * @param id the environment id ({@code mage envs} lists them)
   * @param options the environment's options (its provider lists them); empty for its defaults
   * @param fixedOpponent one opponent of the environment to train against, or {@code null} for its training pool
   */
  public record EnvironmentSettings(String id, Map<String, String> options, String fixedOpponent) {
    /**
     * Validates and copies.
     *
     * @param id id
     * @param options options
     * @param fixedOpponent fixed opponent or null
     */
    public EnvironmentSettings {
      ConfigChecks.notBlank("environment.id", id);
      options = Map.copyOf(new LinkedHashMap<>(ConfigException.requireGiven("environment.options", options)));
      if (fixedOpponent != null && fixedOpponent.isBlank()) {
        throw new ConfigException("environment.fixed_opponent", "environment.fixed_opponent must be an opponent id"
            + " or null, got an empty string");
      }
    }
  }

  /**
   * The training rollout: how many meta-episodes, how long, and what the prompt shows.
   *
   * @param tasks task groups per iteration (the reference's {@code train_batch_size})
   * @param groupSize meta-episodes per group, all with the same task, opponent and seat
   * @param episodes attempts per meta-episode (1 for single-episode methods)
   * @param maxTurns the turn limit of one attempt
   * @param contextMode what the prompt of a later attempt holds of the earlier ones
   * @param promptStyle the prompt's wording: verbose (the reference's) or compact (for tiny models)
   * @param earlyStop whether a won meta-episode stops before its last attempt
   * @param seating the agent's seat in two-player games: {@code first}, {@code second} or {@code mixed:SHARE}
   *     (the share of groups seated second); ignored by one-player games
   * @param stepTimeoutSeconds the limit of one environment call in seconds, 0 for none
   * @param maxFailureShare the largest share of an iteration's meta-episodes that may fail (an environment that
   *     throws, a time-out) before the iteration fails
   * @param opponentAssignment how the groups get their opponents in two-player games: {@code sampled} (drawn from
   *     the pool's weights every iteration) or {@code quota} (the reference's fixed shares of the groups for the whole
   *     run); a config written before the key existed reads as {@code sampled}, as it ran. The training population's
   *     validation set is drawn as with {@code sampled} either way, so runs of every preset validate on the same
   *     opponents
   */
  public record RolloutSettings(
      int tasks, int groupSize, int episodes, int maxTurns, ContextMode contextMode, PromptStyle promptStyle,
      boolean earlyStop, String seating, double stepTimeoutSeconds, double maxFailureShare,
      OpponentAssignment opponentAssignment) {
    /**
     * Validates.
     *
     * @param tasks tasks
     * @param groupSize group size
     * @param episodes episodes
     * @param maxTurns turn limit
     * @param contextMode context mode
     * @param promptStyle prompt style
     * @param earlyStop early stop
     * @param seating seating
     * @param stepTimeoutSeconds step time-out
     * @param maxFailureShare failure share
     * @param opponentAssignment opponent assignment
     */
    public RolloutSettings {
      ConfigException.requireInRange("rollout.tasks", tasks, 1, 65_536);
      ConfigException.requireInRange("rollout.group_size", groupSize, 1, 65_536);
      if ((long) tasks * groupSize > 65_536) {
        throw new ConfigException("rollout.group_size", "rollout.tasks x rollout.group_size must be <= 65536"
            + " meta-episodes per iteration, got " + tasks + " x " + groupSize);
      }
      ConfigException.requireInRange("rollout.episodes", episodes, 1, 64);
      ConfigException.requireInRange("rollout.max_turns", maxTurns, 1, 10_000);
      ConfigException.requireGiven("rollout.context_mode", contextMode);
      ConfigException.requireGiven("rollout.prompt_style", promptStyle);
      ConfigException.requireGiven("rollout.seating", seating);
      try {
        Seating.parse(seating);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("rollout.seating", "rollout.seating must be first, second or mixed:SHARE with"
            + " SHARE in [0, 1], got '" + seating + "'");
      }
      ConfigException.requireInRange("rollout.step_timeout_seconds", stepTimeoutSeconds, 0, 86_400);
      ConfigException.requireInRange("rollout.max_failure_share", maxFailureShare, 0, 1);
      ConfigException.requireGiven("rollout.opponent_assignment", opponentAssignment);
    }

    /**
     * Settings whose opponents are drawn every iteration ({@link OpponentAssignment#SAMPLED}).
     *
     * @param tasks tasks
     * @param groupSize group size
     * @param episodes episodes
     * @param maxTurns turn limit
     * @param contextMode context mode
     * @param promptStyle prompt style
     * @param earlyStop early stop
     * @param seating seating
     * @param stepTimeoutSeconds step time-out
     * @param maxFailureShare failure share
     */
    public RolloutSettings(int tasks, int groupSize, int episodes, int maxTurns, ContextMode contextMode,
        PromptStyle promptStyle, boolean earlyStop, String seating, double stepTimeoutSeconds,
        double maxFailureShare) {
      this(tasks, groupSize, episodes, maxTurns, contextMode, promptStyle, earlyStop, seating, stepTimeoutSeconds,
          maxFailureShare, OpponentAssignment.SAMPLED);
    }

    /** @return the parsed {@link #seating()} */
    public Seating parsedSeating() {
      return Seating.parse(seating);
    }
  }

  /**
   * The training sampling (validation uses the reference's evaluation sampling with the same token limit).
   *
   * @param temperature the softmax temperature, in (0, 10]
   * @param topP nucleus sampling's probability mass, in (0, 1]
   * @param topK the number of most likely tokens kept, 0 for all
   * @param maxNewTokens the response-token limit of a turn
   */
  public record SamplingSettings(double temperature, double topP, int topK, int maxNewTokens) {
    /**
     * Validates.
     *
     * @param temperature temperature
     * @param topP top-p
     * @param topK top-k
     * @param maxNewTokens token limit
     */
    public SamplingSettings {
      if (!(temperature >= 1e-3 && temperature <= 10)) {
        throw new ConfigException("sampling.temperature", "sampling.temperature must be in [0.001, 10], got "
            + temperature);
      }
      if (!(topP > 0 && topP <= 1)) {
        throw new ConfigException("sampling.top_p", "sampling.top_p must be in (0, 1], got " + topP);
      }
      ConfigException.requireInRange("sampling.top_k", topK, 0, 1 << 24);
      ConfigException.requireInRange("sampling.max_new_tokens", maxNewTokens, 1, 1 << 20);
    }
  }

  /**
   * The advantage estimator.
   *
   * @param estimator the optimizer provider's id: {@code gigpo} or {@code grpo} (or a plugin's)
   * @param normalization how group advantages are normalised
   * @param stepWeight GiGPO's weight of the step-level advantage
   * @param grouping how episode groups are formed (opponent-stationary: one opponent per group)
   * @param anchorScope what makes two turns the same anchor state in GiGPO's step groups
   * @param epsilon added to the standard deviation
   */
  public record AdvantageSettings(
      String estimator, NormalizationMode normalization, double stepWeight, Grouping grouping,
      AnchorScope anchorScope, double epsilon) {
    /**
     * Validates.
     *
     * @param estimator estimator id
     * @param normalization normalisation
     * @param stepWeight step weight
     * @param grouping grouping
     * @param anchorScope anchors
     * @param epsilon epsilon
     */
    public AdvantageSettings {
      ConfigChecks.notBlank("advantages.estimator", estimator);
      ConfigException.requireGiven("advantages.normalization", normalization);
      ConfigException.requireInRange("advantages.step_weight", stepWeight, 0, 1e6);
      ConfigException.requireGiven("advantages.grouping", grouping);
      ConfigException.requireGiven("advantages.anchor_scope", anchorScope);
      if (!(epsilon > 0 && epsilon <= 1)) {
        throw new ConfigException("advantages.epsilon", "advantages.epsilon must be in (0, 1], got " + epsilon);
      }
    }
  }

  /**
   * The dual-clip PPO loss with entropy bonus and k3 KL.
   *
   * @param clipRatioLow the lower clip of the probability ratio
   * @param clipRatioHigh the upper clip
   * @param dualClip the dual clip of negative advantages (> 1)
   * @param entropyCoefficient the entropy bonus weight
   * @param klCoefficient the weight of the KL term to the initial model (0: no reference model is kept)
   * @param aggregation how token losses are averaged
   */
  public record LossSettings(
      double clipRatioLow, double clipRatioHigh, double dualClip, double entropyCoefficient, double klCoefficient,
      LossAggregation aggregation) {
    /**
     * Validates.
     *
     * @param clipRatioLow low clip
     * @param clipRatioHigh high clip
     * @param dualClip dual clip
     * @param entropyCoefficient entropy weight
     * @param klCoefficient KL weight
     * @param aggregation aggregation
     */
    public LossSettings {
      ConfigException.requireInRange("loss.clip_ratio_low", clipRatioLow, 0, 1);
      ConfigException.requireInRange("loss.clip_ratio_high", clipRatioHigh, 0, 10);
      if (!(dualClip > 1 && dualClip <= 1e6)) {
        throw new ConfigException("loss.dual_clip", "loss.dual_clip must be in (1, 1e6], got " + dualClip);
      }
      ConfigException.requireInRange("loss.entropy_coefficient", entropyCoefficient, 0, 1e3);
      ConfigException.requireInRange("loss.kl_coefficient", klCoefficient, 0, 1e6);
      ConfigException.requireGiven("loss.aggregation", aggregation);
    }
  }

  /**
   * The update schedule.
   *
   * @param miniBatchTurns turns per optimizer step (a batch larger than this is split)
   * @param microBatchTurns turns per forward and backward pass (memory; the gradient is the same)
   * @param microBatchTokens the most token slots (turns times the longest turn's prompt plus response) per forward
   *     and backward pass, 0 for no limit: long turns then go fewer to a pass, which bounds attention's memory
   * @param epochs passes over each batch
   * @param oldLogProbs where the old log-probabilities come from: recomputed before the update, the rollout's
   *     recorded ones, or the recorded ones where they are exact ({@link OldLogProbs})
   * @param skipZeroAdvantage leave turns with advantage 0 out of the loss's forward pass
   * @param attention how the policy computes attention in passes of more than one token per row, rollouts' prompts
   *     included ({@link AttentionKernel}: {@code auto} fuses from {@value Qwen3Model#FUSED_FROM_KEYS} keys)
   * @param recomputeLayers whether a training pass recomputes the decoder layers' activations in its backward pass
   *     ({@link Recompute}: {@code auto} from {@link TeacherForcing#RECOMPUTE_FROM_BYTES} of them)
   * @param recomputeHead whether a training pass recomputes the output head's logits, chunk by chunk, in its
   *     backward pass instead of keeping a log-softmax over the vocabulary per scored token
   */
  public record UpdateSettings(
      int miniBatchTurns, int microBatchTurns, int microBatchTokens, int epochs, OldLogProbs oldLogProbs,
      boolean skipZeroAdvantage, AttentionKernel attention, Recompute recomputeLayers, Recompute recomputeHead) {
    /**
     * Validates.
     *
     * @param miniBatchTurns minibatch
     * @param microBatchTurns micro-batch
     * @param microBatchTokens micro-batch token slots, 0 for no limit
     * @param epochs epochs
     * @param oldLogProbs where the old log-probabilities come from
     * @param skipZeroAdvantage skip zero advantages
     * @param attention attention kernel
     * @param recomputeLayers recompute the layers
     * @param recomputeHead recompute the head
     */
    public UpdateSettings {
      ConfigException.requireGiven("update.old_log_probs", oldLogProbs);
      ConfigException.requireGiven("update.attention", attention);
      ConfigException.requireGiven("update.recompute_layers", recomputeLayers);
      ConfigException.requireGiven("update.recompute_head", recomputeHead);
      ConfigException.requireInRange("update.mini_batch_turns", miniBatchTurns, 1, 1 << 20);
      ConfigException.requireInRange("update.micro_batch_turns", microBatchTurns, 1, 1 << 20);
      ConfigException.requireInRange("update.micro_batch_tokens", microBatchTokens, 0, 1 << 30);
      ConfigException.requireInRange("update.epochs", epochs, 1, 1000);
    }

    /**
     * Settings with the memory-saving choices on {@code auto}.
     *
     * @param miniBatchTurns minibatch
     * @param microBatchTurns micro-batch
     * @param microBatchTokens micro-batch token slots, 0 for no limit
     * @param epochs epochs
     * @param oldLogProbs where the old log-probabilities come from
     * @param skipZeroAdvantage skip zero advantages
     */
    public UpdateSettings(int miniBatchTurns, int microBatchTurns, int microBatchTokens, int epochs,
        OldLogProbs oldLogProbs, boolean skipZeroAdvantage) {
      this(miniBatchTurns, microBatchTurns, microBatchTokens, epochs, oldLogProbs, skipZeroAdvantage,
          AttentionKernel.AUTO, Recompute.AUTO, Recompute.AUTO);
    }
  }

  /**
   * Checks every update must pass; a failed check redoes the update at half the learning rate (at most three times)
   * and undoes it after the last try.
   *
   * @param maxUpdateKl the largest mean per-token KL divergence an update may cause on its batch, 0 for no check
   * @param maxAnchorDrop the largest mean per-token drop of the anchors' log-probability, 0 for no check
   * @param anchorTurns how many scripted answers serve as anchors
   * @param anchorPolicy the environment's scripted policy whose answers are the anchors (answers in the format the
   *     model must keep), or {@code null} when there is no anchor check
   */
  public record CheckSettings(double maxUpdateKl, double maxAnchorDrop, int anchorTurns, String anchorPolicy) {
    /**
     * Validates.
     *
     * @param maxUpdateKl KL limit
     * @param maxAnchorDrop anchor drop limit
     * @param anchorTurns anchors
     * @param anchorPolicy anchor policy
     */
    public CheckSettings {
      ConfigException.requireInRange("checks.max_update_kl", maxUpdateKl, 0, 1e6);
      ConfigException.requireInRange("checks.max_anchor_drop", maxAnchorDrop, 0, 1e6);
      ConfigException.requireInRange("checks.anchor_turns", anchorTurns, 1, 1 << 16);
      if (anchorPolicy != null && anchorPolicy.isBlank()) {
        throw new ConfigException("checks.anchor_policy", "checks.anchor_policy must be a scripted policy id or"
            + " null, got an empty string");
      }
    }
  }

  /**
   * Validation during training: the training population and, for two-player games, each held-out validation
   * opponent of the environment, with the reference's evaluation sampling.
   *
   * @param every validate after every k-th iteration, 0 for never
   * @param metaEpisodes meta-episodes per validation set
   * @param heldOut whether the environment's held-out validation opponents get sets of their own
   */
  public record ValidationSettings(int every, int metaEpisodes, boolean heldOut) {
    /**
     * Validates.
     *
     * @param every interval
     * @param metaEpisodes meta-episodes per set
     * @param heldOut held-out sets
     */
    public ValidationSettings {
      ConfigException.requireInRange("validation.every", every, 0, MAX_ITERATIONS);
      ConfigException.requireInRange("validation.meta_episodes", metaEpisodes, 1, 65_536);
    }
  }

  /**
   * The checkpoint schedule (used when a run directory is given).
   *
   * @param every checkpoint after every k-th iteration and at the end, 0 for only at the end
   * @param keep how many of the latest checkpoints to keep, besides the best
   */
  public record CheckpointSettings(int every, int keep) {
    /**
     * Validates.
     *
     * @param every interval
     * @param keep kept checkpoints
     */
    public CheckpointSettings {
      ConfigException.requireInRange("checkpoints.every", every, 0, MAX_ITERATIONS);
      ConfigException.requireInRange("checkpoints.keep", keep, 1, 1000);
    }
  }

  /**
   * Full fine-tuning or a LoRA adapter.
   *
   * @param mode {@code full} (every weight; the KL reference is a frozen copy) or {@code lora} (an adapter; the KL
   *     reference is the base with the adapter off)
   * @param loraRank the adapter's rank (used with {@code lora})
   * @param loraAlpha the adapter's alpha; its output is scaled by alpha / rank
   * @param loraTargets the adapted projections: {@code all-linear} or module names ({@code q_proj}, ...)
   * @param baseModel the base model's name or path, written into the adapter's {@code adapter_config.json} as
   *     PEFT's {@code base_model_name_or_path}; {@code null} for none
   * @param adapter a PEFT adapter directory to continue training from (its own rank, alpha and targets then apply),
   *     or {@code null} for a new adapter
   */
  public record FineTuningSettings(String mode, int loraRank, double loraAlpha, List<String> loraTargets,
      String baseModel, String adapter) {
    /** Full fine-tuning. */
    public static final String FULL = "full";
    /** A LoRA adapter. */
    public static final String LORA = "lora";

    /**
     * Validates and copies.
     *
     * @param mode mode
     * @param loraRank rank
     * @param loraAlpha alpha
     * @param loraTargets targets
     * @param baseModel base model name or path, or null
     * @param adapter adapter directory to continue from, or null
     */
    public FineTuningSettings {
      if (!FULL.equals(mode) && !LORA.equals(mode)) {
        throw new ConfigException("fine_tuning.mode", "fine_tuning.mode must be full or lora, got '" + mode + "'");
      }
      ConfigException.requireInRange("fine_tuning.lora_rank", loraRank, 1, 65_536);
      if (!(loraAlpha > 0 && loraAlpha <= 1e6)) {
        throw new ConfigException("fine_tuning.lora_alpha", "fine_tuning.lora_alpha must be in (0, 1e6], got "
            + loraAlpha);
      }
      loraTargets = List.copyOf(ConfigException.requireGiven("fine_tuning.lora_targets", loraTargets));
      projections(loraTargets);
      if (adapter != null && !LORA.equals(mode)) {
        throw new ConfigException("fine_tuning.adapter", "fine_tuning.adapter needs fine_tuning.mode lora, got "
            + mode);
      }
    }

    /** @return whether the run trains a LoRA adapter */
    public boolean lora() {
      return LORA.equals(mode);
    }

    /** @return the adapted projections */
    public Set<Projection> projections() {
      return projections(loraTargets);
    }

    private static Set<Projection> projections(List<String> targets) {
      if (targets.size() == 1 && (targets.get(0).equals("all-linear") || targets.get(0).equals("all"))) {
        return EnumSet.allOf(Projection.class);
      }
      if (targets.isEmpty()) {
        throw new ConfigException("fine_tuning.lora_targets", "fine_tuning.lora_targets names no module; expected"
            + " all-linear or some of " + Projection.moduleNames());
      }
      List<Projection> out = new ArrayList<>();
      for (String t : targets) {
        out.add(Projection.fromModuleName(t.trim()).orElseThrow(() -> new ConfigException("fine_tuning.lora_targets",
            "fine_tuning.lora_targets: unknown module '" + t + "'; expected all-linear or some of "
                + Projection.moduleNames())));
      }
      return EnumSet.copyOf(out);
    }
  }

  /**
   * Where the policy runs and in which precision it trains. A host loads the policy on this device in this precision
   * ({@code Qwen3Checkpoint.Options.withDevice}, {@code withDtype(precision.dataType())}); {@code MageTrainer.create}
   * refuses a policy whose model is elsewhere or in another type. Rollouts, scoring, the update and validation all run
   * on that model.
   *
   * @param device {@code cpu}, {@code gpu} (the first CUDA device) or {@code gpu:N} (CUDA device N)
   * @param precision {@code float32}, or {@code float16} (FLOAT16 weights and passes, FLOAT32 master weights and
   *     optimizer state, dynamic loss scaling); {@code bfloat16} is refused (it aborts the JVM on DJL's PyTorch
   *     engine)
   */
  public record HardwareSettings(String device, Precision precision) {
    /** The device of every preset. */
    public static final String CPU = "cpu";

    /**
     * Validates and normalises the device's spelling (lower case, {@code gpu:0} as {@code gpu}).
     *
     * @param device device
     * @param precision precision
     */
    public HardwareSettings {
      ConfigException.requireGiven("hardware.device", device);
      ConfigException.requireGiven("hardware.precision", precision);
      try {
        device = canonical(parseDevice(device));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("hardware.device", "hardware.device " + e.getMessage());
      }
      if (precision == Precision.BFLOAT16) {
        throw new ConfigException("hardware.precision", Precision.BFLOAT16_REFUSED);
      }
    }

    /** @return the CPU in float32, what every preset trains on */
    public static HardwareSettings cpu() {
      return new HardwareSettings(CPU, Precision.FLOAT32);
    }

    /** @return the device as DJL names it ({@code Device.cpu()}, {@code Device.gpu(n)}) */
    public ai.djl.Device djlDevice() {
      return parseDevice(device);
    }

    /**
     * Reads a device: the one parser of {@code hardware.device}, {@code mage train --device}, {@code mage sft
     * --device} and {@code mage lora --device}.
     *
     * @param text {@code cpu}, {@code gpu} or {@code gpu:N} (any case, surrounding blanks ignored)
     * @return {@code Device.cpu()} or {@code Device.gpu(N)} ({@code gpu} is device 0)
     * @throws IllegalArgumentException whose message (without the option's name) says what was expected
     */
    public static ai.djl.Device parseDevice(String text) {
      String t = text == null ? "" : text.trim().toLowerCase(java.util.Locale.ROOT);
      if (t.equals(CPU)) {
        return ai.djl.Device.cpu();
      }
      if (t.equals("gpu")) {
        return ai.djl.Device.gpu(0);
      }
      if (t.startsWith("gpu:")) {
        String n = t.substring(4);
        if (!n.isEmpty() && n.length() <= 4 && n.chars().allMatch(Character::isDigit)) {
          return ai.djl.Device.gpu(Integer.parseInt(n));
        }
      }
      throw new IllegalArgumentException("must be cpu, gpu or gpu:N (N a CUDA device number), got '" + text + "'");
    }

    /**
     * @param d a device
     * @return its spelling in a config: {@code cpu}, {@code gpu} for device 0, {@code gpu:N} otherwise
     */
    public static String canonical(ai.djl.Device d) {
      if (!d.isGpu()) {
        return CPU;
      }
      return d.getDeviceId() <= 0 ? "gpu" : "gpu:" + d.getDeviceId();
    }
  }

  // ------------------------------------------------------------------------------------------------------ JSON

  /** @return the JSON form: every key, in declaration order, pretty-printed */
  public String toJson() {
    return PRETTY.toJson(toJsonObject()) + "\n";
  }

  /** @return the JSON form as a tree */
  public JsonObject toJsonObject() {
    return ConfigCodec.encode(this);
  }

  /**
   * The keys whose values differ between this config and another, in the order {@link #toJson()} writes them.
   *
   * @param other another config
   * @return the dotted keys ({@code adamw.learning_rate}, ...) whose values differ, empty for equal configs
   */
  public List<String> differences(TrainingConfig other) {
    return ConfigUpgrades.differences(toJsonObject(), other.toJsonObject());
  }


  /**
   * The algorithm's settings: everything but the budget and the bookkeeping (sizes, iterations, sampling limits,
   * validation, checkpoints, seed, threads, prompt wording, time-outs). Two runs whose algorithm JSON is equal train
   * with the same algorithm; {@code mage quickstart --print-config} and {@code mage train --preset mage
   * --print-config} agree on it.
   *
   * @return {@code credit}, {@code advantages}, {@code loss}, {@code adamw}, {@code update} (without the micro-batch
   *     size, which changes memory, not the gradient), {@code checks} and the rollout's {@code group_size}, {@code
   *     episodes}, {@code context_mode}, {@code early_stop}, {@code seating} and {@code opponent_assignment}
   */
  public JsonObject algorithmJson() {
    JsonObject all = toJsonObject();
    JsonObject o = new JsonObject();
    JsonObject r = new JsonObject();
    for (String k : List.of("group_size", "episodes", "context_mode", "early_stop", "seating",
        "opponent_assignment")) {
      r.add(k, all.getAsJsonObject("rollout").get(k));
    }
    o.add("rollout", r);
    for (String k : List.of("credit", "advantages", "loss", "adamw", "update", "checks")) {
      o.add(k, all.get(k));
    }
    o.getAsJsonObject("update").remove("micro_batch_turns");
    o.add("fine_tuning", all.getAsJsonObject("fine_tuning").get("mode"));
    return o;
  }

  /**
   * Reads a complete config (every key present, as {@link #toJson()} writes it; a config written before {@code
   * update.micro_batch_tokens}, {@code update.old_log_probs}, the memory-saving keys or {@code
   * rollout.opponent_assignment} or {@code hardware} existed reads as it ran: no token limit, the former {@code
   * update.recompute_old_log_probs}, explicit attention and no recomputation, opponents drawn every iteration, the
   * CPU in float32).
   *
   * @param json the JSON text
   * @return the config
   * @throws ConfigException naming the key of a missing, unknown, mistyped or out-of-range value, or {@code (json)}
   *     for text that is not a JSON object
   */
  public static TrainingConfig fromJson(String json) {
    JsonObject o = ConfigUpgrades.parseObject(json);
    JsonElement update = o.get("update");
    if (update != null && update.isJsonObject() && !update.getAsJsonObject().has("micro_batch_tokens")) {
      // a complete config written before update.micro_batch_tokens existed (a checkpoint's): it ran without a
      // token limit, and resumes so
      update.getAsJsonObject().addProperty("micro_batch_tokens", 0);
    }
    if (!o.has("hardware")) {
      // a complete config written before the hardware section existed: it ran on the CPU in float32
      o.add("hardware", ConfigCodec.encode(HardwareSettings.cpu()));
    }
    if (update != null && update.isJsonObject() && !update.getAsJsonObject().has("attention")
        && !update.getAsJsonObject().has("recompute_layers") && !update.getAsJsonObject().has("recompute_head")) {
      // written before the memory-saving passes existed: it ran with explicit attention and kept every activation
      update.getAsJsonObject().addProperty("attention", "explicit");
      update.getAsJsonObject().addProperty("recompute_layers", "off");
      update.getAsJsonObject().addProperty("recompute_head", "off");
    }
    return ConfigCodec.decode(TrainingConfig.class, o, "");
  }

  /**
   * Reads a config that may give only some keys: the rest come from the preset it names ({@code "preset"}, default
   * {@code mage}) for the environment it names ({@code "environment": {"id": ...}}, required), with the
   * environment's defaults.
   *
   * @param json the JSON text
   * @param registry where the environment is found
   * @return the config
   * @throws ConfigException naming the key of an unknown, mistyped or out-of-range value
   */
  public static TrainingConfig fromJson(String json, EnvironmentRegistry registry) {
    JsonObject o = ConfigUpgrades.parseObject(json);
    String preset = TrainingPreset.MAGE.id();
    if (o.has("preset")) {
      JsonElement p = o.get("preset");
      if (!p.isJsonPrimitive() || !p.getAsJsonPrimitive().isString()) {
        throw new ConfigException("preset", "config key 'preset' must be a preset name, got " + p);
      }
      preset = p.getAsString();
    }
    JsonElement env = o.has("environment") && o.get("environment").isJsonObject()
        ? o.getAsJsonObject("environment").get("id") : null;
    if (env == null || !env.isJsonPrimitive() || !env.getAsJsonPrimitive().isString()) {
      throw new ConfigException("environment.id", "config key 'environment.id' is required (an environment id, see"
          + " `mage envs`)");
    }
    java.util.Optional<TrainingPreset> known = TrainingPreset.find(preset);
    java.util.Set<String> complete = new java.util.LinkedHashSet<>(ConfigCodec.keys(TrainingConfig.class));
    complete.remove("hardware"); // a complete config written before the section existed ran on the CPU in float32
    if (known.isEmpty() && o.keySet().containsAll(complete)) {
      // a complete config under a name of its own: nothing to fill in
      if (!o.has("hardware")) {
        o.add("hardware", ConfigCodec.encode(HardwareSettings.cpu()));
      }
      return ConfigCodec.decode(TrainingConfig.class, o, "");
    }
    TrainingPreset p = known.orElseThrow(() -> TrainingPreset.unknown(o.get("preset").getAsString(),
        " (a config under a name of its own must give every key)"));
    TrainingConfig base = p.config(TrainerFactory.provider(registry, env.getAsString()));
    JsonObject merged = ConfigCodec.overlay(TrainingConfig.class, base.toJsonObject(), o, "");
    return ConfigCodec.decode(TrainingConfig.class, merged, "");
  }

  /**
   * Reads a config file ({@link #fromJson(String, EnvironmentRegistry)}); errors name the file.
   *
   * @param file the file
   * @param registry where the environment is found
   * @return the config
   * @throws ConfigException naming the file and the key
   */
  public static TrainingConfig read(Path file, EnvironmentRegistry registry) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException("", file + ": no such config file");
    } catch (AccessDeniedException e) {
      throw new ConfigException("", file + ": permission denied");
    } catch (IOException e) {
      throw new ConfigException("", file + ": cannot read the config file: " + e.getMessage());
    }
    try {
      return fromJson(text, registry);
    } catch (ConfigException e) {
      throw e.in(file.toString());
    }
  }

  // ------------------------------------------------------------------------------------------------------ changes

  /**
   * This config with one value changed.
   *
   * @param dottedKey the key as in the JSON form ({@code adamw.learning_rate}, {@code environment.options.reward})
   * @param value the new value: a number, boolean, string, enum constant, list of strings, or {@code null} for a
   *     nullable key
   * @return the new config
   * @throws ConfigException naming the key when it is unknown or the value does not fit
   */
  public TrainingConfig with(String dottedKey, Object value) {
    return toBuilder().set(dottedKey, value).build();
  }

  /** @return a builder holding this config's values */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Builds a config from another by changing keys. Changes are applied in order; {@link #build()} checks the result.
   */
  public static final class Builder {
    private JsonObject json;

    private Builder(TrainingConfig base) {
      json = base.toJsonObject();
    }

    /**
     * Sets one key.
     *
     * @param dottedKey the key as in the JSON form
     * @param value the value (see {@link TrainingConfig#with})
     * @return this builder
     * @throws ConfigException naming the key when it is unknown or the value does not fit its type
     */
    public Builder set(String dottedKey, Object value) {
      Objects.requireNonNull(dottedKey, "dottedKey");
      if (dottedKey.equals("update." + ConfigUpgrades.LEGACY_RECOMPUTE_KEY) && value != null) {
        return set("update.old_log_probs", ConfigUpgrades.legacyRecompute(String.valueOf(value)));
      }
      if (value instanceof Map<?, ?>) {
        JsonObject map = new JsonObject();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
          map.addProperty(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
        }
        String[] parts = dottedKey.split("\\.");
        JsonObject patch = new JsonObject();
        JsonObject at = patch;
        for (int i = 0; i < parts.length - 1; i++) {
          JsonObject sub = new JsonObject();
          at.add(parts[i], sub);
          at = sub;
        }
        at.add(parts[parts.length - 1], map);
        json = ConfigCodec.overlay(TrainingConfig.class, json, patch, "");
      } else if (value == null) {
        json = ConfigCodec.set(TrainingConfig.class, json, dottedKey, "null");
      } else if (value instanceof List<?>) {
        List<String> items = new ArrayList<>();
        for (Object v : (List<?>) value) {
          items.add(String.valueOf(v));
        }
        json = ConfigCodec.set(TrainingConfig.class, json, dottedKey, String.join(",", items));
      } else if (value instanceof Enum<?>) {
        json = ConfigCodec.set(TrainingConfig.class, json, dottedKey, ((Enum<?>) value).name());
      } else {
        json = ConfigCodec.set(TrainingConfig.class, json, dottedKey, String.valueOf(value));
      }
      return this;
    }

    /**
     * Sets one key from command-line text ({@code --set KEY=VALUE}).
     *
     * @param assignment {@code KEY=VALUE}
     * @return this builder
     * @throws ConfigException naming the key when it is unknown or the value does not fit its type
     */
    public Builder set(String assignment) {
      int eq = assignment.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException("", "--set wants KEY=VALUE (for example rollout.tasks=8), got '" + assignment
            + "'");
      }
      String key = assignment.substring(0, eq).trim();
      if (key.equals("update." + ConfigUpgrades.LEGACY_RECOMPUTE_KEY)) {
        return set(key, (Object) assignment.substring(eq + 1));
      }
      json = ConfigCodec.set(TrainingConfig.class, json, key, assignment.substring(eq + 1));
      return this;
    }

    /**
     * The {@code credit} section, typed: the compiler checks what a string key would check at run time.
     *
     * @param v the credit assignment's settings
     * @return this builder
     */
    public Builder credit(CreditConfig v) {
      json.add("credit", ConfigCodec.encode(Objects.requireNonNull(v, "credit")));
      return this;
    }

    /**
     * The {@code adamw} section, typed.
     *
     * @param v AdamW's settings
     * @return this builder
     */
    public Builder adamw(AdamWConfig v) {
      json.add("adamw", ConfigCodec.encode(Objects.requireNonNull(v, "adamw")));
      return this;
    }

    /**
     * @param v the iterations {@code fit()} trains until
     * @return this builder
     */
    public Builder iterations(int v) {
      return set("iterations", v);
    }

    /**
     * @param v the base seed of the run
     * @return this builder
     */
    public Builder seed(long v) {
      return set("seed", v);
    }

    /**
     * Lays a JSON object of some keys over the config (as a config file does over its preset).
     *
     * @param patch some keys
     * @return this builder
     * @throws ConfigException naming an unknown key
     */
    public Builder merge(JsonObject patch) {
      json = ConfigCodec.overlay(TrainingConfig.class, json, ConfigUpgrades.upgraded(patch.deepCopy()), "");
      return this;
    }

    /** @return the config, checked */
    public TrainingConfig build() {
      return ConfigCodec.decode(TrainingConfig.class, json, "");
    }
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(java.util.Locale.ROOT);
  }
}
