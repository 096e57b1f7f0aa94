package org.magejvm.examples.cli;

import org.magejvm.impl.train.TrainerBuilder;
import org.magejvm.examples.quickstart.PromptCorpus;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.listen.MetricsFileListener;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mage train}: trains a Qwen3 checkpoint (or a tiny random one) as a {@link TrainingConfig} describes it (a
 * {@code --preset} on {@code --env}, or a {@code --config} file, then the shortcut options and each {@code --set}),
 * writing {@code config.json}, {@code metrics.jsonl}, charts and checkpoints into the run directory; {@code mage
 * train --resume DIR} continues a run from its latest checkpoint with the config recorded there. With {@code --lora-rank} only a LoRA adapter trains
 * (the base weights stay frozen, the KL reference is the base model with the adapter off) and the run ends by writing
 * the adapter in PEFT layout to {@code RUN_DIR/adapter}.
 */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Train a Qwen3 policy from a training config: a preset (mage, mage-reference, lamer, gigpo, grpo;"
        + " see `mage presets`), a --config file and --set changes; --resume continues a run.")
final class TrainCommand implements Callable<Integer>, Limits.OptionPhase {

  /** Response tokens of the tiny model, unless --max-new-tokens says otherwise. */
  static final int TINY_MAX_NEW_TOKENS = 24;
  /** The run directory's subdirectory for the --tiny model. */
  static final String TINY_MODEL_DIR = "tiny-model";
  /** The run directory's subdirectory for the final LoRA adapter. */
  static final String ADAPTER_DIR = "adapter";

  @Option(names = "--preset", paramLabel = "P",
      description = "mage, mage-reference, lamer, gigpo or grpo (`mage presets` says what each sets).")
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

  @Option(names = "--iterations", paramLabel = "N", description = "Train until N iterations (--set iterations=N; preset: 150).")
  Integer iterations;

  @Option(names = "--seed", paramLabel = "S", description = "Base seed (--set seed=S; preset: 0).")
  Long seed;

  @Option(names = "--validate-every", paramLabel = "K", description = "Validate every K iterations (--set validation.every=K; preset: 5).")
  Integer validateEvery;

  @Option(names = "--checkpoint-every", paramLabel = "K",
      description = "Checkpoint every K iterations and at the end (--set checkpoints.every=K; preset: 10).")
  Integer checkpointEvery;

  @Option(names = "--keep", paramLabel = "N", description = "Keep the last N checkpoints and the best (--set checkpoints.keep=N; preset: 3).")
  Integer keep;

  @Option(names = "--threads", paramLabel = "T",
      description = "libtorch intra-op threads (default: libtorch's); a resume needs the same for exact metrics.")
  Integer threads;

  @Option(names = "--device", paramLabel = "cpu|gpu[:N]",
      description = "Where the policy rolls out, validates and trains: the CPU or CUDA device N, gpu is gpu:0"
          + " (--set hardware.device=D; preset: cpu); refused where the engine sees no CUDA GPU. See docs/gpu.md."
          + " May be given with --resume.")
  String device;

  @Option(names = "--precision", paramLabel = "float32|float16",
      description = "The type the policy trains in: float16 runs the model in float16 with float32 master weights,"
          + " float32 AdamW state and dynamic loss scaling (--set hardware.precision=P; preset: float32). bfloat16"
          + " is refused: it aborts the JVM on DJL's PyTorch engine. See docs/gpu.md.")
  String precision;

  @Option(names = "--lr", paramLabel = "X", description = "AdamW learning rate (--set adamw.learning_rate=X; mage: 5e-4, the others: 1e-6).")
  Double lr;

  @Option(names = "--tasks", paramLabel = "B", description = "Task groups per iteration (--set rollout.tasks=B; preset: 16).")
  Integer tasks;

  @Option(names = "--group-size", paramLabel = "G", description = "Meta-episodes per group (--set rollout.group_size=G; preset: 8, single-episode 24).")
  Integer groupSize;

  @Option(names = "--kl", paramLabel = "X",
      description = "KL coefficient against the initial model: a frozen copy, or with LoRA the base with the adapter"
          + " off (--set loss.kl_coefficient=X; mage: 1.0, the others: 0.1; 0: off).")
  Double kl;

