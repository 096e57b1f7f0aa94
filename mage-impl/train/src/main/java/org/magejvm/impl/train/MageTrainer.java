package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.impl.train.common.ConfigJson;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.checkpoint.CheckpointWeights;
import org.magejvm.impl.train.checkpoint.LoraAdapterWeights;
import org.magejvm.impl.train.checkpoint.ModelSaver;
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
 * <p>With a {@link CheckpointManager} ({@link TrainerBuilder#optCheckpoints}) it writes a checkpoint after every k-th
 * iteration and at the end of {@link #fit(int)}, always after the listeners have seen the iteration's metrics (so a
 * metrics file never lacks an iteration a checkpoint holds). {@link #resume(TrainingCheckpoint)} continues a run.
 *
 * <p>LoRA: give the fine-tuning setup ({@link TrainerBuilder#optFineTuning}, {@code FineTuning.lora(model, adapter)}) and an
 * {@link AdamW} over its {@code trainableParameters()}. The KL reference is then the base model with the adapter
 * switched off (no second copy of the weights), checkpoints hold the adapter in PEFT layout
 * ({@link LoraAdapterWeights}) and the AdamW state over the adapter's matrices only.
 *
 * <p>Remote rollouts: with {@link TrainerBuilder#optRolloutPolicy} the training rollouts go through another policy (for
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

  /**
   * The config keys a resumed run may change without a warning: how long it goes on, the thread count (whose effect
   * on float rounding {@code mage train --resume} warns about itself), the step time-out, and where the base model
   * is found.
   */
  public static final java.util.Set<String> RESUMABLE_KEYS = java.util.Set.of("iterations", "threads",
      "rollout.step_timeout_seconds", "fine_tuning.base_model");

  /** Seed stream of the training rollouts of each iteration. */
  static final long ITERATION_STREAM = 101;
  /** Seed stream of validation rollouts (the same for every validation, so curves compare like with like). */
  static final long VALIDATION_STREAM = 102;

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

  MageTrainer(TrainerBuilder b) {
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

  /** @return the fine-tuning setup, when one was given ({@link TrainerBuilder#optFineTuning}) */
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
   * saved one is logged (the resumed run then differs from an uninterrupted one): a trainer built from a {@link
   * TrainingConfig} compares it with the config the checkpoint records, key by key (all but {@link
   * #RESUMABLE_KEYS}); a trainer built by hand compares its parts' record ({@link #configuration()}).
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
    Optional<TrainingConfig> then = trainingConfig == null ? Optional.empty()
        : TrainingConfig.ofCheckpoint(checkpoint);
    if (then.isPresent()) {
      for (String key : trainingConfig.differences(then.get())) {
        if (!RESUMABLE_KEYS.contains(key)) {
          LOG.warn("resuming from {}: config key '{}' differs from the checkpoint's; the run will not match an"
              + " uninterrupted one", checkpoint.directory(), key);
        }
      }
    } else {
      JsonObject saved = checkpoint.configuration();
      JsonObject now = configuration();
      for (String key : now.keySet()) {
        if (!now.get(key).equals(saved.get(key))) {
          LOG.warn("resuming from {}: setting '{}' differs from the checkpoint's ({} now, {} then); the run will"
              + " not match an uninterrupted one", checkpoint.directory(), key, now.get(key), saved.get(key));
        }
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
   * The checkpoint directory the trained policy was loaded from: the one given to {@link TrainerBuilder#optBaseModel} (or
   * to {@link TrainerBuilder#optCheckpointDirectory}), else a directory {@code fine_tuning.base_model} of the config names,
   * else the directory the policy's tokenizer was read from when it holds a {@code config.json} (true of every policy
   * made by {@code Qwen3Checkpoint.loadPolicy(dir, options)}).
   *
   * @return the base model's directory, if the trainer knows it
   */
  public Optional<Path> baseModel() {
    return resolveBaseModel(baseModel, trainingConfig, policy);
  }

  static Optional<Path> resolveBaseModel(Path given, TrainingConfig config, DjlLanguagePolicy policy) {
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
   *     {@link TrainerBuilder#optBaseModel}), or when the policy's model carries an adapter the trainer does not train as
   *     LoRA ({@link TrainerBuilder#optFineTuning})
   */
  public Path save(Path target) {
    Objects.requireNonNull(target, "target");
    Path base = baseModel().orElseThrow(() -> new IllegalStateException("cannot save the trained model into "
        + target + ": the trainer does not know the checkpoint its policy was loaded from; give it with"
        + " MageTrainer.TrainerBuilder.optBaseModel(dir)"));
    ModelSaver.saveTrained(modelOf(policy), fineTuning, base, target);
    return target;
  }

  /**
   * Runs the configured run: iterations until {@link #iteration()} reaches the config's {@code iterations} (a resumed
   * trainer continues from its checkpoint's iteration), then a last checkpoint when checkpoints are written.
   *
   * @return the metrics of the last iteration run (empty when none ran)
   * @throws IllegalStateException for a trainer built by hand (not from a {@link TrainingConfig}); use {@link
   *     #fit(int)}
   */
  public Map<String, Object> fit() {
    if (trainingConfig == null) {
      throw new IllegalStateException("fit() runs the config's iterations, but this trainer was not built from a"
          + " TrainingConfig; call fit(until)");
    }
    return fit(trainingConfig.iterations());
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
    if (ran) {
      for (TrainingListener l : listeners) {
        l.onFitEnd(iteration);
      }
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
    long t2 = System.nanoTime();
    PolicyUpdater.Report update = updater.update(rows, () -> peaks[1] = phasePeak());
    long t3 = System.nanoTime();
    peaks[2] = phasePeak();

    Map<String, Object> metrics = IterationMetrics.of(it, batch, rows.size(), update, advantages, adamw.learningRate(),
        adamw.lossScaling().isPresent() ? adamw.lossScale() : Double.NaN,
        updateSettings, new long[] {t0, t1, t2, t3}, memory == null ? null : peaks);
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
   *     TrainerBuilder#optOldLogProbs})
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

  /** @return a builder */
  public static TrainerBuilder builder() {
    return new TrainerBuilder();
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
   *     not exist, or (naming {@code hardware.device} or {@code hardware.precision}) when the policy's model is on
   *     another device or in another precision than the config's {@code hardware} says: the host loads the policy
   *     there, the trainer only checks
   */
  public static MageTrainer create(TrainingConfig config, DjlLanguagePolicy policy, EnvironmentRegistry registry) {
    return builder(config, policy, registry).build();
  }

  /**
   * A builder preset from {@code config} (see {@link #create}), for what a config does not describe: listeners, a
   * checkpoint directory ({@link TrainerBuilder#optCheckpointDirectory}), remote rollouts, a memory probe. If {@link
   * TrainerBuilder#build()} is never called, close what the builder created with {@link TrainerBuilder#close()}.
   *
   * @param config the run
   * @param policy the policy to train
   * @param registry where the config's environment is found
   * @return the builder
   * @throws ConfigException when the config names an environment, opponent, estimator or scripted policy that does
   *     not exist, or (naming {@code hardware.device} or {@code hardware.precision}) when the policy's model is on
   *     another device or in another precision than the config's {@code hardware} says: the host loads the policy
   *     there, the trainer only checks
   */
  public static TrainerBuilder builder(TrainingConfig config, DjlLanguagePolicy policy, EnvironmentRegistry registry) {
    TrainerBuilder b = new TrainerBuilder();
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
}
