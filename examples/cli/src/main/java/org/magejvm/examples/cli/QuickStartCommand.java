package org.magejvm.examples.cli;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.api.AnchorScope;
import org.magejvm.examples.quickstart.KuhnQuickStart;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.ShippedWarmStart;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.train.ChartListener;
import org.magejvm.impl.train.MetricsFileListener;
import org.magejvm.impl.train.ProgressBarListener;
import org.magejvm.impl.train.TrainingListener;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mage quickstart}: the Kuhn Poker quick start (see {@link KuhnQuickStart}). */
@Command(name = "quickstart", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Train a tiny Qwen3 model with MAGE on Kuhn Poker on the CPU and compare it before and after,"
        + " per opponent and against the held-out cfr opponent, next to each set's winnable-deal ceiling.",
        "Writes the tiny model, the warm start, metrics.jsonl and charts into the work directory."})
final class QuickStartCommand implements Callable<Integer>, Limits.OptionPhase {

  /** Training iterations of the default run (docs/results.md: the paper's objective needs this budget). */
  static final int DEFAULT_ITERATIONS = 120;
  /** Task groups per iteration of the default run. */
  static final int DEFAULT_TASKS = 8;
  /**
   * The quick start's attempt discount: 1, the paper's final-attempt objective, where the reference trains Kuhn Poker
   * with 0.6 (docs/results.md measures both).
   */
  static final double DEFAULT_TRAJ_GAMMA = 1.0;

  @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "mage-quickstart",
      description = "Run directory; the tiny model and the warm start are cached there (default: ${DEFAULT-VALUE}).")
  Path workDir;

  @Option(names = "--quick", description = "A first look in about a minute: fewer iterations and smaller"
      + " evaluation sets.")
  boolean quick;

  @Option(names = "--iterations", paramLabel = "N", description = "Training iterations (default: 120, quick: 5).")
  Integer iterations;

  @Option(names = "--tasks", paramLabel = "B", description = "Task groups of 8 meta-episodes per iteration"
      + " (default: 8).")
  Integer tasks;

  @Option(names = "--eval-meta-episodes", paramLabel = "M",
      description = "Meta-episodes per evaluation set (default: 48, quick: 16).")
  Integer evalMetaEpisodes;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Base seed (default: 1).")
  long seed;

  @Option(names = "--warm-start-repeat", paramLabel = "P", defaultValue = "0.5",
      description = "Share of warm-start turns (after the first attempt) that repeat the previous attempt's action"
          + " whatever its outcome; 0 gives a warm start that never reads the earlier attempts"
          + " (default: ${DEFAULT-VALUE}).")
  double repeatShare;

  @Option(names = "--anchors", paramLabel = "SCOPE", defaultValue = "PROMPT",
      description = "GiGPO step-group anchors: GLOBAL (the reference's), PER_EPISODE or PROMPT (the whole prompt,"
          + " history included) (default: ${DEFAULT-VALUE}).")
  AnchorScope anchors;

  @Option(names = "--invalid-penalty", paramLabel = "X", defaultValue = "25",
      description = "Invalid-action penalty (the Kuhn preset's is 2; see docs/results.md) (default: ${DEFAULT-VALUE}).")
  double invalidPenalty;

  @Option(names = "--model-width", paramLabel = "W", defaultValue = "64",
      description = "Residual width of the tiny model written on first use, a multiple of 32 (default:"
          + " ${DEFAULT-VALUE}; heads of width 16, MLP 3 x W).")
  int modelWidth;

  @Option(names = "--model-layers", paramLabel = "L", defaultValue = "2",
      description = "Decoder layers of the tiny model written on first use (default: ${DEFAULT-VALUE}).")
  int modelLayers;

  @Option(names = "--step-timeout", paramLabel = "SECONDS",
      description = "Fail a meta-episode whose environment call (create, reset, step, render) takes longer than this;"
          + " the others go on (default: no limit).")
  Double stepTimeout;

  @Option(names = "--json", description = "Print the before/after table as one JSON object instead of text.")
  boolean json;

  @CommandLine.Mixin RecipeOptions recipe;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    recipe.addTo(Limits.of(spec)
        .count("--iterations", iterations, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--tasks", tasks, 1, Limits.MAX_META_EPISODES / MethodPreset.MAGE.trainingGroupSize(),
            Limits.MEMORY + " (x " + MethodPreset.MAGE.trainingGroupSize() + " per group)")
        .count("--eval-meta-episodes", evalMetaEpisodes, 1, Limits.MAX_META_EPISODES, Limits.MEMORY))
        .check();
    GameRecipe.requireModelShape(modelWidth, modelLayers); // a usage error (exit 2) in the option phase
    java.util.Optional<java.time.Duration> timeout = Limits.stepTimeout(spec, stepTimeout);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    recipe.checkEnvironmentOptions(spec, registry, GameRecipe.KUHN);
    GameRecipe.Settings settings = recipe.settings(workDir)
        .optIterations(iterations != null ? iterations : quick ? 5 : DEFAULT_ITERATIONS)
        .optTasks(tasks != null ? tasks : DEFAULT_TASKS)
        .optTrajGamma(recipe.trajGamma != null ? recipe.trajGamma : DEFAULT_TRAJ_GAMMA)
        .optEvalMetaEpisodes(evalMetaEpisodes != null ? evalMetaEpisodes : quick ? 16 : 48)
        .optSeed(seed)
        .optRepeatShare(repeatShare)
        .optAnchors(anchors)
        .optInvalidPenalty(invalidPenalty)
        .optStepTimeout(timeout)
        .build();
    Limits.endOfOptions();
    LibtorchThreads.apply(recipe.threads);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter progress = json ? new PrintWriter(java.io.Writer.nullWriter()) : out;
    List<TrainingListener> listeners = new ArrayList<>();
    Map<String, Map<String, Map<String, Number>>> result;
    try (MetricsFileListener metrics = new MetricsFileListener(workDir);
        ProgressBarListener bar = new ProgressBarListener(false)) {
      listeners.add(metrics);
      listeners.add(new ChartListener(workDir));
      if (!json) {
        listeners.add(bar);
      }
      GameRecipe game = new GameRecipe(registry, settings, progress);
      if (!recipe.installShippedWarmStart(game, modelWidth == ShippedWarmStart.WIDTH
          && modelLayers == ShippedWarmStart.LAYERS, progress)) {
        game.tinyModel(modelWidth, modelLayers);
      }
      result = new KuhnQuickStart(registry, progress).run(settings, MethodPreset.MAGE,
          listeners);
    }
    if (json) {
      Map<String, Object> root = new LinkedHashMap<>();
      for (Map.Entry<String, Map<String, Map<String, Number>>> e : result.entrySet()) {
        root.put(e.getKey(), flatten(e.getValue()));
      }
      out.println(new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create().toJson(root));
    } else {
      out.println();
      out.println("Metrics: " + workDir.resolve(MetricsFileListener.FILE_NAME) + "; charts: " + workDir
          + " (redraw with ./mage report " + workDir + ")");
    }
    out.flush();
    return 0;
  }

  /** Per-set metrics as {@code OPPONENT/KEY}, the way {@code mage play --json} names per-opponent metrics. */
  private static Map<String, Number> flatten(Map<String, Map<String, Number>> sets) {
    Map<String, Number> flat = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, Number>> set : sets.entrySet()) {
      for (Map.Entry<String, Number> m : set.getValue().entrySet()) {
        if (!m.getKey().contains("/")) {
          flat.put(set.getKey() + "/" + m.getKey(), m.getValue());
        }
      }
    }
    return flat;
  }
}
