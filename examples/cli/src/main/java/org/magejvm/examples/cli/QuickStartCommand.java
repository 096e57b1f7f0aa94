package org.magejvm.examples.cli;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.GoalkeeperQuickStart;
import org.magejvm.examples.quickstart.KuhnQuickStart;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.env.keeper.GoalkeeperProvider;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.train.listen.ChartListener;
import org.magejvm.impl.train.listen.MetricsFileListener;
import org.magejvm.impl.train.listen.ProgressBarListener;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mage quickstart}: the Goalkeeper quick start (see {@link GoalkeeperQuickStart}), or with {@code --env
 * mage-kuhn-poker} the Kuhn Poker one (see {@link KuhnQuickStart}); a thin client of the library: the tiny model and
 * the warm start shipped with mage, a training config from the {@code mage} preset with the quick start's budget
 * ({@link GameRecipe#quickStartConfig}), evaluation before and after, and charts. Anything the options below do not
 * set goes through {@code --set KEY=VALUE}; {@code --print-config} shows the whole config.
 */
@Command(name = "quickstart", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Train a tiny Qwen3 model with MAGE (the mage preset) on the CPU and compare it before and after"
        + " training. On Goalkeeper (the default) the model writes a lesson after each miss and later attempts see"
        + " only those lessons (rollout.context_mode reflection_only; history_only is the ablation); the trained model"
        + " is evaluated with its lessons, with them removed, shuffled across meta-episodes and with no memory at all,"
        + " each next to the exact ceiling that applies to it, and probed per spot. On Kuhn Poker (--env"
        + " mage-kuhn-poker) with the earlier attempts' moves in the prompt, per opponent and against the held-out"
        + " cfr opponent, next to each set's winnable-deal ceiling.",
        "Writes the tiny model, the warm start, config.json, metrics.jsonl and charts into the work directory."})
final class QuickStartCommand implements Callable<Integer>, Limits.OptionPhase {

  @Option(names = "--env", paramLabel = "ID", defaultValue = GoalkeeperProvider.ID,
      description = "The game: mage-goalkeeper or mage-kuhn-poker (default: ${DEFAULT-VALUE}).")
  String env;

  @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "mage-quickstart",
      description = "Run directory; the tiny model and the warm start are cached there (default: ${DEFAULT-VALUE}).")
  Path workDir;

  @Option(names = "--quick", description = "A first look in about a minute: 5 iterations and smaller evaluation sets"
      + " (Goalkeeper 32 meta-episodes instead of 128, Kuhn Poker 16 per opponent instead of 48).")
  boolean quick;

  @Option(names = "--iterations", paramLabel = "N",
      description = "Training iterations (--set iterations=N; default: 270 on Goalkeeper, 120 on Kuhn Poker; quick:"
          + " 5).")
  Integer iterations;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Training seed: the training run's seeds derive from it, while the model, the warm start and the"
          + " evaluation sets stay --warm-start-seed's, so runs of different seeds start from the same model and are"
          + " evaluated on the same meta-episodes (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--warm-start-seed", paramLabel = "W", defaultValue = "1",
      description = "Seed of the tiny model, the warm start and the evaluation sets (default: ${DEFAULT-VALUE}, whose"
          + " warm start is shipped with mage; another seed trains its warm start in the work directory, about 3"
          + " minutes).")
  long warmStartSeed;

  @Option(names = "--eval-meta-episodes", paramLabel = "M",
      description = "Meta-episodes per evaluation set (default: Goalkeeper 140, 20 per spot, quick 35; Kuhn Poker 48"
          + " per opponent, quick 16). A Goalkeeper set is balanced over the striker's spot when M is a multiple of"
          + " the spots; 128 gives the unbalanced set of the results before 2026-12-01.")
  Integer evalMetaEpisodes;

  @Option(names = "--json", description = "Print the before/after table as one JSON object instead of text.")
  boolean json;

  @Option(names = "--threads", paramLabel = "T", defaultValue = "1",
      description = "libtorch threads per operation (default: ${DEFAULT-VALUE}; the tiny model's operations are too"
          + " small to share between cores).")
  int threads;

  @Option(names = "--no-shipped-warm-start",
      description = "Train the warm start in the work directory (about 3 minutes) instead of copying the one shipped"
          + " with mage.")
  boolean noShippedWarmStart;

  @CommandLine.Mixin ConfigOptions config;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * The quick start's training config: {@link GameRecipe#quickStartConfig} with {@code --iterations} (or 5 with
   * {@code --quick}) and every {@code --set}.
   *
   * @param registry where the game is found
   * @return the config
   */
  TrainingConfig resolve(EnvironmentRegistry registry) {
    TrainingConfig base = GameRecipe.quickStartConfig(registry.require(game().environment()), seed);
    if (iterations != null || quick) {
      base = base.with("iterations", iterations != null ? iterations : 5);
    }
    return config.apply(base);
  }

  /**
   * @return the game {@code --env} names
   * @throws CommandLine.ParameterException when it names another
   */
  RecipeGame game() {
    for (RecipeGame g : List.of(GameRecipe.GOALKEEPER, GameRecipe.KUHN)) {
      if (g.environment().equals(env)) {
        return g;
      }
    }
    throw new CommandLine.ParameterException(spec.commandLine(), "--env: the quick start plays "
        + GameRecipe.GOALKEEPER.environment() + " or " + GameRecipe.KUHN.environment() + ", not '" + env
        + "'; train other environments with `mage train --preset mage --env ID`");
  }

  @Override
  public Integer call() {
    Limits.of(spec)
        .count("--iterations", iterations, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--threads", threads, 1, Limits.MAX_THREADS, Limits.SANE)
        .count("--eval-meta-episodes", evalMetaEpisodes, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .check();
    Limits.requireFolder(spec, "--work-dir", workDir);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    TrainingConfig training = resolve(registry);
    PrintWriter out = spec.commandLine().getOut();
    if (config.printConfig) {
      out.print(training.toJson());
      out.flush();
      return 0;
    }
    RecipeGame game = game();
    if (!training.environment().id().equals(game.environment())) {
      throw new IllegalArgumentException("the quick start plays " + game.environment() + " here, but the config's"
          + " environment.id is " + training.environment().id() + "; choose the game with --env");
    }
    Limits.of(spec).metaEpisodes("rollout.tasks x rollout.group_size", training.rollout().tasks(),
        training.rollout().groupSize()).check();
    RecipeOptions.checkEnvironmentOptions(spec, registry, training);
    RecipeSettings settings = RecipeSettings.builder(workDir, training)
        .optEvalMetaEpisodes(evalMetaEpisodes != null ? evalMetaEpisodes
            : game == GameRecipe.GOALKEEPER ? (quick ? 35 : 140) : (quick ? 16 : 48))
        .optSeed(warmStartSeed)
        .build();
    Limits.endOfOptions();
    LibtorchThreads.apply(threads);
    PrintWriter progress = json ? new PrintWriter(java.io.Writer.nullWriter()) : out;
    List<TrainingListener> listeners = new ArrayList<>();
    Map<String, Map<String, Map<String, Number>>> result = null;
    GoalkeeperQuickStart.Report keeper = null;
    try (MetricsFileListener metrics = new MetricsFileListener(workDir);
        ProgressBarListener bar = new ProgressBarListener(false)) {
      listeners.add(metrics);
      listeners.add(new ChartListener(workDir));
      if (!json) {
        listeners.add(bar);
      }
      TrainCommand.writeConfig(workDir, training);
      GameRecipe recipe = new GameRecipe(registry, game, settings, progress);
      if (!RecipeOptions.installShippedWarmStart(noShippedWarmStart, recipe, progress)) {
        recipe.tinyModel();
      }
      if (game == GameRecipe.GOALKEEPER) {
        keeper = new GoalkeeperQuickStart(registry, progress).run(settings, TrainingPreset.MAGE, listeners);
      } else {
        result = new KuhnQuickStart(registry, progress).run(settings, TrainingPreset.MAGE, listeners);
      }
    }
    if (json) {
      Map<String, Object> root = new LinkedHashMap<>();
      if (keeper != null) {
        root.put("context_mode", keeper.contextMode().name().toLowerCase(java.util.Locale.ROOT));
        for (Map.Entry<String, Map<String, Number>> e : keeper.rows().entrySet()) {
          root.put(e.getKey(), flatten(Map.of(GameRecipe.ALL_SET, e.getValue())));
        }
        root.put("ceiling_of", keeper.ceilingOf());
        root.put("example_reflections", keeper.examples());
      } else {
        for (Map.Entry<String, Map<String, Map<String, Number>>> e : result.entrySet()) {
          root.put(e.getKey(), flatten(e.getValue()));
        }
      }
      out.println(new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create().toJson(root));
    } else {
      out.println();
      out.println("Config: " + workDir.resolve(TrainCommand.CONFIG_FILE) + "; metrics: "
          + workDir.resolve(MetricsFileListener.FILE_NAME) + "; charts: " + workDir + " (redraw with ./mage report "
          + workDir + ")");
    }
    out.flush();
    return 0;
  }

  /**
   * Per-set metrics as {@code OPPONENT/KEY}, the way {@code mage play --json} names per-opponent metrics; a game
   * without opponents has one set, whose metrics keep their plain names (and whose undefined rates are left out).
   */
  private static Map<String, Number> flatten(Map<String, Map<String, Number>> sets) {
    Map<String, Number> flat = new LinkedHashMap<>();
    if (sets.size() == 1 && sets.containsKey(GameRecipe.ALL_SET)) {
      // a rate of no meta-episode (the adaptive keeper never reaches its third attempt) is left out, as
      // EvaluationMetrics leaves out the rates of attempts nobody reached
      sets.get(GameRecipe.ALL_SET).forEach((k, v) -> {
        if (!k.contains("/") && !Double.isNaN(v.doubleValue())) {
          flat.put(k, v);
        }
      });
      return flat;
    }
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
