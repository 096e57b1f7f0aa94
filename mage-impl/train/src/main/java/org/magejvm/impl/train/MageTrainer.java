package org.magejvm.impl.train;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Advantages;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Turn;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * The MAGE training loop. One {@link #step()} is one iteration of the reference's training (spec section 11): play a
 * batch of meta-episodes with the current policy (training sampling), assign credit (differential, cumulative or
 * single-episode returns), compute GiGPO or GRPO advantages, recompute old (and reference) log-probabilities, run the
 * minibatch updates, and report metrics. Every few iterations it validates with the evaluation sampling against
 * the configured opponents.
 *
 * <p>Reproducible: iteration {@code i} draws its tasks, opponents, seats and sampling seeds from {@code (seed, i)}
 * only, so a run restored at iteration {@code i} (weights and optimizer state) continues exactly as an uninterrupted
 * one on the same CPU and thread count.
 *
 * <p>With a {@link CheckpointManager} ({@link Builder#optCheckpoints}) it writes a checkpoint after every k-th
 * iteration and at the end of {@link #fit(int)}, always after the listeners have seen the iteration's metrics (so a
 * metrics file never lacks an iteration a checkpoint holds). {@link #resume(TrainingCheckpoint)} continues a run.
 *
 * <p>LoRA: give the fine-tuning setup ({@link Builder#optFineTuning}, {@code FineTuning.lora(model, adapter)}) and an
 * {@link AdamW} over its {@code trainableParameters()}. The KL reference is then the base model with the adapter
 * switched off (no second copy of the weights), checkpoints hold the adapter in PEFT layout
 * ({@link LoraAdapterWeights}) and the AdamW state over the adapter's matrices only.
 *
 * <p>Remote rollouts: with {@link Builder#optRolloutPolicy} the training rollouts go through another policy (for
 * example {@code OpenAiCompletionsPolicy} over inference servers) while the update runs on the trained policy's
 * model; the old log-probabilities are then recomputed locally (required), and a {@link PolicySync} (for LoRA, {@link
 * LoraAdapterSync}) brings the servers to the trainer's weights before the first rollout and after every update.
 * Validation rolls out with the trained policy in process.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class MageTrainer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MageTrainer.class);

  /** @return the metric as a whole number, 0 when absent */
  private static int number(Map<String, Object> metrics, String key) {
    Object v = metrics.get(key);
    return v instanceof Number n ? n.intValue() : 0;
  }

  /** @return the metric as a rate, 0 when absent */
  private static double fraction(Map<String, Object> metrics, String key) {
    Object v = metrics.get(key);
    return v instanceof Number n ? n.doubleValue() : 0;
  }

  /** Seed stream of the training rollouts of each iteration. */
  static final long ITERATION_STREAM = 101;
  /** Seed stream of validation rollouts (the same for every validation, so curves compare like with like). */
  static final long VALIDATION_STREAM = 102;

  /**
   * A validation set.
   *
   * <p>The metrics of the set named {@code ""} (the training population) are reported as {@code val/KEY} and, per
   * opponent, {@code val/OPPONENT/KEY}. Those of a set with any other name {@code NAME} are reported as {@code
   * val/NAME/KEY} (the set's totals; such a set is meant to face one fixed opponent). A held-out opponent's set
   * ({@link #heldOut}) is named {@code heldout/OPPONENT}, so its metrics are {@code val/heldout/OPPONENT/KEY}: they
   * never overwrite the population's {@code val/OPPONENT/KEY} when the opponent is also in the training pool
   * (Tic-Tac-Toe's {@code mcts-100}). {@code KEY} is a metric name as {@code mage play --json} writes it ({@code
   * success_rate[2]}, ...).
   *
   * @param name {@code ""} for the population, else a label unique among the trainer's validation sets
   * @param config the evaluation rollout (its sampling should be the evaluation sampling)
   */
  public record Validation(String name, RolloutConfig config) {

    /** The name prefix of held-out opponents' sets ({@link #heldOut}). */
    public static final String HELD_OUT = "heldout";

    /**
     * Validates.
     *
     * @param name label
     * @param config rollout
     */
    public Validation {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(config, "config");
    }

    /**
     * The validation set of a held-out opponent, named {@code heldout/OPPONENT}: its metrics are {@code
     * val/heldout/OPPONENT/KEY}.
     *
     * @param opponent the opponent's id
     * @param config the evaluation rollout against that opponent alone
     * @return the set
     */
    public static Validation heldOut(String opponent, RolloutConfig config) {
      if (Objects.requireNonNull(opponent, "opponent").isEmpty()) {
        throw new IllegalArgumentException("the held-out opponent's id is empty");
      }
      return new Validation(HELD_OUT + "/" + opponent, config);
    }
  }

  private final EnvironmentRegistry registry;
  private final EnvironmentProvider provider;
  private final DjlLanguagePolicy policy;
  private final LanguagePolicy rolloutPolicy;
  private final PolicySync policySync;
  private boolean syncPending = true;
  private final RolloutConfig rollout;
  private final CreditConfig creditConfig;
  private final CreditAssigner credit;
  private final PolicyOptimizer optimizer;
  private final AdamW adamw;
  private final PolicyUpdater updater;
  private final StallWatch stallWatch = new StallWatch();
  private final PolicyUpdater.Settings updateSettings;
  private final boolean withReference;
  private final FineTuning fineTuning;
  private final CheckpointManager checkpoints;
  private final List<Validation> validations;
  private final int validateEvery;
  private final double maxFailureShare;
  private final long seed;
  private final List<TrainingListener> listeners;
  private final MemoryProbe memory;
  private int iteration;
  private Map<String, Object> lastMetrics = Map.of();
  private int lastCheckpoint = -1;
  private final TrainingConfig trainingConfig;
  private final Path baseModel;
  private final List<AutoCloseable> owned;
  private boolean closed;

  private MageTrainer(Builder b) {
    registry = b.registry;
    provider = b.registry.require(b.rollout.environmentId());
    policy = b.policy;
    rolloutPolicy = b.rolloutPolicy == null ? b.policy : b.rolloutPolicy;
    policySync = b.policySync;
    rollout = b.rollout;
    creditConfig = b.credit;
    credit = new CreditAssigner(b.credit);
    optimizer = b.optimizer;
    adamw = b.adamw;
    Qwen3Model model = modelOf(policy);
    updater = new PolicyUpdater(model, b.reference, optimizer, adamw, b.updateSettings, b.anchorTurns);
    updateSettings = b.updateSettings;
    withReference = b.reference != null;
    fineTuning = b.fineTuning;
    checkpoints = b.checkpoints;
    validations = List.copyOf(b.validations);
    validateEvery = b.validateEvery;
    maxFailureShare = b.maxFailureShare;
    trainingConfig = b.trainingConfig;
    baseModel = b.baseModel;
    owned = List.copyOf(b.owned);
    seed = b.seed;
    listeners = List.copyOf(b.listeners);
    memory = b.memory;
    iteration = b.startIteration;
  }

  private void resetPeak() {
    if (memory != null) {
      memory.reset();
    }
  }

  /** The peak of the phase that just ended, and a reset for the next one; NaN without a probe. */
  private double phasePeak() {
    if (memory == null) {
      return Double.NaN;
    }
    double peak = memory.peakMiB();
    memory.reset();
    return peak;
  }

  /**
   * The Qwen3 model behind a policy built by {@code Qwen3Checkpoint.loadPolicy} or with a {@link Qwen3Generator}.
   *
   * @param policy the policy
   * @return its model
   * @throws IllegalArgumentException when the policy does not generate with a {@link Qwen3Generator}
   */
  public static Qwen3Model modelOf(DjlLanguagePolicy policy) {
    if (!(policy.generator() instanceof Qwen3Generator)) {
      throw new IllegalArgumentException("policy '" + policy.name() + "' generates with "
          + policy.generator().getClass().getName() + "; training needs a Qwen3Generator over the model to train");
    }
    return ((Qwen3Generator) policy.generator()).model();
  }

  /** @return the number of iterations done so far */
  public int iteration() {
    return iteration;
  }

  /** @return the optimizer (its state is part of a checkpoint) */
  public AdamW adamW() {
    return adamw;
  }

  /** @return the policy being trained */
  public DjlLanguagePolicy policy() {
    return policy;
  }

  /** @return the policy the training rollouts go through: {@link #policy()} unless another was given */
  public LanguagePolicy rolloutPolicy() {
    return rolloutPolicy;
  }

  /** @return the fine-tuning setup, when one was given ({@link Builder#optFineTuning}) */
  public Optional<FineTuning> fineTuning() {
    return Optional.ofNullable(fineTuning);
  }

  /** @return the checkpoint manager, if checkpoints are written */
  public Optional<CheckpointManager> checkpoints() {
    return Optional.ofNullable(checkpoints);
  }

  /** @return the base seed */
  public long seed() {
    return seed;
  }

  /**
   * The trainer's full configuration as JSON (snake_case keys), as recorded in checkpoints: seed, environment id and
   * version, training rollout, credit, optimizer id and settings, AdamW settings, update batching, whether a
   * reference model is used, the LoRA adapter's settings (only for LoRA: {@code lora}), validation sets and interval,
   * failure share and checkpoint settings.
   *
   * @return a new JSON object
   */
  public JsonObject configuration() {
    JsonObject o = new JsonObject();
    o.addProperty("seed", seed);
    JsonObject env = new JsonObject();
    env.addProperty("id", provider.id());
    env.addProperty("version", provider.version());
    o.add("environment", env);
    o.add("rollout", ConfigJson.toJson(rollout));
    o.add("credit", ConfigJson.toJson(creditConfig));
    JsonObject opt = new JsonObject();
    opt.addProperty("id", optimizer.id());
    opt.add("config", ConfigJson.toJson(optimizer.config()));
    o.add("optimizer", opt);
    o.add("adamw", ConfigJson.toJson(adamw.config()));
    o.add("update", ConfigJson.toJson(updateSettings));
    o.addProperty("reference_model", withReference);
    if (fineTuning != null && fineTuning.mode() == FineTuning.Mode.LORA) {
      o.add("lora", LoraAdapterWeights.describe(fineTuning.adapter().orElseThrow().config()));
    }
    o.addProperty("validate_every", validateEvery);
    JsonArray vals = new JsonArray();
    for (Validation v : validations) {
      vals.add(ConfigJson.toJson(v));
    }
    o.add("validations", vals);
    o.addProperty("max_failure_share", maxFailureShare);
    if (checkpoints != null) {
      JsonObject c = new JsonObject();
      c.addProperty("every", checkpoints.every());
      c.addProperty("weights", checkpoints.weights().kind());
      c.addProperty("best_metric", checkpoints.bestMetric().orElse(null));
      o.add("checkpoints", c);
    }
    return o;
  }

  /**
   * Continues a run from a checkpoint: checks the environment and seed, restores the optimizer state and the
   * weights in place, and sets {@link #iteration()} to the checkpoint's. A configuration that differs from the
   * saved one is logged (the resumed run then differs from an uninterrupted one).
   *
   * @param checkpoint a verified checkpoint ({@link TrainingCheckpoint#open})
   * @throws TrainingException naming the file when the checkpoint is for another environment, seed or model shape,
   *     holds another kind of weights (full weights for a LoRA run or the reverse) or an adapter of another rank
   */
  public void resume(TrainingCheckpoint checkpoint) {
    checkpoint.requireEnvironment(provider.id(), provider.version());
    if (checkpoint.seed() != seed) {
      throw new TrainingException(checkpoint.directory().resolve(TrainingCheckpoint.STATE_FILE)
          + ": the checkpoint's run has seed " + checkpoint.seed() + ", this trainer " + seed
          + "; resume with the same seed");
    }
    JsonObject saved = checkpoint.configuration();
    JsonObject now = configuration();
    for (String key : now.keySet()) {
      if (!now.get(key).equals(saved.get(key))) {
        LOG.warn("resuming from {}: setting '{}' differs from the checkpoint's ({} now, {} then); the run will not"
            + " match an uninterrupted one", checkpoint.directory(), key, now.get(key), saved.get(key));
      }
    }
    CheckpointWeights weights = checkpoints != null ? checkpoints.weights()
        : fineTuning != null ? CheckpointWeights.of(fineTuning, null)
        : CheckpointWeights.full(modelOf(policy), null);
    checkpoint.restore(weights, adamw);
    updater.forgetAnchorScores(checkpoint.anchorScoresHeld());
    iteration = checkpoint.iteration();
    lastCheckpoint = iteration;
    lastMetrics = Map.of();
    LOG.info("resumed from {} at iteration {}", checkpoint.directory(), iteration);
  }

  /**
   * Writes a checkpoint of the current state now (a no-op returning the last one when it already holds this
   * iteration).
   *
   * @return the checkpoint directory
   * @throws IllegalStateException when no checkpoint manager was configured
   * @throws TrainingException when writing fails (earlier checkpoints are untouched)
   */
  public Path checkpoint() {
    if (checkpoints == null) {
      throw new IllegalStateException("no checkpoint manager was configured (optCheckpoints)");
    }
    Path dir = checkpoints.directory().resolve(TrainingCheckpoint.directoryName(iteration));
    if (lastCheckpoint == iteration && java.nio.file.Files.isDirectory(dir)) {
      return dir;
    }
    dir = checkpoints.save(new CheckpointManager.Snapshot(iteration, seed, provider.id(), provider.version(),
        configuration(), lastMetrics, adamw, updater.holdsAnchorScores()));
    lastCheckpoint = iteration;
    for (TrainingListener l : listeners) {
      l.onCheckpoint(iteration, dir);
    }
    return dir;
  }

  /**
   * The checkpoint directory the trained policy was loaded from: the one given to {@link Builder#optBaseModel} (or
   * to {@link Builder#optCheckpointDirectory}), else a directory {@code fine_tuning.base_model} of the config names,
   * else the directory the policy's tokenizer was read from when it holds a {@code config.json} (true of every policy
   * made by {@code Qwen3Checkpoint.loadPolicy(dir, options)}).
   *
   * @return the base model's directory, if the trainer knows it
   */
  public Optional<Path> baseModel() {
    return resolveBaseModel(baseModel, trainingConfig, policy);
  }

  private static Optional<Path> resolveBaseModel(Path given, TrainingConfig config, DjlLanguagePolicy policy) {
    if (given != null) {
      return Optional.of(given);
    }
    String named = config == null ? null : config.fineTuning().baseModel();
    if (named != null && java.nio.file.Files.isDirectory(Path.of(named))) {
      return Optional.of(Path.of(named));
    }
    Path tokenizer = policy == null ? null : policy.tokenizer().file();
    Path dir = tokenizer == null ? null : tokenizer.toAbsolutePath().getParent();
    return dir != null && java.nio.file.Files.isRegularFile(dir.resolve("config.json")) ? Optional.of(dir)
        : Optional.empty();
  }

  /**
   * Saves the trained policy into a new directory. Full fine-tuning writes a Hugging Face checkpoint: {@code
   * model.safetensors} (float32) beside copies of the base model's {@code config.json}, tokenizer and chat template,
   * loadable with {@code Qwen3Checkpoint.loadPolicy(target, options)}, {@code mage play --model} or {@code
   * transformers}. A LoRA run writes its adapter in PEFT layout ({@code adapter_config.json} with {@code
   * base_model_name_or_path} naming the base model, {@code adapter_model.safetensors}), loadable with {@code
   * Qwen3Checkpoint.loadPolicy(base, options, target)} or PEFT. Nothing that exists is overwritten: the base model
   * and any directory that already holds a model or an adapter are refused before anything is written.
   *
   * @param target the directory to write (created if missing; it must not hold a model or an adapter yet)
   * @return {@code target}
   * @throws org.magejvm.impl.llm.checkpoint.CheckpointException in one line naming the directory when {@code target}
   *     is the base model's directory, already holds {@code model.safetensors}, a sharded index or an adapter, or
   *     cannot be written
   * @throws IllegalStateException when the trainer does not know the base model ({@link #baseModel()}; give it with
   *     {@link Builder#optBaseModel}), or when the policy's model carries an adapter the trainer does not train as
   *     LoRA ({@link Builder#optFineTuning})
   */
  public Path save(Path target) {
    Objects.requireNonNull(target, "target");
    Path base = baseModel().orElseThrow(() -> new IllegalStateException("cannot save the trained model into "
        + target + ": the trainer does not know the checkpoint its policy was loaded from; give it with"
        + " MageTrainer.Builder.optBaseModel(dir)"));
    ModelSaver.requireNewModelDirectory(base, target);
    Qwen3Model model = modelOf(policy);
    if (fineTuning != null && fineTuning.mode() == FineTuning.Mode.LORA) {
      org.magejvm.impl.llm.finetune.LoraAdapter adapter = fineTuning.adapter().orElseThrow();
      org.magejvm.impl.llm.finetune.PeftAdapters.save(adapter, target);
      if (adapter.config().baseModelNameOrPath().isEmpty()) {
        // record the base, so that the adapter names what it is to be loaded onto
        Path config = target.resolve(org.magejvm.impl.llm.finetune.PeftAdapters.CONFIG_FILE);
        String json = org.magejvm.impl.llm.finetune.PeftAdapters.configJson(adapter.config()
            .withBaseModelNameOrPath(base.toAbsolutePath().normalize().toString()));
        try {
          org.magejvm.api.util.AtomicFiles.writeString(config, json);
        } catch (java.io.IOException e) {
          throw new org.magejvm.impl.llm.checkpoint.CheckpointException("cannot write " + config + ": " + e, e);
        }
      }
      LOG.info("saved the trained LoRA adapter (PEFT layout, base {}) to {}", base, target);
    } else {
      if (model.adapter().isPresent()) {
        throw new IllegalStateException("cannot save the trained model into " + target + ": its model carries an"
            + " adapter that this trainer does not train as LoRA (optFineTuning), so only the base weights would be"
            + " saved");
      }
      ModelSaver.save(model, base, target);
      LOG.info("saved the trained model (Hugging Face layout, from {}) to {}", base, target);
    }
    return target;
  }

  /**
   * Runs iterations until {@link #iteration()} reaches {@code until}.
   *
   * @param until the iteration count to stop at
   * @return the metrics of the last iteration run (empty when none ran)
   */
  public Map<String, Object> fit(int until) {
    Map<String, Object> last = Map.of();
    boolean ran = false;
    while (iteration < until) {
      last = step(until);
      ran = true;
    }
    if (ran && checkpoints != null && lastCheckpoint != iteration) {
      checkpoint();
    }
    return last;
  }

  /**
   * Runs one iteration.
   *
   * @return its metrics, as written to {@code metrics.jsonl}
   */
  public Map<String, Object> step() {
    return step(-1);
  }

  private Map<String, Object> step(int total) {
    int it = iteration;
    for (TrainingListener l : listeners) {
      l.onIterationStart(it, total);
    }
    double[] peaks = new double[3];
    resetPeak();
    long t0 = System.nanoTime();
    long iterationSeed = Seeds.derive(seed, ITERATION_STREAM, it);
    RolloutConfig config = reseeded(rollout, iterationSeed);
    if (syncPending) {
      sync(it);
    }
    RolloutResult batch = new MetaEpisodeRunner(registry).run(config, rolloutPolicy);
    int planned = batch.metaEpisodes().size() + batch.failures().size();
    double failureShare = planned == 0 ? 0 : (double) batch.failures().size() / planned;
    if (failureShare > maxFailureShare) {
      throw new TrainingException(String.format(Locale.ROOT,
          "iteration %d: %d of %d meta-episodes failed (more than the allowed share %.2f); first failure: %s", it,
          batch.failures().size(), planned, maxFailureShare, batch.failures().get(0).describe()));
    }
    long t1 = System.nanoTime();
    peaks[0] = phasePeak();
    List<ScoredTurn> scored = credit.assign(batch.metaEpisodes());
    Advantages advantages = optimizer.advantageNormalizer().compute(scored);
    List<PolicyUpdater.Row> rows = rows(scored, advantages);
    double[] a = advantages.values();
    long t2 = System.nanoTime();
    PolicyUpdater.Report update = updater.update(rows, () -> peaks[1] = phasePeak());
    long t3 = System.nanoTime();
    peaks[2] = phasePeak();

    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("iteration", it);
    EvaluationMetrics.of(batch.metaEpisodes(), batch.episodes()).toMap().forEach(metrics::put);
    metrics.put("failed_meta_episodes", batch.failures().size());
    metrics.put("turns", rows.size());
    metrics.put("trained_turns", update.trainedRows());
    metrics.put("skipped_zero_advantage_turns", update.skippedZeroAdvantage());
    metrics.put("mean_abs_advantage", meanAbs(a));
    metrics.put("step_groups", advantages.stepGroupCount());
    metrics.put("mean_step_group_size", advantages.meanStepGroupSize());
    metrics.put("optimizer_steps", update.optimizerSteps());
    metrics.put("skipped_steps", update.skippedSteps());
    metrics.put("grad_norm", update.meanGradNorm());
    if (!Double.isNaN(update.updateKl())) {
      metrics.put("update_kl", update.updateKl());
    }
    if (!Double.isNaN(update.anchorChange())) {
      metrics.put("anchor_logprob_change", update.anchorChange());
    }
    if (updateSettings.maxUpdateKl() > 0 || updateSettings.maxAnchorDrop() > 0) {
      metrics.put("update_backtracks", update.backtracks());
      metrics.put("update_undone", update.undone() ? 1 : 0);
    }
    metrics.put("learning_rate", adamw.learningRate());
    update.diagnostics().forEach(metrics::put);
    metrics.put("timing/rollout_s", (t1 - t0) / 1e9);
    metrics.put("timing/scoring_s", (t2 - t1) / 1e9);
    metrics.put("timing/update_s", (t3 - t2) / 1e9);
    update.timing().toMap().forEach(metrics::put);
    if (memory != null) {
      metrics.put("memory/rollout_peak_mib", peaks[0]);
      metrics.put("memory/scoring_peak_mib", peaks[1]);
      metrics.put("memory/update_peak_mib", peaks[2]);
    }
    iteration = it + 1;
    if (update.skippedSteps() > 0) {
      for (TrainingListener l : listeners) {
        l.onSkippedSteps(it, update.skippedSteps());
      }
    }
    if (validateEvery > 0 && iteration % validateEvery == 0 && !validations.isEmpty()) {
      long v0 = System.nanoTime();
      Map<String, Number> val = validate(it);
      metrics.putAll(val);
      metrics.put("timing/validation_s", (System.nanoTime() - v0) / 1e9);
    }
    metrics.put("timing/iteration_s", (System.nanoTime() - t0) / 1e9);
    for (String warning : stallWatch.observe(it, update.undone(), number(metrics, "play_turns"),
        fraction(metrics, "invalid_action_rate"), number(metrics, "reflection_turns"),
        fraction(metrics, "reflection_invalid_rate"))) {
      LOG.warn(warning);
    }
    lastMetrics = metrics;
    for (TrainingListener l : listeners) {
      l.onIterationEnd(it, metrics);
    }
    if (checkpoints != null && checkpoints.due(iteration)) {
      checkpoint();
    }
    syncPending = policySync != null;
    if (syncPending) {
      sync(iteration);
    }
    return metrics;
  }

  /** Pushes the current weights to the rollout policy; on failure the next step pushes again before rolling out. */
  private void sync(int version) {
    if (policySync == null) {
      syncPending = false;
      return;
    }
    try {
      policySync.push(this, version);
    } catch (RuntimeException e) {
      throw new TrainingException("pushing the weights after " + version + " iterations to the rollout policy '"
          + rolloutPolicy.name() + "' failed (the trainer's state is kept; the next step pushes again before it"
          + " rolls out): " + e.getMessage(), e);
    }
    syncPending = false;
  }

  /**
   * Validates the current policy on every validation set, with the same seeds each time.
   *
   * @return the {@code val/} metrics
   */
  public Map<String, Number> validate() {
    return validate(iteration - 1);
  }

  private Map<String, Number> validate(int after) {
    Map<String, Number> out = new LinkedHashMap<>();
    for (int v = 0; v < validations.size(); v++) {
      Validation val = validations.get(v);
      long s = Seeds.derive(seed, VALIDATION_STREAM, v);
      RolloutConfig config = reseeded(val.config(), s);
      RolloutResult r = new MetaEpisodeRunner(registry).run(config, policy);
      Map<String, Number> m = EvaluationMetrics.of(r.metaEpisodes(), r.episodes()).toMap();
      for (Map.Entry<String, Number> e : m.entrySet()) {
        if (val.name().isEmpty()) {
          out.put("val/" + e.getKey(), e.getValue());
        } else if (!e.getKey().contains("/")) {
          out.put("val/" + val.name() + "/" + e.getKey(), e.getValue());
        }
      }
    }
    for (TrainingListener l : listeners) {
      l.onValidation(after, out);
    }
    return out;
  }

  /** One update row per scored turn, in batch order, with the turn's advantage. */
  private static List<PolicyUpdater.Row> rows(List<ScoredTurn> scored, Advantages advantages) {
    List<PolicyUpdater.Row> rows = new ArrayList<>(scored.size());
    double[] a = advantages.values();
    for (int i = 0; i < scored.size(); i++) {
      Turn t = scored.get(i).turn();
      rows.add(new PolicyUpdater.Row(t.promptTokenIds(), t.responseTokenIds(), t.logProbs(), a[i]));
    }
    return rows;
  }

  /**
   * A training batch built as {@link #step()} builds one, without updating anything: the trainer's rollout config
   * reseeded with {@code seed}, run through the rollout policy, then credit assignment and the policy optimizer's
   * advantages (for measurements on a batch of the run's own kind, such as {@code mage bench iteration}).
   *
   * @param seed the rollout's seed (task and sampling seeds derive from it as an iteration's do)
   * @return one update row per turn, in batch order
   */
  public List<PolicyUpdater.Row> scoredBatch(long seed) {
    RolloutResult batch = new MetaEpisodeRunner(registry).run(reseeded(rollout, seed), rolloutPolicy);
    List<ScoredTurn> scored = credit.assign(batch.metaEpisodes());
    return rows(scored, optimizer.advantageNormalizer().compute(scored));
  }

  /**
   * @return the update settings the trainer runs with, its old log-probability source resolved ({@link
   *     Builder#optOldLogProbs})
   */
  public PolicyUpdater.Settings updateSettings() {
    return updateSettings;
  }

  /** @return the policy optimizer (advantages and loss) the trainer updates with */
  public PolicyOptimizer policyOptimizer() {
    return optimizer;
  }

  /** The config with its task seed and its sampling seed (when it has a sampling config) taken from {@code seed}. */
  private static RolloutConfig reseeded(RolloutConfig c, long seed) {
    RolloutConfig.Builder b = c.toBuilder().optSeed(seed);
    c.sampling().ifPresent(s -> b.optSampling(s.withSeed(Seeds.derive(seed, Seeds.SAMPLING, 0))));
    return b.build();
  }

  private static double meanAbs(double[] a) {
    double s = 0;
    for (double v : a) {
      s += Math.abs(v);
    }
    return a.length == 0 ? 0 : s / a.length;
  }

  /** @return a builder */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A trainer built from one description of the run: the rollout, credit assignment, advantage estimator, loss,
   * AdamW, update schedule and checks, validation sets, fine-tuning (full, with a frozen copy as the KL reference
   * when the KL weight is not 0, or a new LoRA adapter whose base is the reference) and seed all come from {@code
   * config}. The trainer owns what it created (the adapter, the frozen copy, AdamW) and releases it in {@link
   * #close()}; the policy stays the caller's.
   *
   * @param config the run
   * @param policy the policy to train (its model's weights are trained in place)
   * @param registry where the config's environment is found
   * @return the trainer, at iteration 0
   * @throws ConfigException when the config names an environment, opponent, estimator or scripted policy that does
   *     not exist
   */
  public static MageTrainer create(TrainingConfig config, DjlLanguagePolicy policy, EnvironmentRegistry registry) {
    return builder(config, policy, registry).build();
  }

  /**
   * A builder preset from {@code config} (see {@link #create}), for what a config does not describe: listeners, a
   * checkpoint directory ({@link Builder#optCheckpointDirectory}), remote rollouts, a memory probe. If {@link
   * Builder#build()} is never called, close what the builder created with {@link Builder#close()}.
   *
   * @param config the run
   * @param policy the policy to train
   * @param registry where the config's environment is found
   * @return the builder
   * @throws ConfigException when the config names an environment, opponent, estimator or scripted policy that does
   *     not exist
   */
  public static Builder builder(TrainingConfig config, DjlLanguagePolicy policy, EnvironmentRegistry registry) {
    Builder b = new Builder();
    try {
      TrainerFactory.configure(b, config, policy, registry);
    } catch (RuntimeException e) {
      b.close();
      throw e;
    }
    return b;
  }

  /**
   * The anchor answers of a config's update check: {@code checks.anchor_turns} play turns of the environment's
   * scripted {@code checks.anchor_policy} in the config's training prompts, tokenized as the policy's chat template
   * renders them (prompt, answer and stop token). The same config gives the same anchors.
   *
   * @param config the run (its {@code checks.anchor_policy} must be set)
   * @param policy the policy whose tokenizer and template render the anchors
   * @param registry where the config's environment is found
   * @return the anchors, each with advantage 0 and no recorded log-probabilities
   * @throws ConfigException when the config names no anchor policy, or one the environment lacks
   */
  public static List<PolicyUpdater.Row> anchorTurns(TrainingConfig config, DjlLanguagePolicy policy,
      EnvironmentRegistry registry) {
    if (config.checks().anchorPolicy() == null) {
      throw new ConfigException("checks.anchor_policy", "checks.anchor_policy is null: the config has no anchors");
    }
    return TrainerFactory.anchorTurns(config, TrainerFactory.environment(config, registry), registry, policy);
  }

  /** @return the description this trainer was built from, when it was built with {@link #create} or {@link
   *     #builder(TrainingConfig, DjlLanguagePolicy, EnvironmentRegistry)} */
  public Optional<TrainingConfig> trainingConfig() {
    return Optional.ofNullable(trainingConfig);
  }

  /**
   * Releases what the trainer created from its {@link TrainingConfig} (AdamW, a LoRA adapter, a frozen reference
   * copy). A trainer built by hand owns nothing. Closing twice does nothing more.
   */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      closeAll(owned);
    }
  }

  static void closeAll(List<AutoCloseable> resources) {
    RuntimeException failure = null;
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new TrainingException("closing " + r + ": " + e.getMessage(), e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Configures a {@link MageTrainer}. */
  public static final class Builder implements AutoCloseable {
    private TrainingConfig trainingConfig;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private java.util.function.Function<Path, CheckpointManager.Builder> checkpointsFromConfig;
    private EnvironmentRegistry registry;
    private DjlLanguagePolicy policy;
    private LanguagePolicy rolloutPolicy;
    private PolicySync policySync;
    private RolloutConfig rollout;
    private CreditConfig credit;
    private PolicyOptimizer optimizer;
    private AdamW adamw;
    private ReferencePolicy reference;
    private FineTuning fineTuning;
    private PolicyUpdater.Settings updateSettings = PolicyUpdater.Settings.defaults();
    private OldLogProbs oldLogProbs;
    private List<PolicyUpdater.Row> anchorTurns = List.of();
    private final List<Validation> validations = new ArrayList<>();
    private int validateEvery = 5;
    private double maxFailureShare = 0.25;
    private long seed;
    private final List<TrainingListener> listeners = new ArrayList<>();
    private int startIteration;
    private MemoryProbe memory;
    private CheckpointManager checkpoints;
    private Path baseModel;

    private Builder() {}

    /**
     * @param v the checkpoint directory the policy was loaded from, which {@link MageTrainer#save} copies the config,
     *     tokenizer and chat template of (or names as a LoRA adapter's base) and {@link #optRunDirectory} records;
     *     by default the one {@link MageTrainer#baseModel()} finds (the policy's own directory when it was made by
     *     {@code Qwen3Checkpoint.loadPolicy})
     * @return this builder
     */
    public Builder optBaseModel(Path v) {
      baseModel = v;
      return this;
    }

    /**
     * Writes the run into one directory, as {@code mage train --out} does: {@code config.json} (the config, written
     * now), {@code metrics.jsonl} (a {@link MetricsFileListener}, added as the first listener and closed with the
     * trainer) and {@code checkpoints/} ({@code iter-NNNNNNNN/} and {@code best.json}) on the config's schedule
     * ({@code checkpoints.every}, {@code checkpoints.keep}, and always at the end of {@link MageTrainer#fit}). Only
     * for builders made from a {@link TrainingConfig}; for checkpoints alone use {@link #optCheckpointDirectory}.
     *
     * @param runDir the run directory (created if missing)
     * @return this builder
     * @throws IllegalStateException for a builder not made from a config, or when the base model is unknown (see
     *     {@link #optBaseModel})
     * @throws TrainingException when {@code config.json} cannot be written
     */
    public Builder optRunDirectory(Path runDir) {
      if (checkpointsFromConfig == null) {
        throw new IllegalStateException("optRunDirectory needs a builder made from a TrainingConfig"
            + " (MageTrainer.builder(config, policy, registry))");
      }
      Path base = resolveBaseModel(baseModel, trainingConfig, policy).orElseThrow(() -> new IllegalStateException(
          "optRunDirectory: the checkpoint the policy was loaded from is unknown; give it with optBaseModel(dir)"));
      Path config = runDir.resolve("config.json");
      try {
        java.nio.file.Files.createDirectories(runDir);
        org.magejvm.api.util.AtomicFiles.writeString(config, trainingConfig.toJson());
      } catch (java.io.IOException e) {
        throw new TrainingException("cannot write " + config + ": " + e.getMessage(), e);
      }
      optCheckpointDirectory(runDir.resolve(TrainingCheckpoint.CHECKPOINTS_DIR), base, new JsonObject());
      MetricsFileListener metrics = new MetricsFileListener(runDir);
      own(metrics);
      listeners.add(0, metrics); // first: listeners added later may read the file
      return this;
    }

    /**
     * @param v where environments are found
     * @return this builder
     */
    public Builder setRegistry(EnvironmentRegistry v) {
      registry = v;
      return this;
    }

    /**
     * @param v the policy to train (a Qwen3 policy whose model the optimizer's parameters belong to)
     * @return this builder
     */
    public Builder setPolicy(DjlLanguagePolicy v) {
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
    public Builder optRolloutPolicy(LanguagePolicy v) {
      rolloutPolicy = v;
      return this;
    }

    /**
     * @param v called before the first rollout and after every update to push the trainer's weights to the rollout
     *     policy (see {@link PolicySync}); for LoRA runs, {@link LoraAdapterSync}
     * @return this builder
     */
    public Builder optPolicySync(PolicySync v) {
      policySync = v;
      return this;
    }

    /**
     * @param v the training rollout (its seed and sampling seed are replaced per iteration)
     * @return this builder
     */
    public Builder setRollout(RolloutConfig v) {
      rollout = v;
      return this;
    }

    /**
     * @param v how rewards become returns and scores
     * @return this builder
     */
    public Builder setCredit(CreditConfig v) {
      credit = v;
      return this;
    }

    /**
     * @param v the policy optimizer (advantages and loss), found by id through ServiceLoader
     * @return this builder
     */
    public Builder setOptimizer(PolicyOptimizer v) {
      optimizer = v;
      return this;
    }

    /**
     * @param v AdamW over the trainable parameters of the policy's model
     * @return this builder
     */
    public Builder setAdamW(AdamW v) {
      adamw = v;
      return this;
    }

    /**
     * @param v the frozen reference model for the KL term (required when the optimizer's KL coefficient is not 0)
     * @return this builder
     */
    public Builder optReference(Qwen3Model v) {
      reference = v == null ? null : ReferencePolicy.frozen(v);
      return this;
    }

    /**
     * @param v the reference policy for the KL term, for example {@link ReferencePolicy#of} a LoRA setup (the
     *     trained model with its adapter switched off: no second copy of the weights)
     * @return this builder
     */
    public Builder optReference(ReferencePolicy v) {
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
    public Builder optFineTuning(FineTuning v) {
      fineTuning = v;
      return this;
    }

    /**
     * @param v minibatch, micro-batch, epochs, old log-prob source, zero-advantage skipping
     * @return this builder
     */
    public Builder optUpdateSettings(PolicyUpdater.Settings v) {
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
    public Builder optOldLogProbs(OldLogProbs v) {
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
    public Builder optAnchorTurns(List<PolicyUpdater.Row> v) {
      anchorTurns = List.copyOf(Objects.requireNonNull(v, "anchorTurns"));
      return this;
    }

    /**
     * @param v a validation set
     * @return this builder
     */
    public Builder addValidation(Validation v) {
      validations.add(Objects.requireNonNull(v, "validation"));
      return this;
    }

    /**
     * @param v validate after every {@code v}-th iteration (0: never; default 5)
     * @return this builder
     */
    public Builder optValidateEvery(int v) {
      validateEvery = v;
      return this;
    }

    /**
     * @param v the largest share of an iteration's meta-episodes that may fail before the run stops (default 0.25)
     * @return this builder
     */
    public Builder optMaxFailureShare(double v) {
      maxFailureShare = v;
      return this;
    }

    /**
     * @param v the base seed of every iteration's rollouts and of validation
     * @return this builder
     */
    public Builder optSeed(long v) {
      seed = v;
      return this;
    }

    /**
     * @param v a listener
     * @return this builder
     */
    public Builder addListener(TrainingListener v) {
      listeners.add(Objects.requireNonNull(v, "listener"));
      return this;
    }

    /**
     * @param v writes checkpoints every k iterations and at the end of {@code fit} (default: none)
     * @return this builder
     */
    public Builder optCheckpoints(CheckpointManager v) {
      checkpoints = v;
      return this;
    }

    /**
     * @param v measures each phase's peak memory into the metrics {@code memory/rollout_peak_mib},
     *     {@code memory/scoring_peak_mib} (old and reference log-probs) and {@code memory/update_peak_mib}
     *     (for example {@link MemoryProbe#processRss()}); null (the default) reports none
     * @return this builder
     */
    public Builder optMemoryProbe(MemoryProbe v) {
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
    public Builder optCheckpointDirectory(Path directory, Path baseModel, JsonObject run) {
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
      closeAll(owned);
      owned.clear();
    }

    /**
     * @param v the iteration to continue from (a resumed run; {@link MageTrainer#resume} sets it from a checkpoint)
     * @return this builder
     */
    public Builder optStartIteration(int v) {
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
        boolean float32 = modelOf(policy).outputType() == ai.djl.ndarray.types.DataType.FLOAT32
            && modelOf(policy).dtype() == ai.djl.ndarray.types.DataType.FLOAT32;
        double temperature = rollout.sampling().map(SamplingConfig::temperature).orElse(Double.NaN);
        boolean recompute = oldLogProbs.recompute(local, float32, temperature);
        updateSettings = updateSettings.withRecomputeOldLogProbs(recompute);
        LOG.info("old log-probabilities: {} (update.old_log_probs {}; rollout {}, model {}, temperature {})",
            recompute ? "recomputed before each update" : "the ones recorded while sampling",
            oldLogProbs.name().toLowerCase(java.util.Locale.ROOT), local ? "local" : "remote",
            modelOf(policy).dtype(), temperature);
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
      MageTrainer trainer = new MageTrainer(this);
      owned.clear(); // the trainer owns them now
      return trainer;
    }

    private void checkFineTuning() {
      if (fineTuning.model() != modelOf(policy)) {
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
}
