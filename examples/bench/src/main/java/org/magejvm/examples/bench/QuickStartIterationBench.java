package org.magejvm.examples.bench;

import ai.djl.engine.Engine;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.examples.quickstart.ShippedWarmStart;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.model.LibtorchThreads;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.MemoryProbe;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.update.ReferencePolicy;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The {@code config=quickstart} mode of {@link IterationBench} (its default): {@link MageTrainer} iterations on exactly
 * what {@code ./mage quickstart} trains. The recipe ({@link GameRecipe}) with {@link GameRecipe#quickStartConfig} and
 * the {@code mage} method, the warm start shipped in the jar ({@link ShippedWarmStart}; trained in the work directory
 * when none is shipped for the settings), the trainer built by {@link MageTrainer#builder(TrainingConfig,
 * DjlLanguagePolicy, EnvironmentRegistry)} with a {@link MemoryProbe#processRss()} probe, and the quick start's one
 * libtorch thread. The class comment of {@link IterationBench} lists the keys and says what is printed; the FLOP
 * model is described there too.
 */
final class QuickStartIterationBench {
  private QuickStartIterationBench() {}

  /** The seed stream of the probe rollout (not one the trainer uses). */
  private static final long PROBE_STREAM = 7001;

  /** The phases of the summary, as metric keys. */
  private static final String[] PHASES = {"timing/iteration_s", "timing/rollout_s", "timing/scoring_s",
      "timing/update_s", "timing/update_old_s", "timing/update_reference_s", "timing/update_optimize_s",
      "timing/update_checks_s"};
  /** The keys only {@code config=random} takes. */
  private static final List<String> RANDOM_KEYS = List.of("models", "tasks", "group", "layers10m", "skipzero", "maxkl");

  private static final String[] LABELS = {"iteration", "rollout", "scoring", "update", "  old log-probs",
      "  reference", "  optimize", "  checks"};

  /**
   * Runs the mode.
   *
   * @param args {@code key=value} arguments other than {@code config=} (see {@link IterationBench})
   */
  static void run(String[] args) {
    List<String> sets = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    for (String a : args) {
      if (a.startsWith("set=")) {
        for (String s : a.substring(4).split(";")) {
          if (!s.isBlank()) {
            sets.add(s.strip());
          }
        }
      } else {
        rest.add(a);
      }
    }
    Map<String, String> opt = new LinkedHashMap<>();
    opt.put("env", GameRecipe.GOALKEEPER.environment());
    opt.put("warmup", "3");
    opt.put("iterations", "20");
    opt.put("seed", "1");
    opt.put("dir", "");
    opt.put("threads", "1");
    opt.put("microbatch", "");
    opt.put("rounds", "3");
    opt.put("ceiling", "true");
    for (String a : rest) {
      String key = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (RANDOM_KEYS.contains(key)) {
        throw new IllegalArgumentException(key + "= is a key of config=random (random tiny models on Kuhn Poker),"
            + " not of the default config=quickstart; add config=random for that measurement");
      }
    }
    try {
      BenchArgs.apply(opt, rest.toArray(new String[0]));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + ", set (config=quickstart)", e);
    }
    if (!opt.get("threads").equals("default")) {
      LibtorchThreads.set(Integer.parseInt(opt.get("threads")));
    }
    Engine engine = Engine.getEngine("PyTorch");
    System.out.printf(Locale.ROOT,
        "IterationBench (quickstart): %s %s, %d cores visible, libtorch threads %s, Java %s, load %s%n",
        engine.getEngineName(), engine.getVersion(), Runtime.getRuntime().availableProcessors(),
        System.getProperty("ai.djl.pytorch.num_threads", "default"), System.getProperty("java.version"),
        ProcStatus.loadAverage());
    System.out.println("options: " + opt + (sets.isEmpty() ? "" : ", set " + sets));
    int warmup = Integer.parseInt(opt.get("warmup"));
    int iterations = Integer.parseInt(opt.get("iterations"));
    if (warmup < 0 || iterations < 1) {
      throw new IllegalArgumentException("warmup must be >= 0 and iterations >= 1");
    }
    long seed = Long.parseLong(opt.get("seed"));
    List<Integer> micro = new ArrayList<>();
    for (String s : opt.get("microbatch").split(",")) {
      if (!s.isBlank()) {
        micro.add(Integer.parseInt(s.strip()));
      }
    }
    int rounds = Integer.parseInt(opt.get("rounds"));
    if (rounds < 1 || micro.stream().anyMatch(m -> m < 1)) {
      throw new IllegalArgumentException("rounds and the micro-batch sizes must be >= 1");
    }
    double ceilingBefore = Double.NaN;
    boolean ceiling = Boolean.parseBoolean(opt.get("ceiling"));
    if (ceiling) {
      double[] c = ModelBench.matmulCeiling();
      ceilingBefore = c[0];
      System.out.printf(Locale.ROOT, "ceiling: matmul 1024^3 f32 %.1f GFLOP/s (best of 12, %.2f ms), before the run%n",
          c[0], c[1] * 1e3);
    }

    Path root = BenchArgs.workDir(opt, "mage-iteration-bench");
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    RecipeGame game = game(opt.get("env"));
    EnvironmentProvider provider = registry.require(game.environment());
    TrainingConfig.Builder tb = GameRecipe.quickStartConfig(provider, seed).toBuilder();
    sets.forEach(tb::set);
    TrainingConfig training = tb.build();
    if (!training.environment().id().equals(game.environment())) {
      throw new IllegalArgumentException("set= changed environment.id to " + training.environment().id()
          + "; choose the game with env=");
    }
    PrintWriter progress = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    GameRecipe recipe = new GameRecipe(registry, game, RecipeSettings.builder(root, training).optSeed(seed)
        .build(), progress);
    if (ShippedWarmStart.install(recipe)) {
      System.out.println("warm start: the one shipped with mage, copied to " + recipe.warmStartDir());
    } else if (!Files.exists(recipe.warmStartDir().resolve("model.safetensors"))) {
      System.out.println("warm start: none shipped for these settings; training it in " + recipe.warmStartDir()
          + " (about 3 minutes, cached for the next run with the same dir=)");
      recipe.tinyModel();
    }
    Path warm = recipe.warmStart();
    TrainingConfig config = recipe.trainingConfig(TrainingPreset.MAGE);
    Qwen3Config modelConfig = Qwen3Config.fromFile(warm);
    Flops flops = Flops.of(modelConfig);
    TrainingConfig.UpdateSettings u = config.update();
    System.out.printf(Locale.ROOT,
        "%n== %s: %,d parameters (%,d outside the embedding; hidden %d, %d layers, %d heads of %d, vocabulary %d);"
            + " preset %s, %d tasks x %d meta-episodes of %d attempts, %d new tokens, minibatch %d, micro-batch %d,"
            + " old log-probs %s, KL %s, anchor check %s; work dir %s%n",
        game.environment(), modelConfig.parameterCount(), flops.body, modelConfig.hiddenSize(),
        modelConfig.numHiddenLayers(), modelConfig.numAttentionHeads(), modelConfig.headDim(),
        modelConfig.vocabSize(), config.preset(), config.rollout().tasks(), config.rollout().groupSize(),
        config.rollout().episodes(), config.sampling().maxNewTokens(), u.miniBatchTurns(), u.microBatchTurns(),
        u.oldLogProbs().name().toLowerCase(Locale.ROOT), config.loss().klCoefficient(),
        config.checks().maxAnchorDrop() > 0 ? config.checks().anchorTurns() + " turns, limit "
            + config.checks().maxAnchorDrop() : "off", root);

    try (DjlLanguagePolicy policy = recipe.load(warm)) {
      ProcStatus.resetPeak();
      try (MageTrainer trainer = MageTrainer.builder(config, policy, registry)
          .optMemoryProbe(MemoryProbe.processRss())
          .build()) {
        List<Map<String, Object>> measured = new ArrayList<>();
        double runPeak = 0;
        for (int i = 0; i < warmup + iterations; i++) {
          Map<String, Object> m = trainer.step();
          runPeak = Math.max(runPeak, Math.max(number(m, "memory/rollout_peak_mib"),
              Math.max(number(m, "memory/scoring_peak_mib"), number(m, "memory/update_peak_mib"))));
          printIteration(i, i < warmup, m);
          if (i >= warmup) {
            measured.add(m);
          }
        }
        Probe probe = probe(config, policy, registry, trainer);
        summary(measured, probe, flops, ceilingBefore);
        if (!micro.isEmpty()) {
          sweep(micro, rounds, probe, trainer, policy);
        }
        if (ceiling) {
          double[] c = ModelBench.matmulCeiling();
          System.out.printf(Locale.ROOT, "ceiling: matmul 1024^3 f32 %.1f GFLOP/s after the run (%.1f before)%n",
              c[0], ceilingBefore);
        }
        System.out.printf(Locale.ROOT, "peak RSS %.0f MiB; load %s at the end; work dir %s%n",
            Math.max(runPeak, ProcStatus.peakRssMiB()), ProcStatus.loadAverage(), root);
      }
    }
  }

  private static RecipeGame game(String env) {
    for (RecipeGame g : List.of(GameRecipe.GOALKEEPER, GameRecipe.KUHN)) {
      if (g.environment().equals(env)) {
        return g;
      }
    }
    throw new IllegalArgumentException("env=" + env + ": the quick start plays " + GameRecipe.GOALKEEPER.environment()
        + " or " + GameRecipe.KUHN.environment());
  }

  private static void printIteration(int i, boolean warmup, Map<String, Object> m) {
    double turns = number(m, "play_turns") + number(m, "reflection_turns");
    System.out.printf(Locale.ROOT,
        "  it %2d%s: %.3f s = rollout %.3f + scoring %.4f + update %.3f (old %.3f, reference %.3f, optimize %.3f,"
            + " checks %.3f); tokens: rollout %.0f generated in %.0f turns, old %d, reference %d, optimize %d,"
            + " checks %d; %d trained turns; peaks rollout %.0f / scoring %.0f / update %.0f MiB; load %s%n",
        i, warmup ? " (warm-up)" : "", number(m, "timing/iteration_s"), number(m, "timing/rollout_s"),
        number(m, "timing/scoring_s"), number(m, "timing/update_s"), number(m, "timing/update_old_s"),
        number(m, "timing/update_reference_s"), number(m, "timing/update_optimize_s"),
        number(m, "timing/update_checks_s"), generated(m), turns, (long) number(m, "tokens/update_old"),
        (long) number(m, "tokens/update_reference"), (long) number(m, "tokens/update_optimize"),
        (long) number(m, "tokens/update_checks"), (long) number(m, "trained_turns"),
        number(m, "memory/rollout_peak_mib"), number(m, "memory/scoring_peak_mib"),
        number(m, "memory/update_peak_mib"), ProcStatus.loadAverage());
  }

  /** Generated tokens of an iteration: response_tokens_mean is the mean over every turn, so this is exact. */
  private static double generated(Map<String, Object> m) {
    return number(m, "response_tokens_mean") * (number(m, "play_turns") + number(m, "reflection_turns"));
  }

  /**
   * The FLOP model: {@code body} parameters outside the embedding (and the untied output head), the output head's
   * {@code 2 x vocabulary x hidden} per scored position, attention's {@code 2 x layers x heads x head_dim} per
   * squared sequence length.
   */
  private record Flops(long body, long head, long attention) {
    static Flops of(Qwen3Config c) {
      long embedding = (long) c.vocabSize() * c.hiddenSize();
      long body = c.parameterCount() - embedding - (c.tieWordEmbeddings() ? 0 : embedding);
      return new Flops(body, 2L * embedding, 2L * c.numHiddenLayers() * c.numAttentionHeads() * c.headDim());
    }

    /**
     * @param tokens prompt and response tokens through the model
     * @param scored positions whose logits are computed
     * @param squares the sum of the squared sequence lengths
     * @return forward FLOPs
     */
    double forward(double tokens, double scored, double squares) {
      return 2.0 * body * tokens + head * scored + attention * squares;
    }
  }

  /**
   * Length profile of a set of rows: per token of a sequence, the share of response tokens (positions whose logits
   * are computed) and the sum of squared lengths, so that a phase's token total gives its FLOPs.
   */
  private record Profile(int rows, double meanPrompt, double meanResponse, double responseShare,
      double squaresPerToken, double meanSquare) {
    static Profile of(List<PolicyUpdater.Row> rows) {
      double prompt = 0;
      double response = 0;
      double squares = 0;
      for (PolicyUpdater.Row r : rows) {
        double t = r.prompt().length + r.response().length;
        prompt += r.prompt().length;
        response += r.response().length;
        squares += t * t;
      }
      double tokens = Math.max(1, prompt + response);
      return new Profile(rows.size(), prompt / Math.max(1, rows.size()), response / Math.max(1, rows.size()),
          response / tokens, squares / tokens, squares / Math.max(1, rows.size()));
    }

    double forward(Flops f, double tokens) {
      return f.forward(tokens, tokens * responseShare, tokens * squaresPerToken);
    }
  }

  /** The probe rollout: the rows of one batch, as the trainer builds them, and the length profiles. */
  private record Probe(List<PolicyUpdater.Row> rows, List<PolicyUpdater.Row> anchors, PolicyOptimizer optimizer,
      Profile turns, Profile trained, Profile anchorProfile) {}

  /**
   * One training batch of the trainer's kind (another seed) with the trained policy, built by {@link
   * MageTrainer#scoredBatch} as {@link MageTrainer#step()} builds one: rollout, credit assignment, advantages.
   */
  private static Probe probe(TrainingConfig config, DjlLanguagePolicy policy, EnvironmentRegistry registry,
      MageTrainer trainer) {
    long seed = Seeds.derive(config.seed(), PROBE_STREAM, trainer.iteration());
    long t0 = System.nanoTime();
    List<PolicyUpdater.Row> rows = trainer.scoredBatch(seed);
    long t1 = System.nanoTime();
    List<PolicyUpdater.Row> anchors = config.checks().maxAnchorDrop() > 0
        ? MageTrainer.anchorTurns(config, policy, registry) : List.of();
    Profile turns = Profile.of(rows);
    Profile trained = Profile.of(trainedRows(rows, config.update().skipZeroAdvantage()));
    Profile anchorProfile = anchors.isEmpty() ? trained : Profile.of(anchors);
    System.out.printf(Locale.ROOT,
        "%nprobe batch (the trainer's rollout config with another seed, the trained policy): %d turns in %.3f s"
            + " (rollout, credit and advantages); per turn %.1f prompt + %.2f response tokens; %d trained rows of %.1f"
            + " prompt + %.2f response tokens (sum T^2 / sum T = %.1f); %d anchor turns of %.1f + %.2f tokens%n",
        turns.rows(), (t1 - t0) / 1e9, turns.meanPrompt(), turns.meanResponse(), trained.rows(),
        trained.meanPrompt(), trained.meanResponse(), trained.squaresPerToken(), anchors.size(),
        anchorProfile.meanPrompt(), anchorProfile.meanResponse());
    return new Probe(rows, anchors, trainer.policyOptimizer(), turns, trained, anchorProfile);
  }

  /** The rows an update trains: a response, and a non-zero advantage when zero ones are skipped. */
  private static List<PolicyUpdater.Row> trainedRows(List<PolicyUpdater.Row> rows, boolean skipZero) {
    List<PolicyUpdater.Row> out = new ArrayList<>();
    for (PolicyUpdater.Row r : rows) {
      if (r.response().length > 0 && !(skipZero && r.advantage() == 0)) {
        out.add(r);
      }
    }
    return out;
  }

  /** The median over the measured iterations of each phase's seconds, GFLOP and throughput. */
  private static void summary(List<Map<String, Object>> measured, Probe probe, Flops flops, double ceiling) {
    int n = measured.size();
    double[][] seconds = new double[PHASES.length][n];
    double[][] gflop = new double[PHASES.length][n];
    double[][] tokens = new double[PHASES.length][n];
    double[] promptTokens = new double[n];
    double total = 0;
    for (int i = 0; i < n; i++) {
      Map<String, Object> m = measured.get(i);
      for (int p = 0; p < PHASES.length; p++) {
        seconds[p][i] = number(m, PHASES[p]);
      }
      total += seconds[0][i];
      double turns = number(m, "play_turns") + number(m, "reflection_turns");
      double g = generated(m);
      double p = turns * probe.turns().meanPrompt();
      promptTokens[i] = p;
      // rollout: prompt prefill and one decoding step per generated token; logits at every generated position;
      // attention over each turn's whole sequence (the probe's sum of squared lengths per turn)
      gflop[1][i] = flops.forward(p + g, g, turns * probe.turns().meanSquare()) / 1e9;
      tokens[1][i] = p + g;
      double old = number(m, "tokens/update_old");
      double ref = number(m, "tokens/update_reference");
      double opt = number(m, "tokens/update_optimize");
      double chk = number(m, "tokens/update_checks");
      tokens[4][i] = old;
      tokens[5][i] = ref;
      tokens[6][i] = opt;
      tokens[7][i] = chk;
      gflop[4][i] = probe.trained().forward(flops, old) / 1e9;
      gflop[5][i] = probe.trained().forward(flops, ref) / 1e9;
      gflop[6][i] = 3 * probe.trained().forward(flops, opt) / 1e9;
      gflop[7][i] = probe.anchorProfile().forward(flops, chk) / 1e9;
      gflop[3][i] = gflop[4][i] + gflop[5][i] + gflop[6][i] + gflop[7][i];
      tokens[3][i] = old + ref + opt + chk;
      gflop[0][i] = gflop[1][i] + gflop[3][i];
      tokens[0][i] = tokens[1][i] + tokens[3][i];
    }
    double it = median(seconds[0]);
    System.out.printf(Locale.ROOT,
        "%nsummary over %d measured iterations: medians; share of the median iteration; GFLOP needed (estimated,"
            + " see the class comment) and the GFLOP/s reached, as a share of the matmul ceiling (%s)%n",
        n, Double.isNaN(ceiling) ? "not measured: ceiling=false"
            : String.format(Locale.ROOT, "%.1f GFLOP/s", ceiling));
    System.out.printf(Locale.ROOT, "  %-16s %9s %7s %12s %9s %9s %8s%n", "phase", "seconds", "share", "tokens",
        "GFLOP", "GFLOP/s", "ceiling");
    for (int p = 0; p < PHASES.length; p++) {
      double s = median(seconds[p]);
      boolean flop = p != 2;
      double[] rate = new double[n];
      int k = 0;
      for (int i = 0; i < n; i++) {
        if (seconds[p][i] > 0) {
          rate[k++] = gflop[p][i] / seconds[p][i];
        }
      }
      double r = k == 0 ? Double.NaN : median(Arrays.copyOf(rate, k));
      System.out.printf(Locale.ROOT, "  %-16s %9.4f %6.1f%% %12s %9s %9s %8s%n", LABELS[p], s, 100 * s / it,
          flop ? String.format(Locale.ROOT, "%.0f", median(tokens[p])) : "-",
          flop ? String.format(Locale.ROOT, "%.3f", median(gflop[p])) : "-",
          flop && k > 0 ? String.format(Locale.ROOT, "%.2f", r) : "-",
          flop && k > 0 && !Double.isNaN(ceiling) ? String.format(Locale.ROOT, "%.1f%%", 100 * r / ceiling) : "-");
    }
    double[] generated = measured.stream().mapToDouble(QuickStartIterationBench::generated).toArray();
    System.out.printf(Locale.ROOT,
        "  rollout tokens: %.0f generated (exact) + about %.0f prompt (turns x the probe's %.1f prompt tokens per turn)"
            + " per iteration; %.1f generated tokens/s%n",
        median(generated), median(promptTokens), probe.turns().meanPrompt(), median(generated) / median(seconds[1]));
    System.out.printf(Locale.ROOT, "  %.3f iterations/s (%d in %.2f s; 1 / median %.3f)%n", n / total, n, total,
        1 / it);
    System.out.printf(Locale.ROOT, "  peaks (median, MiB): rollout %.0f, scoring %.0f, update %.0f%n",
        median(measured, "memory/rollout_peak_mib"), median(measured, "memory/scoring_peak_mib"),
        median(measured, "memory/update_peak_mib"));
  }

  /**
   * Times, for each micro-batch size, scoring the probe's trained rows without gradient (as the old and reference
   * log-probabilities are scored) and one full update of the probe's rows, with AdamW (weights, moments, step count)
   * restored after each update: same rows, same weights, sizes in alternating order.
   */
  private static void sweep(List<Integer> sizes, int rounds, Probe probe, MageTrainer trainer,
      DjlLanguagePolicy policy) {
    Qwen3Model model = MageTrainer.modelOf(policy);
    AdamW adamw = trainer.adamW();
    ReferencePolicy reference = trainer.fineTuning().filter(FineTuning::hasReference).map(ReferencePolicy::of)
        .orElse(null);
    PolicyUpdater.Settings base = trainer.updateSettings();
    boolean recompute = base.recomputeOldLogProbs();
    List<PolicyUpdater.Row> trained = trainedRows(probe.rows(), base.skipZeroAdvantage());
    if (trained.isEmpty()) {
      System.out.println("micro-batch sweep: the probe batch has no row to train; skipped");
      return;
    }
    long trainedTokens = 0;
    for (PolicyUpdater.Row r : trained) {
      trainedTokens += r.prompt().length + r.response().length;
    }
    int n = sizes.size();
    double[][] score = new double[n][rounds];
    double[][] update = new double[n][rounds];
    double[][][] parts = new double[n][rounds][];
    int[] backtracks = new int[n];
    int[] undone = new int[n];
    System.out.printf(Locale.ROOT,
        "%nmicro-batch sweep: the probe batch (%d rows, %d trained, %d tokens through each scoring pass), one"
            + " untimed round then %d rounds, the sizes in alternating order; AdamW restored after every update;"
            + " old log-probs %s, reference %s, %d anchor turns%n",
        probe.rows().size(), trained.size(), trainedTokens, rounds, recompute ? "recomputed" : "recorded",
        reference == null ? "none" : "scored", probe.anchors().size());
    try (AdamW.Snapshot start = adamw.snapshot()) {
      for (int round = -1; round < rounds; round++) {
        for (int k = 0; k < n; k++) {
          int i = Math.floorMod(round, 2) == 0 ? k : n - 1 - k;
          int micro = sizes.get(i);
          PolicyUpdater updater = new PolicyUpdater(model, reference, probe.optimizer(), adamw,
              base.withMicroBatchTurns(micro), probe.anchors());
          long t0 = System.nanoTime();
          updater.oldLogProbs(trained);
          long t1 = System.nanoTime();
          PolicyUpdater.Report report = updater.update(probe.rows());
          long t3 = System.nanoTime();
          adamw.restore(start);
          if (round >= 0) {
            score[i][round] = (t1 - t0) / 1e9;
            update[i][round] = (t3 - t1) / 1e9;
            PolicyUpdater.Timing t = report.timing();
            parts[i][round] = new double[] {t.oldSeconds(), t.referenceSeconds(), t.optimizeSeconds(),
                t.checkSeconds()};
            backtracks[i] = Math.max(backtracks[i], report.backtracks());
            undone[i] += report.undone() ? 1 : 0;
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "  %6s %10s %11s %10s %8s %10s %10s %8s%n", "micro", "score s", "tokens/s",
        "update s", "old", "reference", "optimize", "checks");
    for (int i = 0; i < n; i++) {
      double s = median(score[i]);
      double[][] p = parts[i];
      String note = (sizes.get(i) == base.microBatchTurns() ? " (the config's)" : "")
          + (backtracks[i] > 0 || undone[i] > 0 ? " backtracks " + backtracks[i] + ", undone " + undone[i] : "");
      System.out.printf(Locale.ROOT, "  %6d %10.4f %11.0f %10.4f %8.4f %10.4f %10.4f %8.4f%s%n", sizes.get(i), s,
          trainedTokens / s, median(update[i]), median(p, 0), median(p, 1), median(p, 2), median(p, 3), note);
    }
    System.out.println("  (score: the trained rows without gradient, micro-batches of rows sorted by length, as the"
        + " old and reference log-probs are scored; update: PolicyUpdater.update of the whole batch with its parts;"
        + " medians over the rounds)");
  }

  private static double median(List<Map<String, Object>> measured, String key) {
    return median(measured.stream().mapToDouble(m -> number(m, key)).toArray());
  }

  private static double median(double[][] rows, int column) {
    return median(Arrays.stream(rows).mapToDouble(r -> r[column]).toArray());
  }

  /**
   * @param values measurements (not changed)
   * @return their median (the mean of the middle two for an even count), NaN for none
   */
  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    int mid = v.length / 2;
    return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }

  private static double number(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof Number)) {
      throw new IllegalStateException("metric " + key + " missing from " + m.keySet());
    }
    return ((Number) v).doubleValue();
  }
}
