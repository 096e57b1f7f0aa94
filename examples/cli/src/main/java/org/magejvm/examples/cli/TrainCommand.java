package org.magejvm.examples.cli;

import org.magejvm.examples.quickstart.PromptCorpus;
import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.OpponentSampling;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.AdamW;
import org.magejvm.impl.train.AdamWConfig;
import org.magejvm.impl.train.ChartListener;
import org.magejvm.impl.train.CheckpointManager;
import org.magejvm.impl.train.CheckpointWeights;
import org.magejvm.impl.train.LoggingListener;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.MetricsFileListener;
import org.magejvm.impl.train.PolicyUpdater;
import org.magejvm.impl.train.ProgressBarListener;
import org.magejvm.impl.train.TrainingCheckpoint;
import org.magejvm.impl.train.TrainingException;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mage train}: trains a Qwen3 checkpoint (or a tiny random one) with a method preset, writing {@code
 * metrics.jsonl}, charts and checkpoints into the run directory; {@code mage train --resume DIR} continues a run
 * from its latest checkpoint with the settings recorded there. With {@code --lora-rank} only a LoRA adapter trains
 * (the base weights stay frozen, the KL reference is the base model with the adapter off) and the run ends by writing
 * the adapter in PEFT layout to {@code RUN_DIR/adapter}.
 */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Train a Qwen3 policy with a method preset (mage, lamer, gigpo, grpo); --resume continues a run.")
final class TrainCommand implements Callable<Integer>, Limits.OptionPhase {

  /** Iterations of a run when --iterations is not given (the reference's 150). */
  static final int DEFAULT_ITERATIONS = 150;
  /** Response tokens of the tiny model, unless --max-new-tokens says otherwise. */
  static final int TINY_MAX_NEW_TOKENS = 24;
  /** The run directory's subdirectory for the --tiny model. */
  static final String TINY_MODEL_DIR = "tiny-model";
  /** The run directory's subdirectory for the final LoRA adapter. */
  static final String ADAPTER_DIR = "adapter";
  /** Seed stream of the LoRA adapter's initialisation. */
  static final long LORA_INIT_STREAM = 8;

  @Option(names = "--preset", paramLabel = "P", description = "mage, lamer, gigpo or grpo.")
  String preset;

  @Option(names = "--env", paramLabel = "ID", description = "Environment id (see `mage envs`).")
  String env;

  @Option(names = "--model", paramLabel = "DIR", description = "Qwen3 checkpoint directory to train.")
  Path model;

  @Option(names = "--tiny", description = "Train a tiny random Qwen3, written to OUT/" + TINY_MODEL_DIR + " first.")
  Boolean tiny;

  @Option(names = "--out", paramLabel = "DIR", description = "Run directory (metrics.jsonl, charts/, checkpoints/).")
  Path out;

  @Option(names = "--resume", paramLabel = "DIR",
      description = "Continue a run: its run directory, checkpoints directory or one checkpoint.")
  Path resume;

  @Option(names = "--iterations", paramLabel = "N", description = "Train until N iterations (default: 150).")
  Integer iterations;

  @Option(names = "--seed", paramLabel = "S", description = "Base seed (default: 0).")
  Long seed;

  @Option(names = "--validate-every", paramLabel = "K", description = "Validate every K iterations (default: 5).")
  Integer validateEvery;

  @Option(names = "--checkpoint-every", paramLabel = "K",
      description = "Checkpoint every K iterations and at the end (default: 10).")
  Integer checkpointEvery;

  @Option(names = "--keep", paramLabel = "N", description = "Keep the last N checkpoints and the best (default: 3).")
  Integer keep;

  @Option(names = "--threads", paramLabel = "T",
      description = "libtorch intra-op threads (default: libtorch's); a resume needs the same for exact metrics.")
  Integer threads;

  @Option(names = "--lr", paramLabel = "X", description = "AdamW learning rate (default: 1e-6).")
  Double lr;

  @Option(names = "--tasks", paramLabel = "B", description = "Task groups per iteration (default: 16).")
  Integer tasks;

  @Option(names = "--group-size", paramLabel = "G", description = "Meta-episodes per group (default: the preset's).")
  Integer groupSize;