  @Option(names = "--max-new-tokens", paramLabel = "N",
      description = "Response-token limit, also the length penalty's Lmax (sampling.max_new_tokens and"
          + " credit.max_response_tokens; default: the environment's, 24 with --tiny).")
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
      description = "Meta-episodes per validation set (--set validation.meta_episodes=M; preset: 128).")
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
  @Option(names = "--config", paramLabel = "FILE",
      description = "A training config file (JSON, as --print-config writes it); keys it omits come from its"
          + " \"preset\" (default mage) on its environment. Options below override it.")
  Path config;

  @CommandLine.Mixin ConfigOptions configOptions;

  /** The run's record besides its config: what the tool needs to rebuild the policy on --resume. */
  private record Run(String model, boolean tiny) {
    JsonObject toJson() {
      JsonObject o = new JsonObject();
      o.addProperty("command", "mage train");
      o.addProperty("model", model);
      o.addProperty("tiny", tiny);
      return o;
    }

    static Run fromJson(JsonObject o, Path file) {
      if (!o.has("command") || !"mage train".equals(o.get("command").getAsString())
          || !o.has(TrainingCheckpoint.CONFIG_KEY)) {
        throw new TrainingException(file + ": the checkpoint records no `mage train` config (it was written by"
            + " another program or an earlier version); resume it from Java with MageTrainer.resume");
      }
      JsonElement m = o.get("model");
      return new Run(m == null || m.isJsonNull() ? null : m.getAsString(), o.get("tiny").getAsBoolean());
    }
  }

  /**
   * The shortcut options as config changes, in a fixed order: each is the same as --set with its key(s).
   *
   * @return key and value pairs
   */
  private List<Map.Entry<String, Object>> shortcuts() {
    List<Map.Entry<String, Object>> out = new ArrayList<>();
    put(out, "iterations", iterations);
    put(out, "seed", seed);
    put(out, "validation.every", validateEvery);
    put(out, "checkpoints.every", checkpointEvery);
    put(out, "checkpoints.keep", keep);
    put(out, "threads", threads);
    put(out, "hardware.device", device);
    put(out, "hardware.precision", precision);
    put(out, "adamw.learning_rate", lr);
    put(out, "rollout.tasks", tasks);
    put(out, "rollout.group_size", groupSize);
    put(out, "loss.kl_coefficient", kl);
    put(out, "sampling.max_new_tokens", maxNewTokens);
    put(out, "credit.max_response_tokens", maxNewTokens);
    put(out, "validation.meta_episodes", valMetaEpisodes);
    put(out, "rollout.step_timeout_seconds", stepTimeout);
    if (loraRank != null) {
      put(out, "fine_tuning.mode", TrainingConfig.FineTuningSettings.LORA);
      put(out, "fine_tuning.lora_rank", loraRank);
      put(out, "fine_tuning.lora_alpha", loraAlpha == null ? 2.0 * loraRank : loraAlpha);
    } else {
      put(out, "fine_tuning.lora_alpha", loraAlpha);
    }
    if (loraTargets != null) {
      put(out, "fine_tuning.lora_targets", List.of(loraTargets.trim().split("\\s*,\\s*")));
    }
    return out;
  }

  private static void put(List<Map.Entry<String, Object>> out, String key, Object value) {
    if (value != null) {
      out.add(new java.util.AbstractMap.SimpleImmutableEntry<>(key, value));
    }
  }

  /** The option that sets a key, for messages. */
  private static final Map<String, String> OPTION_OF = Map.ofEntries(
      Map.entry("iterations", "--iterations"), Map.entry("seed", "--seed"),
      Map.entry("validation.every", "--validate-every"), Map.entry("checkpoints.every", "--checkpoint-every"),
      Map.entry("checkpoints.keep", "--keep"), Map.entry("threads", "--threads"),
      Map.entry("hardware.device", "--device"), Map.entry("hardware.precision", "--precision"),
      Map.entry("adamw.learning_rate", "--lr"), Map.entry("rollout.tasks", "--tasks"),
      Map.entry("rollout.group_size", "--group-size"), Map.entry("loss.kl_coefficient", "--kl"),
      Map.entry("sampling.max_new_tokens", "--max-new-tokens"),
      Map.entry("credit.max_response_tokens", "--max-new-tokens"),
      Map.entry("validation.meta_episodes", "--val-meta-episodes"),
      Map.entry("rollout.step_timeout_seconds", "--step-timeout"), Map.entry("fine_tuning.mode", "--lora-rank"),
      Map.entry("fine_tuning.lora_rank", "--lora-rank"), Map.entry("fine_tuning.lora_alpha", "--lora-alpha"),
      Map.entry("fine_tuning.lora_targets", "--lora-targets"));

  /**
   * Keys --resume may change: they do not change what the run computes (beyond float rounding: the library warns of
   * another device), or say how long it goes on.
   */
  private static final java.util.Set<String> RESUMABLE = java.util.Set.of("iterations", "threads",
      "rollout.step_timeout_seconds", "hardware.device");

  @Override
  public Integer call() {
    checkSizes();
    if (device != null && !configOptions.printConfig) {
      ModelOptions.parseDevice("--device", device, false); // a device the engine does not see: one line, now
    }
    Limits.stepTimeout(spec, stepTimeout); // (0, 86400] seconds, a usage error otherwise
    PrintWriter pw = spec.commandLine().getOut();
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    TrainingConfig c;
    Run run;
    Path runDir;
    TrainingCheckpoint checkpoint = null;
    if (resume != null) {
      checkpoint = TrainingCheckpoint.open(TrainingCheckpoint.locate(resume));
      Path stateFile = checkpoint.directory().resolve(TrainingCheckpoint.STATE_FILE);
      run = Run.fromJson(checkpoint.runConfiguration(), stateFile);
      c = TrainingConfig.ofCheckpoint(checkpoint).orElseThrow();
      c = refuseChanges(c, stateFile);
      Path cps = checkpoint.directory().toAbsolutePath().getParent();
      runDir = cps.getFileName().toString().equals(TrainingCheckpoint.CHECKPOINTS_DIR) ? cps.getParent() : cps;
    } else {
      run = fresh();
      c = resolve(registry);
      runDir = out;
    }
    if (configOptions.printConfig) {
      pw.print(c.toJson());
      pw.flush();
      return 0;
    }
    java.util.Optional<TrainingPreset> preset = TrainingPreset.find(c.preset());
    if (preset.isPresent() && !preset.get().trains()) {
      throw new IllegalArgumentException("preset '" + c.preset() + "' is evaluation-only (an untrained prompting"
          + " baseline); evaluate it with `mage play --preset " + c.preset() + " --model DIR`, or train with mage,"
          + " mage-reference, lamer, gigpo or grpo");
    }
    if (resume == null && !TrainingCheckpoint.list(out.resolve(TrainingCheckpoint.CHECKPOINTS_DIR)).isEmpty()) {
      // (a run killed before its first checkpoint just starts over: its metrics lines are dropped)
      throw new IllegalArgumentException(out + " already holds a run with checkpoints; continue it with --resume "
          + out + ", or choose another --out");
    }
    if (c.hardware().djlDevice().isGpu() && device == null) {
      // the GPU named by the config file (or a resumed run): refused as --device gpu is where there is none
      ModelOptions.requireGpu("hardware.device", c.hardware().device(), c.hardware().djlDevice().getDeviceId());
    }
    org.magejvm.impl.openai.VllmAdapterLoader loader = remoteRollouts.validate(spec, c.fineTuning().lora());
    if (c.threads() > 0) {
      System.setProperty("ai.djl.pytorch.num_threads", Integer.toString(c.threads()));
    }
    EnvironmentProvider provider = registry.require(c.environment().id());
    Limits.of(spec).metaEpisodes("--tasks x --group-size", c.rollout().tasks(), c.rollout().groupSize()).check();
    Path modelDir = run.tiny() ? runDir.resolve(TINY_MODEL_DIR) : Path.of(run.model());
    if (resume == null && c.fineTuning().lora() && c.fineTuning().baseModel() == null) {
      c = c.with("fine_tuning.base_model", modelDir.toAbsolutePath().normalize().toString());
    }
    Limits.endOfOptions();
    if (run.tiny() && !Files.isRegularFile(modelDir.resolve("model.safetensors"))) {
      pw.println("writing a tiny random Qwen3 checkpoint to " + modelDir);
      pw.flush();
      TinyCheckpoint.write(modelDir, TinyCheckpoint.Spec.small(PromptCorpus.withReflection(provider, c.seed()),
          Seeds.derive(c.seed(), 7, 0)));
    }
    if (resume == null) {
      writeConfig(runDir, c);
    }

    List<AutoCloseable> resources = new ArrayList<>();
    try {
      // the policy on the config's device in its precision (the trainer checks that it is)
      Qwen3Checkpoint.Options options = Qwen3Checkpoint.Options.cpu().withSeed(c.seed());
      if (!c.hardware().equals(TrainingConfig.HardwareSettings.cpu())) {
        options = options.withDevice(c.hardware().djlDevice()).withDtype(c.hardware().precision().dataType());
      }
      DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(modelDir, options);
      resources.add(policy);
      TrainerBuilder tb = MageTrainer.builder(c, policy, registry);
      resources.add(0, tb);
      // the library's run directory: config.json, metrics.jsonl, log lines, charts, progress bar, checkpoints
      tb.optBaseModel(modelDir).optRunDirectory(runDir, run.toJson()).optProgressBar(progress);
      if (loader != null) {
        resources.add(0, remoteRollouts.apply(tb, policy, loader, runDir.resolve(RemoteRolloutOptions.PUSH_DIR)));
      }
      MageTrainer trainer = tb.build();
      if (checkpoint != null) {
        warnOnThreadChange(checkpoint);
        trainer.resume(checkpoint);
      }
      pw.printf(Locale.ROOT, "mage train: preset %s on %s, model %s, run directory %s (config %s)%n", c.preset(),
          provider.id(), modelDir, runDir, runDir.resolve(CONFIG_FILE));
      pw.printf(Locale.ROOT, "iterations %d..%d, %d x %d meta-episodes per iteration, seed %d%n",
          trainer.iteration(), c.iterations(), c.rollout().tasks(), c.rollout().groupSize(), c.seed());
      if (!c.hardware().equals(TrainingConfig.HardwareSettings.cpu())) {
        pw.printf(Locale.ROOT, "on %s in %s%s%n", c.hardware().device(),
            c.hardware().precision().name().toLowerCase(Locale.ROOT), c.hardware().precision().reduced()
                ? " (float32 master weights and AdamW state, dynamic loss scaling)" : "");
      }
      LoraAdapter adapter = trainer.fineTuning().flatMap(f -> f.adapter()).orElse(null);
      if (adapter != null) {
        pw.printf(Locale.ROOT, "LoRA r=%d alpha=%s on %s: %,d trainable parameters, base weights frozen; KL %s%n",
            adapter.config().rank(), adapter.config().alpha(), String.join(",", c.fineTuning().loraTargets()),
            adapter.parameterCount(), c.loss().klCoefficient() > 0
                ? c.loss().klCoefficient() + " to the base model (adapter off)" : "off");
      }
      if (loader != null) {
        pw.printf(Locale.ROOT, "rollouts through %s as model '%s'; the adapter is pushed there before the first"
            + " rollout and after each update; old log-probs are recomputed here%n", remoteRollouts.endpoints,
            remoteRollouts.adapterName);
      }
      pw.flush();
      Map<String, Object> last = trainer.fit();
      CheckpointManager checkpoints = trainer.checkpoints().orElseThrow();
      pw.printf(Locale.ROOT, "done: %d iterations; metrics %s; charts %s; checkpoints %s%n", trainer.iteration(),
          runDir.resolve(MetricsFileListener.FILE_NAME), runDir.resolve("charts"), checkpoints.directory());
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
      trainer.close();
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

  /** The file in the run directory that holds the resolved config. */
  static final String CONFIG_FILE = "config.json";

  /**
   * Writes the resolved config to {@code DIR/config.json} (atomically).
   *
   * @param runDir the run directory
   * @param c the config
   */
  static void writeConfig(Path runDir, TrainingConfig c) {
    try {
      Files.createDirectories(runDir);
      org.magejvm.api.util.AtomicFiles.writeString(runDir.resolve(CONFIG_FILE), c.toJson());
    } catch (java.io.IOException e) {
      throw new TrainingException("cannot write " + runDir.resolve(CONFIG_FILE) + ": " + e.getMessage(), e);
    }
  }

  /**
   * The config of a new run: the --config file, else the --preset on --env; then the shortcut options, then each
   * --set, in order.
   */
  TrainingConfig resolve(EnvironmentRegistry registry) {
    TrainingConfig base;
    if (config != null) {
      base = TrainingConfig.read(config, registry);
      if (preset != null) {
        throw new IllegalArgumentException("give --config FILE or --preset NAME, not both (a config file names its"
            + " preset)");
      }
      if (env != null && !env.equals(base.environment().id())) {
        base = base.with("environment.id", env);
      }
    } else {
      if (preset == null || env == null) {
        throw new IllegalArgumentException("a new run needs --preset and --env (or --config FILE), and --out");
      }
      base = TrainingPreset.parse(preset).config(registry.require(env));
    }
    TrainingConfig.Builder b = base.toBuilder();
    if (Boolean.TRUE.equals(tiny) && maxNewTokens == null) {
      b.set("sampling.max_new_tokens", TINY_MAX_NEW_TOKENS).set("credit.max_response_tokens", TINY_MAX_NEW_TOKENS);
    }
    for (Map.Entry<String, Object> e : shortcuts()) {
      b.set(e.getKey(), e.getValue());
    }
    return configOptions.apply(b.build());
  }

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

  private Run fresh() {
    if (out == null && !configOptions.printConfig) {
      throw new IllegalArgumentException("a new run needs --out DIR (or --resume DIR)");
    }
    boolean isTiny = Boolean.TRUE.equals(tiny);
    if (isTiny == (model != null) && !configOptions.printConfig) {
      throw new IllegalArgumentException("give exactly one of --model DIR and --tiny");
    }
    if (loraRank == null && (loraAlpha != null || loraTargets != null)) {
      throw new IllegalArgumentException("--lora-alpha and --lora-targets need --lora-rank");
    }
    return new Run(model == null ? null : model.toAbsolutePath().normalize().toString(), isTiny);
  }

  /**
   * With --resume: the recorded config, with only the keys a resume may change; any other change is refused naming
   * the option and the recorded value.
   */
  private TrainingConfig refuseChanges(TrainingConfig recorded, Path stateFile) {
    List<String> changed = new ArrayList<>();
    if (preset != null && !TrainingPreset.parse(preset).id().equals(recorded.preset())) {
      changed.add("--preset " + preset + " (recorded: " + recorded.preset() + ")");
    }
    if (env != null && !env.equals(recorded.environment().id())) {
      changed.add("--env " + env + " (recorded: " + recorded.environment().id() + ")");
    }
    for (String o : List.of("--config", "--model", "--tiny", "--out", "--set")) {
      if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
        changed.add(o + " (the run's config is the one recorded)");
      }
    }
    TrainingConfig.Builder b = recorded.toBuilder();
    JsonObject before = recorded.toJsonObject();
    for (Map.Entry<String, Object> e : shortcuts()) {
      String key = e.getKey();
      if (RESUMABLE.contains(key)) {
        b.set(key, e.getValue());
        continue;
      }
      JsonElement was = at(before, key);
      JsonElement now = at(recorded.with(key, e.getValue()).toJsonObject(), key);
      if (!now.equals(was)) {
        String option = OPTION_OF.get(key);
        String shown = key.startsWith("fine_tuning.") && !recorded.fineTuning().lora()
            ? "none: the checkpoint holds full weights" : was.isJsonPrimitive() ? was.getAsString() : was.toString();
        String entry = option + " " + givenText(option) + " (recorded: " + shown + ")";
        if (!changed.contains(entry)) {
          changed.add(entry);
        }
      }
    }
    if (!changed.isEmpty()) {
      throw new IllegalArgumentException("--resume continues a run with its recorded config; these options differ"
          + " from the one recorded in " + stateFile + " (field 'run'): " + String.join(", ", changed)
          + " (only --iterations, --threads, --step-timeout, --device and --progress may be given)");
    }
    return b.build();
  }

  private String givenText(String option) {
    CommandLine.Model.OptionSpec o = spec.commandLine().getParseResult().matchedOption(option);
    return o == null ? "" : String.valueOf(o.getValue().toString());
  }

  private static JsonElement at(JsonObject o, String dottedKey) {
    JsonElement e = o;
    for (String p : dottedKey.split("\\.")) {
      e = e.getAsJsonObject().get(p);
    }
    return e;
  }

  private void warnOnThreadChange(TrainingCheckpoint checkpoint) {
    JsonElement saved = checkpoint.provenance().has("threads")
        ? checkpoint.provenance().getAsJsonObject("threads").get("num_threads") : null;
    String then = saved == null || saved.isJsonNull() ? null : saved.getAsString();
    String now = System.getProperty("ai.djl.pytorch.num_threads");
    if (!java.util.Objects.equals(then, now)) {
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
