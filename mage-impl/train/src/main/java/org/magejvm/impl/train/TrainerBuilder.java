package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.OldLogProbs;
import org.magejvm.impl.train.update.ReferencePolicy;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.checkpoint.CheckpointWeights;
import org.magejvm.impl.train.listen.ChartListener;
import org.magejvm.impl.train.listen.LoggingListener;
import org.magejvm.impl.train.listen.MetricsFileListener;
import org.magejvm.impl.train.listen.ProgressBarListener;
import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * Configures a {@link MageTrainer}: from a {@link TrainingConfig} ({@link MageTrainer#builder(TrainingConfig,
 * org.magejvm.impl.llm.DjlLanguagePolicy, org.magejvm.spi.EnvironmentRegistry)}) plus what a config does not describe
 * (a run directory, listeners, remote rollouts), or part by part for tests and measurements.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class TrainerBuilder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MageTrainer.class);
  TrainingConfig trainingConfig;
  final List<AutoCloseable> owned = new ArrayList<>();
  java.util.function.Function<Path, CheckpointManager.Builder> checkpointsFromConfig;
  EnvironmentRegistry registry;
  DjlLanguagePolicy policy;
  LanguagePolicy rolloutPolicy;
  PolicySync policySync;
  RolloutConfig rollout;
  CreditConfig credit;
  PolicyOptimizer optimizer;
  AdamW adamw;
  ReferencePolicy reference;
  FineTuning fineTuning;
  PolicyUpdater.Settings updateSettings = PolicyUpdater.Settings.defaults();
  OldLogProbs oldLogProbs;
  List<PolicyUpdater.Row> anchorTurns = List.of();
  final List<Validation> validations = new ArrayList<>();
  int validateEvery = 5;
  double maxFailureShare = 0.25;
  long seed;
  final List<TrainingListener> listeners = new ArrayList<>();
  int startIteration;
  MemoryProbe memory;
  CheckpointManager checkpoints;
  Path baseModel;
  Path runDirectory;
  Boolean progressBar;

  TrainerBuilder() {}

  /**
   * @param v the checkpoint directory the policy was loaded from, which {@link MageTrainer#save} copies the config,
   *     tokenizer and chat template of (or names as a LoRA adapter's base) and {@link #optRunDirectory} records;
   *     by default the one {@link MageTrainer#baseModel()} finds (the policy's own directory when it was made by
   *     {@code Qwen3Checkpoint.loadPolicy})
   * @return this builder
   */
  public TrainerBuilder optBaseModel(Path v) {
    baseModel = v;
    return this;
  }

  /**
   * Writes the run into one directory, as {@code mage train --out} does, with the library's default listener set:
   * {@code config.json} (the config, written now), {@code metrics.jsonl} (a {@link MetricsFileListener}, the first
   * listener), one log line per iteration ({@link LoggingListener}), {@code charts/} ({@link ChartListener}), a
   * progress bar on a terminal ({@link #optProgressBar}) and {@code checkpoints/} ({@code iter-NNNNNNNN/} and
   * {@code best.json}) on the config's schedule ({@code checkpoints.every}, {@code checkpoints.keep}, and always at
   * the end of {@link MageTrainer#fit}). The trainer closes what it opened. Only for builders made from a {@link
   * TrainingConfig}; for checkpoints alone use {@link #optCheckpointDirectory}.
   *
   * @param runDir the run directory (created if missing)
   * @return this builder
   * @throws IllegalStateException for a builder not made from a config, or when the base model is unknown (see
   *     {@link #optBaseModel})
   * @throws TrainingException when {@code config.json} cannot be written
   */
  public TrainerBuilder optRunDirectory(Path runDir) {
    return optRunDirectory(runDir, new JsonObject());
  }

  /**
   * {@link #optRunDirectory(Path)}, recording {@code run} beside the config in every checkpoint.
   *
   * @param runDir the run directory (created if missing)
   * @param run what the caller records beside the config (for example its command line), may be empty
   * @return this builder
   * @throws IllegalStateException for a builder not made from a config, or when the base model is unknown
   * @throws TrainingException when {@code config.json} cannot be written
   */
  public TrainerBuilder optRunDirectory(Path runDir, JsonObject run) {
    if (checkpointsFromConfig == null) {
      throw new IllegalStateException("optRunDirectory needs a builder made from a TrainingConfig"
          + " (MageTrainer.builder(config, policy, registry))");
    }
    Path base = MageTrainer.resolveBaseModel(baseModel, trainingConfig, policy).orElseThrow(() -> new IllegalStateException(
        "optRunDirectory: the checkpoint the policy was loaded from is unknown; give it with optBaseModel(dir)"));
    Path config = runDir.resolve("config.json");
    try {
      java.nio.file.Files.createDirectories(runDir);
      org.magejvm.api.util.AtomicFiles.writeString(config, trainingConfig.toJson());
    } catch (java.io.IOException e) {
      throw new TrainingException("cannot write " + config + ": " + e.getMessage(), e);
    }
    optCheckpointDirectory(runDir.resolve(TrainingCheckpoint.CHECKPOINTS_DIR), base, run);
    runDirectory = runDir;
    return this;
  }

  /**
   * The progress bar of a run directory ({@link #optRunDirectory}): {@code null} (the default) shows it when the
   * process has a terminal, {@code true} always, {@code false} never.
   *
   * @param v whether to show it
   * @return this builder
   */
  public TrainerBuilder optProgressBar(Boolean v) {
    progressBar = v;
    return this;
  }

  /**
   * @param v where environments are found
   * @return this builder
   */
  public TrainerBuilder setRegistry(EnvironmentRegistry v) {
    registry = v;
    return this;
  }

  /**
   * @param v the policy to train (a Qwen3 policy whose model the optimizer's parameters belong to)
   * @return this builder
   */
  public TrainerBuilder setPolicy(DjlLanguagePolicy v) {
    policy = v;
    return this;
  }

  /**
   * @param v the policy the training rollouts go through, when not the trained one (for example a remote policy
   *     over inference servers serving the trained adapter); the update then needs recomputed old
   *     log-probabilities ({@link PolicyUpdater.Settings#recomputeOldLogProbs}), and a {@link PolicySync} keeps
   *     the servers on the current weights
   * @return this builder
   */
  public TrainerBuilder optRolloutPolicy(LanguagePolicy v) {
    rolloutPolicy = v;
    return this;
  }

  /**
   * @param v called before the first rollout and after every update to push the trainer's weights to the rollout
   *     policy (see {@link PolicySync}); for LoRA runs, {@link LoraAdapterSync}
   * @return this builder
   */
  public TrainerBuilder optPolicySync(PolicySync v) {
    policySync = v;
    return this;
  }

  /**
   * @param v the training rollout (its seed and sampling seed are replaced per iteration)
   * @return this builder
   */
  public TrainerBuilder setRollout(RolloutConfig v) {
    rollout = v;
    return this;
  }

  /**
   * @param v how rewards become returns and scores
   * @return this builder
   */
  public TrainerBuilder setCredit(CreditConfig v) {
    credit = v;
    return this;
  }

  /**
   * @param v the policy optimizer (advantages and loss), found by id through ServiceLoader
   * @return this builder
   */
  public TrainerBuilder setOptimizer(PolicyOptimizer v) {
    optimizer = v;
    return this;
  }

  /**
   * @param v AdamW over the trainable parameters of the policy's model
   * @return this builder
   */
  public TrainerBuilder setAdamW(AdamW v) {
    adamw = v;
    return this;
  }

  /**
   * @param v the frozen reference model for the KL term (required when the optimizer's KL coefficient is not 0)
   * @return this builder
   */
  public TrainerBuilder optReference(Qwen3Model v) {
    reference = v == null ? null : ReferencePolicy.frozen(v);
    return this;
  }

  /**
   * @param v the reference policy for the KL term, for example {@link ReferencePolicy#of} a LoRA setup (the
   *     trained model with its adapter switched off: no second copy of the weights)
   * @return this builder
   */
  public TrainerBuilder optReference(ReferencePolicy v) {
    reference = v;
    return this;
  }

  /**
   * The fine-tuning setup: which parameters train and where the KL reference comes from. With {@code
   * FineTuning.lora(model, adapter)} the run trains a LoRA adapter: the {@link AdamW} must be built over {@code
   * fineTuning.trainableParameters()} (A and B only), the KL reference (unless {@link #optReference} sets another)
   * is the base model with the adapter off ({@link ReferencePolicy#of}), checkpoints must use {@link
   * CheckpointWeights#of CheckpointWeights.of(fineTuning, ...)}, and {@link MageTrainer#resume} restores the
   * adapter. Optional for full fine-tuning; the setup stays the caller's (close it after training).
   *
   * @param v the setup, whose model must be the policy's
   * @return this builder
   */
  public TrainerBuilder optFineTuning(FineTuning v) {
    fineTuning = v;
    return this;
  }

  /**
   * @param v minibatch, micro-batch, epochs, old log-prob source, zero-advantage skipping
   * @return this builder
   */
  public TrainerBuilder optUpdateSettings(PolicyUpdater.Settings v) {
    updateSettings = Objects.requireNonNull(v, "updateSettings");
    return this;
  }

  /**
   * Chooses where the old log-probabilities come from when the trainer is built, replacing {@link
   * PolicyUpdater.Settings#recomputeOldLogProbs()}: {@link OldLogProbs#AUTO} uses the recorded ones exactly when
   * the rollouts run on the trained policy (no {@link #optRolloutPolicy remote policy}), the model computes in
   * float32 and the rollout samples at temperature 1; otherwise it recomputes them.
   *
   * @param v the source, or null to keep the update settings' choice
   * @return this builder
   */
  public TrainerBuilder optOldLogProbs(OldLogProbs v) {
    oldLogProbs = v;
    return this;
  }

  /**
   * Turns whose log-probabilities no update may lower by more than {@link PolicyUpdater.Settings#maxAnchorDrop()}
   * per token (see {@link PolicyUpdater#PolicyUpdater(Qwen3Model, ReferencePolicy, PolicyOptimizer, AdamW,
   * PolicyUpdater.Settings, List)}); used only when that limit is above 0.
   *
   * @param v the anchor turns, for example a few hundred warm-start transcripts tokenized as the policy sees them
   * @return this builder
   */
  public TrainerBuilder optAnchorTurns(List<PolicyUpdater.Row> v) {
    anchorTurns = List.copyOf(Objects.requireNonNull(v, "anchorTurns"));
    return this;
  }

  /**
   * @param v a validation set
   * @return this builder
   */
  public TrainerBuilder addValidation(Validation v) {
    validations.add(Objects.requireNonNull(v, "validation"));
    return this;
  }

  /**
   * @param v validate after every {@code v}-th iteration (0: never; default 5)
   * @return this builder
   */
  public TrainerBuilder optValidateEvery(int v) {
    validateEvery = v;
    return this;
  }

  /**
   * @param v the largest share of an iteration's meta-episodes that may fail before the run stops (default 0.25)
   * @return this builder
   */
  public TrainerBuilder optMaxFailureShare(double v) {
    maxFailureShare = v;
    return this;
  }

  /**
   * @param v the base seed of every iteration's rollouts and of validation
   * @return this builder
   */
  public TrainerBuilder optSeed(long v) {
    seed = v;
    return this;
  }

  /**
   * @param v a listener
   * @return this builder
   */
  public TrainerBuilder addListener(TrainingListener v) {
    listeners.add(Objects.requireNonNull(v, "listener"));
    return this;
  }

  /**
   * @param v writes checkpoints every k iterations and at the end of {@code fit} (default: none)
   * @return this builder
   */
  public TrainerBuilder optCheckpoints(CheckpointManager v) {
    checkpoints = v;
    return this;
  }

  /**
   * @param v measures each phase's peak memory into the metrics {@code memory/rollout_peak_mib},
   *     {@code memory/scoring_peak_mib} (old and reference log-probs) and {@code memory/update_peak_mib}
   *     (for example {@link MemoryProbe#processRss()}); null (the default) reports none
   * @return this builder
   */
  public TrainerBuilder optMemoryProbe(MemoryProbe v) {
    memory = v;
    return this;
  }

  /**
   * Checkpoints into {@code directory} on the config's schedule ({@code checkpoints.every}, {@code
   * checkpoints.keep}), keeping the best by the population's last-attempt success rate and recording the config
   * (and {@code run}, what the caller adds) in every checkpoint. Only for builders made from a {@link
   * TrainingConfig}.
   *
   * @param directory the checkpoints directory ({@code RUN_DIR/checkpoints})
   * @param baseModel the directory of the model the run started from (recorded with full weights; the base of a
   *     LoRA adapter)
   * @param run what the caller records beside the config (for example its command line), may be empty
   * @return this builder
   * @throws IllegalStateException for a builder not made from a config
   */
  public TrainerBuilder optCheckpointDirectory(Path directory, Path baseModel, JsonObject run) {
    if (checkpointsFromConfig == null) {
      throw new IllegalStateException("optCheckpointDirectory needs a builder made from a TrainingConfig;"
          + " use optCheckpoints otherwise");
    }
    if (this.baseModel == null) {
      this.baseModel = baseModel; // what MageTrainer.save copies the config and tokenizer from
    }
    JsonObject record = run.deepCopy();
    record.add(TrainingCheckpoint.CONFIG_KEY, trainingConfig.toJsonObject());
    checkpoints = checkpointsFromConfig.apply(baseModel).setDirectory(directory).optRunConfiguration(record)
        .build();
    return this;
  }

  void own(AutoCloseable resource) {
    owned.add(0, resource);
  }

  void fromConfig(TrainingConfig config, java.util.function.Function<Path, CheckpointManager.Builder> cps) {
    trainingConfig = config;
    checkpointsFromConfig = cps;
  }

  /** @return the AdamW the builder holds (made from the config, or given) */
  public AdamW adamW() {
    return adamw;
  }

  /** @return the fine-tuning setup the builder holds, if any */
  public Optional<FineTuning> fineTuning() {
    return Optional.ofNullable(fineTuning);
  }

  /**
   * Releases what the builder created from a config, for a builder whose {@link #build()} is never called (a
   * built trainer releases it in {@link MageTrainer#close()}).
   */
  @Override
  public void close() {
    MageTrainer.closeAll(owned);
    owned.clear();
  }

  /**
   * @param v the iteration to continue from (a resumed run; {@link MageTrainer#resume} sets it from a checkpoint)
   * @return this builder
   */
  public TrainerBuilder optStartIteration(int v) {
    startIteration = v;
    return this;
  }

  /** @return the trainer */
  public MageTrainer build() {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(rollout, "rollout");
    Objects.requireNonNull(credit, "credit");
    Objects.requireNonNull(optimizer, "optimizer");
    Objects.requireNonNull(adamw, "adamw");
    if (fineTuning != null) {
      checkFineTuning();
    }
    if (oldLogProbs != null) {
      boolean local = rolloutPolicy == null || rolloutPolicy == policy;
      boolean float32 = MageTrainer.modelOf(policy).outputType() == ai.djl.ndarray.types.DataType.FLOAT32
          && MageTrainer.modelOf(policy).dtype() == ai.djl.ndarray.types.DataType.FLOAT32;
      double temperature = rollout.sampling().map(SamplingConfig::temperature).orElse(Double.NaN);
      boolean recompute = oldLogProbs.recompute(local, float32, temperature);
      updateSettings = updateSettings.withRecomputeOldLogProbs(recompute);
      LOG.info("old log-probabilities: {} (update.old_log_probs {}; rollout {}, model {}, temperature {})",
          recompute ? "recomputed before each update" : "the ones recorded while sampling",
          oldLogProbs.name().toLowerCase(java.util.Locale.ROOT), local ? "local" : "remote",
          MageTrainer.modelOf(policy).dtype(), temperature);
    }
    if (rolloutPolicy != null && rolloutPolicy != policy && !updateSettings.recomputeOldLogProbs()) {
      throw new IllegalArgumentException("the rollouts go through '" + rolloutPolicy.name() + "', not the trained"
          + " policy '" + policy.name() + "': its recorded log-probabilities come from another engine (and may"
          + " lag the trainer's weights), so the old log-probabilities must be recomputed locally; build"
          + " PolicyUpdater.Settings with recomputeOldLogProbs = true");
    }
    if (optimizer.config().klCoefficient() > 0 && reference == null) {
      throw new IllegalArgumentException("the optimizer's KL coefficient is " + optimizer.config().klCoefficient()
          + " but no reference model was given; pass optReference(...) or set the KL coefficient to 0");
    }
    if (validateEvery < 0 || startIteration < 0) {
      throw new IllegalArgumentException("validateEvery and startIteration must be >= 0");
    }
    if (!(maxFailureShare >= 0 && maxFailureShare <= 1)) {
      throw new IllegalArgumentException("maxFailureShare must be in [0, 1], got " + maxFailureShare);
    }
    registry.require(rollout.environmentId());
    java.util.Set<String> names = new java.util.HashSet<>();
    for (Validation v : validations) {
      if (!names.add(v.name())) {
        throw new IllegalArgumentException("two validation sets are named '" + v.name() + "'; their metrics would"
            + " overwrite each other");
      }
    }
    if (runDirectory != null) {
      addRunDirectoryListeners();
    }
    MageTrainer trainer = new MageTrainer(this);
    owned.clear(); // the trainer owns them now
    return trainer;
  }

  /** The default listener set of a run directory, ahead of the caller's listeners (the bar after them). */
  private void addRunDirectoryListeners() {
    MetricsFileListener metrics = new MetricsFileListener(runDirectory);
    own(metrics);
    // first: listeners added by the caller may read the file
    listeners.addAll(0, List.of(metrics, new LoggingListener(), new ChartListener(runDirectory)));
    if (!Boolean.FALSE.equals(progressBar)) {
      ProgressBarListener bar = new ProgressBarListener(Boolean.TRUE.equals(progressBar));
      own(bar);
      if (bar.enabled()) {
        listeners.add(bar);
      }
    }
    runDirectory = null;
  }

  private void checkFineTuning() {
    if (fineTuning.model() != MageTrainer.modelOf(policy)) {
      throw new IllegalArgumentException("the fine-tuning setup's model is not the policy's model");
    }
    if (!adamw.parameters().keySet().equals(fineTuning.trainableParameters().keySet())) {
      throw new IllegalArgumentException("AdamW must update the fine-tuning setup's trainable parameters ("
          + fineTuning.mode() + ": " + fineTuning.trainableParameters().size() + " arrays), but it holds "
          + adamw.parameters().size() + "; build it over fineTuning.trainableParameters()");
    }
    if (reference == null && fineTuning.hasReference()) {
      reference = ReferencePolicy.of(fineTuning);
    }
    if (checkpoints != null) {
      String kind = CheckpointWeights.of(fineTuning, null).kind();
      if (!checkpoints.weights().kind().equals(kind)) {
        throw new IllegalArgumentException("the checkpoints save '" + checkpoints.weights().kind()
            + "' weights, but the run trains '" + kind + "' weights; use CheckpointWeights.of(fineTuning, dir)");
      }
    }
  }
}