  @Option(names = "--kl", paramLabel = "X",
      description = "KL coefficient against the initial model: a frozen copy, or with LoRA the base with the adapter"
          + " off (default: the preset's, 0.1; 0: off).")
  Double kl;

  @Option(names = "--max-new-tokens", paramLabel = "N",
      description = "Response-token limit, also the length penalty's Lmax (default: the environment's; 24 with --tiny).")
  Integer maxNewTokens;

  @Option(names = "--lora-rank", paramLabel = "R",
      description = "Train a LoRA adapter of rank R instead of every weight (default: full fine-tuning).")
  Integer loraRank;

  @Option(names = "--lora-alpha", paramLabel = "A",
      description = "With --lora-rank: LoRA alpha; the adapter's output is scaled by alpha / r (default: 2 x rank).")
  Double loraAlpha;

  @Option(names = "--lora-targets", paramLabel = "LIST",
      description = "With --lora-rank: adapted projections, all-linear or a comma-separated list of q_proj, k_proj,"
          + " v_proj, o_proj, gate_proj, up_proj, down_proj (default: all-linear).")
  String loraTargets;

  @Option(names = "--val-meta-episodes", paramLabel = "M",
      description = "Meta-episodes per validation set (default: 128).")
  Integer valMetaEpisodes;

  @Option(names = "--step-timeout", paramLabel = "SECONDS",
      description = "Fail a meta-episode whose environment call (create, reset, step, render) takes longer than this,"
          + " in training and validation; the others go on (default: no limit). May be given with --resume.")
  Double stepTimeout;

  @Option(names = "--progress", negatable = true,
      description = "Draw a progress bar (default: only when the console is a terminal).")
  Boolean progress;

  @CommandLine.Mixin RemoteRolloutOptions remoteRollouts;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The resolved settings of a run, as recorded in its checkpoints. */
  private static final class Settings {
    String preset;
    String env;
    String model;
    boolean tiny;
    int iterations = DEFAULT_ITERATIONS;
    long seed;
    int validateEvery = 5;
    int checkpointEvery = 10;
    int keep = 3;
    Integer threads;
    double lr = OptimizerConfig.defaults().learningRate();
    int tasks = MethodPreset.TRAINING_TASKS;
    Integer groupSize;
    Double kl;
    Integer maxNewTokens;
    int valMetaEpisodes = MethodPreset.EVALUATION_META_EPISODES;
    /** Null for full fine-tuning. */
    Integer loraRank;
    Double loraAlpha;
    String loraTargets;

    boolean lora() {
      return loraRank != null;
    }

    /** The adapter's hyper-parameters, with the base checkpoint as {@code base_model_name_or_path}. */
    LoraConfig loraConfig(Path base) {
      return LoraConfig.builder().setRank(loraRank).optAlpha(loraAlpha)
          .optTargetModules(LoraOptions.parseTargets(loraTargets))
          .optBaseModelNameOrPath(base.toAbsolutePath().normalize().toString()).build();
    }

    JsonObject toJson() {
      JsonObject o = new JsonObject();
      o.addProperty("command", "mage train");
      o.addProperty("preset", preset);
      o.addProperty("env", env);
      o.addProperty("model", model);
      o.addProperty("tiny", tiny);
      o.addProperty("iterations", iterations);
      o.addProperty("seed", seed);
      o.addProperty("validate_every", validateEvery);
      o.addProperty("checkpoint_every", checkpointEvery);
      o.addProperty("keep", keep);
      o.addProperty("threads", threads);
      o.addProperty("lr", lr);
      o.addProperty("tasks", tasks);
      o.addProperty("group_size", groupSize);
      o.addProperty("kl", kl);
      o.addProperty("max_new_tokens", maxNewTokens);
      o.addProperty("val_meta_episodes", valMetaEpisodes);
      if (lora()) {
        o.addProperty("lora_rank", loraRank);
        o.addProperty("lora_alpha", loraAlpha);
        o.addProperty("lora_targets", loraTargets);
      }
      return o;
    }

