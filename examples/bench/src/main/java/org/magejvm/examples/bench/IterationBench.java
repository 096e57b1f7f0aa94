package org.magejvm.examples.bench;

import ai.djl.engine.Engine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.examples.quickstart.PromptCorpus;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.MemoryProbe;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * Measures {@link MageTrainer} iterations, in one of two modes chosen by {@code config=}.
 *
 * <h2>{@code config=quickstart} (the default): the quick start's run</h2>
 *
 * <p>Trains exactly what {@code ./mage quickstart} trains ({@code QuickStartIterationBench}): the tiny Qwen3 model
 * (127,808 parameters on Goalkeeper with its 455-token vocabulary, 131,776 on Kuhn Poker with 517) from the warm
 * start shipped in the jar, {@link
 * org.magejvm.examples.quickstart.GameRecipe#quickStartConfig} (the {@code mage} preset with 8 tasks x 8
 * meta-episodes, compact prompts with the earlier attempts' moves, 16 new tokens, KL to a frozen copy, the anchor
 * check) through the recipe's {@code trainingConfig(TrainingPreset.MAGE)}, the trainer from {@link
 * MageTrainer#builder(TrainingConfig, DjlLanguagePolicy, EnvironmentRegistry)} with a resident-memory probe, and one
 * libtorch thread as the quick start uses. Keys, all optional:
 *
 * <ul>
 *   <li>{@code env=mage-goalkeeper} the game: {@code mage-goalkeeper} or {@code mage-kuhn-poker} (the Kuhn Poker
 *       quick start; both warm starts are shipped for seed 1, other settings train one in the work directory, about 3
 *       minutes, cached under {@code dir=});
 *   <li>{@code warmup=3} unmeasured iterations, {@code iterations=20} measured ones;
 *   <li>{@code seed=1} the recipe's seed (the shipped warm starts are seed 1's; the training seed is derived from it
 *       as the quick start derives it);
 *   <li>{@code dir=} the work directory (warm start, tiny model); a new temporary directory by default;
 *   <li>{@code set=KEY=VALUE} changes a training-config key as {@code mage quickstart --set} does (for example {@code
 *       set=update.micro_batch_turns=16}); repeat it, or separate several with {@code ;} ({@code
 *       set=rollout.tasks=16;update.micro_batch_turns=32}); the config's {@code threads} and {@code iterations} keys
 *       are not used (see {@code threads=}, {@code iterations=});
 *   <li>{@code threads=1} libtorch intra-op threads ({@code default}: libtorch's own, one per core);
 *   <li>{@code microbatch=} micro-batch sizes to compare after the iterations, e.g. {@code 8,16,32,64} (off when
 *       empty), over {@code rounds=3} timed rounds;
 *   <li>{@code ceiling=true} measure the float32 1024^3 matmul ceiling ({@code ModelBench.matmulCeiling()}, same
 *       threads) before and after the run.
 * </ul>
 *
 * <p>Per iteration it prints the metrics' split: {@code timing/iteration_s}, {@code timing/rollout_s}, {@code
 * timing/scoring_s} (credit assignment and advantages), {@code timing/update_s} and its parts {@code
 * timing/update_old_s} (old log-probabilities; 0 when the recorded ones are used), {@code timing/update_reference_s}
 * (KL reference), {@code timing/update_optimize_s} (forward, backward, AdamW) and {@code timing/update_checks_s}
 * (anchor and KL checks); the tokens each update phase passed through the model ({@code tokens/update_*}, prompt
 * plus response, padding not counted); the rollout's generated tokens ({@code response_tokens_mean} x turns, exact);
 * and the phase peaks {@code memory/rollout_peak_mib}, {@code memory/scoring_peak_mib} (old and reference scoring),
 * {@code memory/update_peak_mib}. After the iterations one more rollout of the trainer's rollout config (another
 * seed, the trained policy; its time is printed beside the iterations') is scored as {@link MageTrainer#step()}
 * scores a batch: it gives the prompt lengths (the metrics count response tokens only) and the length profiles of the
 * FLOP estimate, and its rows are the batch of the micro-batch comparison. The summary gives, per phase, the median
 * seconds over the measured iterations and their share of the median iteration, the median tokens, the GFLOP the
 * phase needs and the median GFLOP/s it reaches with its share of the matmul ceiling; then iterations per second.
 *
 * <p>FLOP model (what the work needs; padding and recomputation not counted): with {@code N} the parameters outside
 * the embedding (and outside an untied output head), a forward pass over a sequence of {@code T} tokens of which
 * {@code R} get logits costs {@code 2 N T + 2 V d R + 2 L H h T^2} ({@code V} vocabulary, {@code d} hidden size,
 * {@code L} layers, {@code H} query heads of width {@code h}; the last term is causal attention's two products, {@code
 * 2 x 2 x L x H x h x T^2 / 2}). Teacher-forced scoring (old, reference, checks) is one forward pass with logits on
 * the response tokens; the optimize phase three (forward and backward), its AdamW step not counted. The rollout is
 * {@code 2 N (P + G) + 2 V d G + 2 L H h T^2} over its turns, {@code G} generated tokens (exact), {@code P} prompt
 * tokens (turns x the probe's mean prompt). The phases' token totals are exact; their response share and {@code
 * sum T^2 / sum T} come from the probe batch (its trained rows for old, reference and optimize; the anchor turns for
 * the checks).
 *
 * <p>{@code microbatch=}: for each size, over one untimed round and then {@code rounds=} rounds with the sizes in
 * alternating order (forward, backward, ...), (a) scoring the probe batch's trained rows without gradient in
 * micro-batches of rows sorted by length (as {@link PolicyUpdater} scores old and reference log-probabilities) and
 * (b) one full {@link PolicyUpdater#update} of the batch with the trainer's model, reference, policy optimizer,
 * AdamW, anchors and update settings but that micro-batch size, AdamW (weights, moments, step count) restored
 * after each: same rows, same weights for every size. It prints the median seconds per size and the update's parts.
 * Each of these updates is made by a new updater, so it scores the anchor turns before and after (in training the
 * after-scores of one update are the next one's before-scores): its checks take one anchor pass more than an
 * iteration's.
 *
 * <h2>{@code config=random}: a random tiny model on Kuhn Poker</h2>
 *
 * <p>The original measurement: the MAGE reference preset's training rollout (16 tasks x 8 meta-episodes of 3
 * episodes, differential return, GiGPO) with compact prompts, the history of earlier attempts in the prompt ({@link
 * ContextMode#HISTORY_ONLY}), training sampling with at most 16 new tokens, KL off and full fine-tuning. Prints each
 * iteration's time split from the metrics' {@code timing/*} keys (rollout, scoring: credit assignment and
 * advantages, update: old log-probabilities and the minibatch steps), generated tokens per second in the rollout and
 * trained (response) tokens per second in the update, after warm-up iterations.
 *
 * <p>The models are random checkpoints written by {@link TinyCheckpoint} with a tokenizer learned from Kuhn prompts
 * (as the quick start builds one): {@code tiny} is {@link TinyCheckpoint.Spec#small}; {@code 10m} has the
 * 10M benchmark model's widths (hidden 256, 4/2 heads of 64, MLP 768) with {@code layers10m=12} layers, which
 * gives about 10M parameters with this small vocabulary. An untrained model writes no valid action, so every turn
 * is an invalid action, most responses run to the 16-token limit and every advantage is zero: the figures measure
 * the machinery, not a learning run. So that the update still does its work, zero-advantage turns are trained too
 * by default ({@code skipzero=false}; the trainer's default skips them); the other update settings are
 * {@link PolicyUpdater.Settings#defaults()}.
 *
 * <p>Its keys, all optional: {@code models=tiny,10m}, {@code warmup=1},
 * {@code iterations=3} (measured), {@code tasks=16} and {@code group=8} (the preset's), {@code layers10m=12},
 * {@code seed=1}, {@code skipzero=false}, {@code maxkl=0} (the update check's KL limit, {@link
 * PolicyUpdater.Settings#maxUpdateKl()}; 0 leaves it off, a huge value such as {@code 1e9} measures its cost without
 * ever redoing an update), {@code dir=} (where the checkpoints are written; a new temporary
 * directory by default).
 *
 * <p>Run with {@code ./mage bench iteration [config=quickstart|random] [key=value...]} after {@code mvn -B -q package
 * -DskipTests}, for example {@code ./mage bench iteration microbatch=8,16,32,64} or {@code ./mage bench iteration
 * config=random models=tiny}.
 */
public final class IterationBench {
  private IterationBench() {}

  /** The environment. */
  static final String ENVIRONMENT = "mage-kuhn-poker";

  /**
   * Runs the benchmark.
   *
   * @param args {@code key=value} options (see the class comment)
   */
  public static void main(String[] args) {
    String config = "quickstart";
    List<String> rest = new ArrayList<>();
    for (String a : args) {
      if (a.startsWith("config=")) {
        config = a.substring("config=".length());
      } else {
        rest.add(a);
      }
    }
    switch (config) {
      case "quickstart":
        QuickStartIterationBench.run(rest.toArray(new String[0]));
        break;
      case "random":
        random(rest.toArray(new String[0]));
        break;
      default:
        throw new IllegalArgumentException("config=" + config + ": quickstart (the default) or random");
    }
  }

  /** The {@code config=random} mode: random tiny models on Kuhn Poker (see the class comment). */
  private static void random(String[] args) {
    Map<String, String> opt = new LinkedHashMap<>();
    opt.put("models", "tiny,10m");
    opt.put("warmup", "1");
    opt.put("iterations", "3");
    opt.put("tasks", String.valueOf(TrainingPreset.TRAINING_TASKS));
    opt.put("group", String.valueOf(TrainingPreset.MAGE.trainingGroupSize()));
    opt.put("layers10m", "12");
    opt.put("seed", "1");
    opt.put("skipzero", "false");
    opt.put("maxkl", "0");
    opt.put("dir", "");
    BenchArgs.apply(opt, args);
    Engine engine = Engine.getEngine("PyTorch");
    System.out.printf(Locale.ROOT,
        "IterationBench: %s %s, %d cores visible, libtorch threads %s, Java %s, load %s%n",
        engine.getEngineName(), engine.getVersion(), Runtime.getRuntime().availableProcessors(),
        System.getProperty("ai.djl.pytorch.num_threads", "default"), System.getProperty("java.version"),
        ProcStatus.loadAverage());
    System.out.println("options: " + opt);
    Path root = BenchArgs.workDir(opt, "mage-iteration-bench");
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    EnvironmentProvider provider = registry.require(ENVIRONMENT);
    long seed = Long.parseLong(opt.get("seed"));
    String corpus = PromptCorpus.of(provider, seed);
    List<String> summary = new ArrayList<>();
    for (String name : opt.get("models").split(",")) {
      name = name.trim();
      TinyCheckpoint.Spec spec;
      switch (name) {
        case "tiny":
          spec = TinyCheckpoint.Spec.small(corpus, seed);
          break;
        case "10m":
          spec = new TinyCheckpoint.Spec(256, Integer.parseInt(opt.get("layers10m")), 4, 2, 64, 768, 256, corpus,
              seed);
          break;
        default:
          throw new IllegalArgumentException("unknown model " + name + " (tiny or 10m)");
      }
      Path dir = root.resolve(name);
      Qwen3Config config = TinyCheckpoint.write(dir, spec);
      summary.add(run(name, dir, config, registry, provider, opt));
    }
    System.out.println();
    System.out.println("summary (the measured iteration of median time; of two, the faster):");
    summary.forEach(System.out::println);
    System.out.printf(Locale.ROOT, "load %s at the end; checkpoints in %s%n", ProcStatus.loadAverage(), root);
  }

  private static String run(String name, Path dir, Qwen3Config config, EnvironmentRegistry registry,
      EnvironmentProvider provider, Map<String, String> opt) {
    long seed = Long.parseLong(opt.get("seed"));
    int warmup = Integer.parseInt(opt.get("warmup"));
    int iterations = Integer.parseInt(opt.get("iterations"));
    TrainingPreset preset = TrainingPreset.MAGE_REFERENCE;
    TrainingConfig tc = preset.config(provider).toBuilder()
        .set("rollout.tasks", Integer.parseInt(opt.get("tasks")))
        .set("rollout.group_size", Integer.parseInt(opt.get("group")))
        .set("rollout.context_mode", ContextMode.HISTORY_ONLY)
        .set("rollout.prompt_style", PromptStyle.COMPACT)
        .set("sampling.max_new_tokens", 16)
        .set("loss.kl_coefficient", 0)
        .set("update.skip_zero_advantage", Boolean.parseBoolean(opt.get("skipzero")))
        .set("checks.max_update_kl", Double.parseDouble(opt.get("maxkl")))
        .set("validation.every", 0)
        .set("seed", seed)
        .build();
    System.out.printf(Locale.ROOT,
        "%n== %s: %,d parameters (hidden %d, %d layers, vocabulary %d); %s preset, %d tasks x %d, learning rate %g%n",
        name, config.parameterCount(), config.hiddenSize(), config.numHiddenLayers(), config.vocabSize(),
        preset.id(), tc.rollout().tasks(), tc.rollout().groupSize(), tc.adamw().learningRate());
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(dir,
        Qwen3Checkpoint.Options.cpu().withThinking(false).withSeed(seed))) {
      ProcStatus.resetPeak();
      try (MageTrainer trainer = MageTrainer.builder(tc, policy, registry)
          .optMemoryProbe(MemoryProbe.processRss())
          .build()) {
        TrainingConfig.UpdateSettings d = tc.update();
        RolloutConfig.Builder rolloutConfig = TrainingPreset.MAGE.trainingRollout(provider)
            .optTasks(tc.rollout().tasks())
            .optGroupSize(tc.rollout().groupSize())
            .optContextMode(ContextMode.HISTORY_ONLY)
            .optPromptStyle(PromptStyle.COMPACT)
            .optSampling(SamplingConfig.training(16));
        int n = warmup + iterations;
        double[][] rows = new double[iterations][];
        // the trainer's memory probe resets the kernel's peak before every phase, so the run's peak is the largest
        // phase peak
        double runPeak = ProcStatus.peakRssMiB();
        for (int i = 0; i < n; i++) {
          Map<String, Object> m = trainer.step();
          runPeak = Math.max(runPeak, Math.max(number(m, "memory/rollout_peak_mib"),
              Math.max(number(m, "memory/scoring_peak_mib"), number(m, "memory/update_peak_mib"))));
          double[] r = figures(m);
          System.out.printf(Locale.ROOT,
              "  it %d%s: %.2f s = rollout %.2f + scoring %.3f + update %.2f; %d turns (%.0f%% invalid), %.0f"
                  + " generated tokens = %.0f tokens/s; %d trained turns, ~%.0f trained tokens = %.0f tokens/s;"
                  + " RSS %.0f MiB, phase peaks rollout %.0f / scoring %.0f / update %.0f MiB, load %s%n",
              i, i < warmup ? " (warm-up)" : "", r[0], r[1], r[2], r[3], (long) r[4], 100 * r[8], r[5],
              r[5] / r[1], (long) r[6], r[7], r[7] / r[3], ProcStatus.rssMiB(), number(m, "memory/rollout_peak_mib"),
              number(m, "memory/scoring_peak_mib"), number(m, "memory/update_peak_mib"), ProcStatus.loadAverage());
          if (i >= warmup) {
            rows[i - warmup] = r;
          }
        }
        // the metrics count response tokens only; one more (untimed) rollout of at most two groups shows how long
        // the prompts are, which is what the update's forward and backward passes mostly process
        RolloutResult probe = new MetaEpisodeRunner(registry).run(rolloutConfig
            .optTasks(Math.min(2, Integer.parseInt(opt.get("tasks"))))
            .optSampling(SamplingConfig.training(16).withSeed(seed))
            .optSeed(seed)
            .build(), policy);
        long turns = 0;
        long promptTokens = 0;
        long responseTokens = 0;
        List<int[]> lengths = new ArrayList<>();
        for (MetaEpisode me : probe.metaEpisodes()) {
          for (Turn t : me.turns()) {
            turns++;
            promptTokens += t.promptTokenIds().length;
            responseTokens += t.responseLength();
            lengths.add(new int[] {t.promptTokenIds().length, t.responseLength()});
          }
        }
        double meanPrompt = (double) promptTokens / Math.max(1, turns);
        double meanResponse = (double) responseTokens / Math.max(1, turns);
        System.out.printf(Locale.ROOT,
            "  prompts (a probe rollout of %d turns): %.0f prompt + %.1f response tokens per turn on average, so the"
                + " update runs its passes over %.0f tokens per trained response token%n",
            turns, meanPrompt, meanResponse, (meanPrompt + meanResponse) / Math.max(1e-9, meanResponse));
        System.out.printf(Locale.ROOT,
            "  padding: micro-batches of %d turns in batch order process %.0f%% more slots than there are tokens;"
                + " sorted by length within each minibatch of %d, %.0f%% more%n",
            d.microBatchTurns(), 100 * padding(lengths, d.microBatchTurns(), d.miniBatchTurns(), false),
            d.miniBatchTurns(), 100 * padding(lengths, d.microBatchTurns(), d.miniBatchTurns(), true));
        // the iteration of median time (of two, the faster), with its own split
        double[][] sorted = rows.clone();
        Arrays.sort(sorted, (x, y) -> Double.compare(x[0], y[0]));
        double[] mid = sorted[(sorted.length - 1) / 2];
        double processed = (meanPrompt + meanResponse) * mid[6];
        double it = mid[0];
        double rollout = mid[1];
        double scoring = mid[2];
        double update = mid[3];
        return String.format(Locale.ROOT,
            "  %-4s (%,d parameters, %s x %s): %.2f s/iteration = rollout %.2f (%.0f%%) + scoring %.3f (%.1f%%) + update"
                + " %.2f (%.0f%%); rollout %.0f generated tokens/s, update %.0f trained tokens/s (about %.0f prompt and"
                + " response tokens/s); peak RSS %.0f MiB",
            name, config.parameterCount(), opt.get("tasks"), opt.get("group"), it, rollout, 100 * rollout / it, scoring,
            100 * scoring / it, update,
            100 * update / it, mid[9], mid[10], processed / update, Math.max(runPeak, ProcStatus.peakRssMiB()));
      }
    }
  }

  /**
   * The figures of one iteration's metrics: {iteration s, rollout s, scoring s, update s, turns, generated tokens,
   * trained turns, trained tokens (estimated), invalid share, generated tokens/s, trained tokens/s}.
   */
  private static double[] figures(Map<String, Object> m) {
    double iteration = number(m, "timing/iteration_s");
    double rollout = number(m, "timing/rollout_s");
    double scoring = number(m, "timing/scoring_s");
    double update = number(m, "timing/update_s");
    double turns = number(m, "play_turns") + number(m, "reflection_turns");
    // response_tokens_mean is the mean over every turn of the batch, so this product is exact
    double generated = number(m, "response_tokens_mean") * turns;
    double trainedTurns = number(m, "trained_turns");
    // the metrics do not count the trained rows' tokens; the batch mean stands in for theirs (exact when every
    // turn trains)
    double trained = trainedTurns * number(m, "response_tokens_mean");
    return new double[] {iteration, rollout, scoring, update, turns, generated, trainedTurns, trained,
        number(m, "invalid_action_rate"), generated / rollout, update > 0 ? trained / update : 0};
  }

  /**
   * The share of padding slots when rows of {prompt, response} lengths are cut into micro-batches the way the
   * policy updater does (each padded to its longest prompt and longest response), optionally after sorting each
   * minibatch's rows by length.
   */
  private static double padding(List<int[]> rows, int micro, int mini, boolean sorted) {
    long slots = 0;
    long tokens = 0;
    for (int start = 0; start < rows.size(); start += mini) {
      List<int[]> minibatch = new ArrayList<>(rows.subList(start, Math.min(rows.size(), start + mini)));
      if (sorted) {
        minibatch.sort((a, b) -> Integer.compare(a[0] + a[1], b[0] + b[1]));
      }
      for (int m = 0; m < minibatch.size(); m += micro) {
        List<int[]> mb = minibatch.subList(m, Math.min(minibatch.size(), m + micro));
        int prompt = 0;
        int response = 0;
        for (int[] r : mb) {
          prompt = Math.max(prompt, r[0]);
          response = Math.max(response, r[1]);
          tokens += r[0] + r[1];
        }
        slots += (long) mb.size() * (prompt + response);
      }
    }
    return tokens == 0 ? 0 : (double) (slots - tokens) / tokens;
  }

  private static double number(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof Number)) {
      throw new IllegalStateException("metric " + key + " missing from " + m.keySet());
    }
    return ((Number) v).doubleValue();
  }
}