    static Settings fromJson(JsonObject o, Path file) {
      if (!o.has("command") || !"mage train".equals(o.get("command").getAsString())) {
        throw new TrainingException(file + ": the checkpoint records no `mage train` settings (it was written by"
            + " another program); resume it from Java with MageTrainer.resume");
      }
      Settings s = new Settings();
      s.preset = o.get("preset").getAsString();
      s.env = o.get("env").getAsString();
      s.model = nullable(o, "model") == null ? null : o.get("model").getAsString();
      s.tiny = o.get("tiny").getAsBoolean();
      s.iterations = o.get("iterations").getAsInt();
      s.seed = o.get("seed").getAsLong();
      s.validateEvery = o.get("validate_every").getAsInt();
      s.checkpointEvery = o.get("checkpoint_every").getAsInt();
      s.keep = o.get("keep").getAsInt();
      s.threads = nullable(o, "threads") == null ? null : o.get("threads").getAsInt();
      s.lr = o.get("lr").getAsDouble();
      s.tasks = o.get("tasks").getAsInt();
      s.groupSize = nullable(o, "group_size") == null ? null : o.get("group_size").getAsInt();
      s.kl = nullable(o, "kl") == null ? null : o.get("kl").getAsDouble();
      s.maxNewTokens = nullable(o, "max_new_tokens") == null ? null : o.get("max_new_tokens").getAsInt();
      s.valMetaEpisodes = o.get("val_meta_episodes").getAsInt();
      if (nullable(o, "lora_rank") != null) {
        s.loraRank = o.get("lora_rank").getAsInt();
        s.loraAlpha = o.get("lora_alpha").getAsDouble();
        s.loraTargets = o.get("lora_targets").getAsString();
      }
      return s;
    }

    private static JsonElement nullable(JsonObject o, String key) {
      JsonElement e = o.get(key);
      return e == null || e.isJsonNull() ? null : e;
    }
  }

  @Override
  public Integer call() {
    checkSizes();
    java.util.Optional<java.time.Duration> timeout = Limits.stepTimeout(spec, stepTimeout);
    PrintWriter pw = spec.commandLine().getOut();
    Settings s;
    Path runDir;
    TrainingCheckpoint checkpoint = null;
    if (resume != null) {
      checkpoint = TrainingCheckpoint.open(TrainingCheckpoint.locate(resume));
      s = Settings.fromJson(checkpoint.runConfiguration(),
          checkpoint.directory().resolve(TrainingCheckpoint.STATE_FILE));
      refuseChanges(s, checkpoint.directory().resolve(TrainingCheckpoint.STATE_FILE));
      if (iterations != null) {
        s.iterations = iterations;
      }
      Path cps = checkpoint.directory().toAbsolutePath().getParent();
      runDir = cps.getFileName().toString().equals(TrainingCheckpoint.CHECKPOINTS_DIR) ? cps.getParent() : cps;
      if (threads != null) {
        s.threads = threads;
      }
    } else {
      s = fresh();
      runDir = out;
    }
    org.magejvm.impl.openai.VllmAdapterLoader loader = remoteRollouts.validate(spec, s.lora());
    if (s.threads != null) {
      System.setProperty("ai.djl.pytorch.num_threads", Integer.toString(s.threads));
    }
    MethodPreset method = MethodPreset.parse(s.preset);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    EnvironmentProvider provider = registry.require(s.env);
    Path modelDir = s.tiny ? runDir.resolve(TINY_MODEL_DIR) : Path.of(s.model);
    if (s.tiny && !Files.isRegularFile(modelDir.resolve("model.safetensors"))) {
      pw.println("writing a tiny random Qwen3 checkpoint to " + modelDir);
      pw.flush();
      TinyCheckpoint.write(modelDir, TinyCheckpoint.Spec.small(PromptCorpus.withReflection(provider, s.seed),
          Seeds.derive(s.seed, 7, 0)));
    }
    int maxTokens = s.maxNewTokens != null ? s.maxNewTokens
        : s.tiny ? TINY_MAX_NEW_TOKENS : provider.defaults().maxResponseTokens();

    OptimizerConfig.Builder ob = method.optimizerConfig().toBuilder().optLearningRate(s.lr);
    if (s.kl != null) {
      ob.optKlCoefficient(s.kl);
    }
    OptimizerConfig oc = ob.build();
    PolicyOptimizer optimizer = ProviderRegistry.discover(PolicyOptimizerProvider.class)
        .require(method.optimizerId().orElseThrow()).create(oc);

    RolloutConfig.Builder rb = method.trainingRollout(provider).optSeed(s.seed).optTasks(s.tasks)
        .optSampling(SamplingConfig.training(maxTokens));
    if (s.groupSize != null) {
      rb.optGroupSize(s.groupSize);
    }
    timeout.ifPresent(rb::optStepTimeout);
    RolloutConfig rollout = rb.build();
    Limits.of(spec).metaEpisodes("--tasks x --group-size", rollout.tasks(), rollout.groupSize()).check();
    CreditConfig credit = CreditConfig.forEnvironment(provider.defaults())
        .optMetaReturn(method.metaReturn().orElseThrow()).optMaxResponseTokens(maxTokens).build();
    int evalEpisodes = provider.defaults().episodes();
    List<MageTrainer.Validation> validations = new ArrayList<>();
    for (MageTrainer.Validation v : MageTrainer.Validation.standardSets(method, provider, s.valMetaEpisodes,
        maxTokens)) {
      validations.add(timeout.isEmpty() ? v
          : new MageTrainer.Validation(v.name(), v.config().toBuilder().optStepTimeout(timeout.get()).build()));
    }
    Limits.endOfOptions();

    List<AutoCloseable> resources = new ArrayList<>();
    try {
      DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(modelDir, Qwen3Checkpoint.Options.cpu()
          .withSeed(s.seed));
      resources.add(policy);
      Qwen3Model trained = MageTrainer.modelOf(policy);
      Qwen3Model reference = null;
      FineTuning fineTuning = null;
      LoraAdapter adapter = null;
      if (s.lora()) {
        // the base model with the adapter switched off is the KL reference: no second copy of the weights
        adapter = LoraAdapter.create(trained, s.loraConfig(modelDir), Seeds.derive(s.seed, LORA_INIT_STREAM, 0));
        resources.add(0, adapter);
        fineTuning = FineTuning.lora(trained, adapter, oc.klCoefficient() > 0 ? FineTuning.KlReference.BASE_WEIGHTS
            : FineTuning.KlReference.NONE);
        resources.add(0, fineTuning);
      } else {
        trained.weights().requireGradients(true);
        if (oc.klCoefficient() > 0) {
          reference = Qwen3Checkpoint.loadModel(modelDir, Device.cpu(), DataType.FLOAT32);
          resources.add(reference);
        }
      }
      AdamW adamw = new AdamW(fineTuning != null ? fineTuning.trainableParameters() : trained.weights().parameters(),
          AdamWConfig.of(oc));
      resources.add(0, adamw);
      CheckpointManager checkpoints = CheckpointManager.builder()
          .setDirectory(runDir.resolve(TrainingCheckpoint.CHECKPOINTS_DIR))
          .setWeights(fineTuning != null ? CheckpointWeights.of(fineTuning, modelDir)
              : CheckpointWeights.full(trained, modelDir))
          .optEvery(s.checkpointEvery)
          .optKeepLast(s.keep)
          .optBestMetric("val/success_rate[" + (evalEpisodes - 1) + "]")
          .optRunConfiguration(s.toJson())
          .build();
      MetricsFileListener metrics = new MetricsFileListener(runDir);
      resources.add(metrics);
      ProgressBarListener bar = new ProgressBarListener(Boolean.TRUE.equals(progress));
      if (Boolean.FALSE.equals(progress)) {
        bar = null;
      } else {
        resources.add(0, bar);
      }
      MageTrainer.Builder tb = MageTrainer.builder()
          .setRegistry(registry)
          .setPolicy(policy)
          .setRollout(rollout)
          .setCredit(credit)
          .setOptimizer(optimizer)
          .setAdamW(adamw)
          .optReference(reference)
          .optFineTuning(fineTuning)
          .optUpdateSettings(new PolicyUpdater.Settings(oc.miniBatchTurns(), 8, oc.epochs(), true, true))
          .optValidateEvery(s.validateEvery)
          .optSeed(s.seed)
          .optCheckpoints(checkpoints)
          .addListener(metrics)
          .addListener(new LoggingListener())
          .addListener(new ChartListener(runDir));
      validations.forEach(tb::addValidation);
      if (bar != null && bar.enabled()) {
        tb.addListener(bar);
      }
      if (loader != null) {
        resources.add(0, remoteRollouts.apply(tb, policy, loader, runDir.resolve(RemoteRolloutOptions.PUSH_DIR)));
      }
      MageTrainer trainer = tb.build();
      if (checkpoint != null) {
        warnOnThreadChange(checkpoint);
        trainer.resume(checkpoint);
      }
      pw.printf(Locale.ROOT, "mage train: preset %s on %s, model %s, run directory %s%n", method.id(),
          provider.id(), modelDir, runDir);
      pw.printf(Locale.ROOT, "iterations %d..%d, %d x %d meta-episodes per iteration, seed %d%n",
          trainer.iteration(), s.iterations, rollout.tasks(), rollout.groupSize(), s.seed);
      if (adapter != null) {
        pw.printf(Locale.ROOT, "LoRA r=%d alpha=%s on %s: %,d trainable parameters, base weights frozen; KL %s%n",
            adapter.config().rank(), adapter.config().alpha(), s.loraTargets, adapter.parameterCount(),
            oc.klCoefficient() > 0 ? oc.klCoefficient() + " to the base model (adapter off)" : "off");
      }
      if (loader != null) {
        pw.printf(Locale.ROOT, "rollouts through %s as model '%s'; the adapter is pushed there before the first"
            + " rollout and after each update; old log-probs are recomputed here%n", remoteRollouts.endpoints,
            remoteRollouts.adapterName);
      }
      pw.flush();
      Map<String, Object> last = trainer.fit(s.iterations);
      if (bar != null) {
        bar.close();
      }
      pw.printf(Locale.ROOT, "done: %d iterations; metrics %s; charts %s; checkpoints %s%n", trainer.iteration(),
          metrics.file(), runDir.resolve("charts"), checkpoints.directory());
      checkpoints.best().ifPresent(b -> pw.println("best checkpoint by " + checkpoints.bestMetric().orElseThrow()
          + ": " + b));
      if (adapter != null) {
        Path adapterDir = runDir.resolve(ADAPTER_DIR);
        saveAdapter(adapter, adapterDir);
        pw.println("saved the LoRA adapter (PEFT layout) to " + adapterDir + "; base model " + modelDir
            + ". Merge it into a plain checkpoint with LoraMerge.exportMerged, or load it with"
            + " Qwen3Checkpoint.loadPolicy(base, options, adapterDir) / `mage lora --model BASE --adapter "
            + adapterDir + " --iterations 0`");
      }
      if (!last.isEmpty()) {
        pw.println("last iteration: success_rate " + successRates(last, "success_rate"));
      }
      pw.flush();
      return 0;
    } finally {
      for (AutoCloseable r : resources) {
        try {
          r.close();
        } catch (Exception e) {
          spec.commandLine().getErr().println("warning: closing " + r + ": " + e.getMessage());
        }
      }
    }
  }

  /**
   * Checks every size-type option that was given against its bound, and (for a new run) the response-token limit
   * and the LoRA rank against the model's config.json: one line per violation, exit code 2.
   */
  private void checkSizes() {
    Limits l = Limits.of(spec)
        .count("--iterations", iterations, 1, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--validate-every", validateEvery, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--checkpoint-every", checkpointEvery, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--keep", keep, 1, Limits.MAX_KEEP, Limits.SANE)
        .count("--threads", threads, 1, Limits.MAX_THREADS, Limits.SANE)
        .count("--tasks", tasks, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .count("--group-size", groupSize, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .metaEpisodes("--tasks x --group-size", tasks, groupSize)
        .count("--val-meta-episodes", valMetaEpisodes, 1, Limits.MAX_META_EPISODES, Limits.MEMORY);
    if (resume == null && model != null && !Boolean.TRUE.equals(tiny)) {
      // a missing model directory is reported where the model loads, after the other options are checked
      if ((maxNewTokens != null || loraRank != null)
          && Files.isRegularFile(model.resolve(org.magejvm.impl.llm.model.Qwen3Config.FILE_NAME))) {
        org.magejvm.impl.llm.model.Qwen3Config c = Limits.modelConfig(model);
        String where = model.resolve(org.magejvm.impl.llm.model.Qwen3Config.FILE_NAME).toString();
        l.tokens("--max-new-tokens", maxNewTokens, c.maxPositionEmbeddings(), where)
            .rank("--lora-rank", loraRank, c.hiddenSize(), where);
      }
    } else if (resume == null && Boolean.TRUE.equals(tiny)) {
      l.tokens("--max-new-tokens", maxNewTokens, Limits.TINY_CONTEXT, "the --tiny model's config.json")
          .rank("--lora-rank", loraRank, Limits.TINY_HIDDEN, "the --tiny model's config.json");
    } else {
      l.tokens("--max-new-tokens", maxNewTokens, 0, "");
    }
    l.check();
  }

  /** Writes the adapter to a temporary sibling and renames it over {@code dir}, so a reader never sees half of it. */
  private static void saveAdapter(LoraAdapter adapter, Path dir) {
    Path tmp = dir.resolveSibling("." + dir.getFileName() + ".tmp");
    Path old = dir.resolveSibling("." + dir.getFileName() + ".old");
    try {
      deleteRecursively(tmp);
      PeftAdapters.save(adapter, tmp);
      deleteRecursively(old);
      if (Files.exists(dir)) {
        Files.move(dir, old);
      }
      Files.move(tmp, dir, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      deleteRecursively(old);
    } catch (java.io.IOException e) {
      throw new TrainingException("cannot write the adapter to " + dir + ": " + e.getMessage(), e);
    }
  }

  private static void deleteRecursively(Path p) throws java.io.IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (java.util.stream.Stream<Path> s = Files.walk(p)) {
      for (Path f : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.delete(f);
      }
    }
  }

  private Settings fresh() {
    if (preset == null || env == null || out == null) {
      throw new IllegalArgumentException("a new run needs --preset, --env and --out (or --resume DIR)");
    }
    MethodPreset method = MethodPreset.parse(preset);
    if (!method.trains()) {
      throw new IllegalArgumentException("preset '" + method.id() + "' is evaluation-only (an untrained prompting"
          + " baseline); evaluate it with `mage play --preset " + method.id() + " --model DIR`, or train with mage,"
          + " lamer, gigpo or grpo");
    }
    boolean isTiny = Boolean.TRUE.equals(tiny);
    if (isTiny == (model != null)) {
      throw new IllegalArgumentException("give exactly one of --model DIR and --tiny");
    }
    if (!TrainingCheckpoint.list(out.resolve(TrainingCheckpoint.CHECKPOINTS_DIR)).isEmpty()) {
      // (a run killed before its first checkpoint just starts over: its metrics lines are dropped)
      throw new IllegalArgumentException(out + " already holds a run with checkpoints; continue it with --resume "
          + out + ", or choose another --out");
    }
    Settings s = new Settings();
    s.preset = method.id();
    s.env = env;
    s.model = model == null ? null : model.toAbsolutePath().normalize().toString();
    s.tiny = isTiny;
    // the sizes were checked by checkSizes()
    if (iterations != null) {
      s.iterations = iterations;
    }
    s.seed = seed == null ? 0 : seed;
    if (validateEvery != null) {
      s.validateEvery = validateEvery;
    }
    if (checkpointEvery != null) {
      s.checkpointEvery = checkpointEvery;
    }
    if (keep != null) {
      s.keep = keep;
    }
    s.threads = threads;
    if (lr != null) {
      s.lr = lr;
    }
    if (tasks != null) {
      s.tasks = tasks;
    }
    s.groupSize = groupSize;
    s.kl = kl;
    s.maxNewTokens = maxNewTokens;
    if (valMetaEpisodes != null) {
      s.valMetaEpisodes = valMetaEpisodes;
    }
    if (loraRank != null) {
      s.loraRank = loraRank;
      s.loraAlpha = loraAlpha == null ? 2.0 * s.loraRank : loraAlpha;
      if (!(s.loraAlpha > 0) || Double.isInfinite(s.loraAlpha)) {
        throw new IllegalArgumentException("--lora-alpha must be finite and > 0, got " + s.loraAlpha);
      }
      s.loraTargets = loraTargets == null ? LoraOptions.DEFAULT_TARGETS : loraTargets.trim();
      LoraOptions.parseTargets(s.loraTargets);
    } else if (loraAlpha != null || loraTargets != null) {
      throw new IllegalArgumentException("--lora-alpha and --lora-targets need --lora-rank");
    }
    return s;
  }

  /** With --resume only --iterations, --threads, --step-timeout and --progress may be given; anything else must match. */
  private void refuseChanges(Settings s, Path stateFile) {
    List<String> changed = new ArrayList<>();
    check(changed, "--preset", preset == null ? null : MethodPreset.parse(preset).id(), s.preset);
    check(changed, "--env", env, s.env);
    check(changed, "--model", model == null ? null : model.toAbsolutePath().normalize().toString(), s.model);
    check(changed, "--tiny", tiny, s.tiny);
    check(changed, "--seed", seed, s.seed);
    check(changed, "--validate-every", validateEvery, s.validateEvery);
    check(changed, "--checkpoint-every", checkpointEvery, s.checkpointEvery);
    check(changed, "--keep", keep, s.keep);
    check(changed, "--lr", lr, s.lr);
    check(changed, "--tasks", tasks, s.tasks);
    check(changed, "--group-size", groupSize, s.groupSize);
    check(changed, "--kl", kl, s.kl);
    check(changed, "--max-new-tokens", maxNewTokens, s.maxNewTokens);
    check(changed, "--val-meta-episodes", valMetaEpisodes, s.valMetaEpisodes);
    // --step-timeout is not recorded: like --threads it may change between sessions
    String noLora = "none: the checkpoint holds full weights";
    check(changed, "--lora-rank", loraRank, s.lora() ? s.loraRank : noLora);
    check(changed, "--lora-alpha", loraAlpha, s.lora() ? s.loraAlpha : noLora);
    check(changed, "--lora-targets", loraTargets, s.lora() ? s.loraTargets : noLora);
    if (out != null) {
      changed.add("--out (the run directory is the one being resumed)");
    }
    if (!changed.isEmpty()) {
      throw new IllegalArgumentException("--resume continues a run with its recorded settings; these options differ"
          + " from the ones recorded in " + stateFile + " (field 'run'): " + String.join(", ", changed)
          + " (only --iterations, --threads, --step-timeout and --progress may be given)");
    }
  }

  private static void check(List<String> changed, String name, Object given, Object recorded) {
    if (given != null && !Objects.equals(given, recorded)) {
      changed.add(name + " " + given + " (recorded: " + recorded + ")");
    }
  }

  private void warnOnThreadChange(TrainingCheckpoint checkpoint) {
    JsonElement saved = checkpoint.provenance().has("threads")
        ? checkpoint.provenance().getAsJsonObject("threads").get("num_threads") : null;
    String then = saved == null || saved.isJsonNull() ? null : saved.getAsString();
    String now = System.getProperty("ai.djl.pytorch.num_threads");
    if (!Objects.equals(then, now)) {
      spec.commandLine().getErr().println("warning: the checkpoint was written with ai.djl.pytorch.num_threads="
          + then + ", this run uses " + now + "; the resumed metrics will not be bit-identical to an"
          + " uninterrupted run");
    }
  }

  private static String successRates(Map<String, Object> m, String prefix) {
    List<String> parts = new ArrayList<>();
    for (int k = 0; m.get(prefix + "[" + k + "]") instanceof Number; k++) {
      parts.add(String.format(Locale.ROOT, "%.3f", ((Number) m.get(prefix + "[" + k + "]")).doubleValue()));
    }
    return String.join(" ", parts);
  }

}
