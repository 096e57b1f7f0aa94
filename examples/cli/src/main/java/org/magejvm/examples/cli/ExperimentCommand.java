package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.impl.train.TrainingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code mage experiment NAME}: long training-quality checks that do not belong in the unit tests. */
@Command(name = "experiment", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run a training experiment and print its table (minutes to hours on a CPU).",
        "kuhn-methods: mage, lamer and gigpo trained from one warm start on Kuhn Poker with several training seeds,"
            + " evaluated with the untrained warm start on the same evaluation seeds (docs/results.md).",
        "ttt-methods: the same on Tic-Tac-Toe (pool: MCTS-100, the preferred-position players, random; held out:"
            + " MCTS-1000; draw rates beside the success rates)."})
final class ExperimentCommand implements Callable<Integer>, Limits.OptionPhase {

  /** The comparison's program, in {@code mage-research}: found by name on the class path. */
  static final String METHODS_EXPERIMENT = "org.magejvm.examples.research.MethodsExperiment";

  /** The methods the comparison can train. */
  static final List<MethodPreset> METHODS = List.of(MethodPreset.MAGE, MethodPreset.LAMER, MethodPreset.GIGPO);

  @Parameters(index = "0", paramLabel = "NAME", description = "The experiment: kuhn-methods or ttt-methods.")
  String name;

  @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "mage-experiments",
      description = "Where the model, the warm start and each run's metrics go (default: ${DEFAULT-VALUE}).")
  Path workDir;

  @Option(names = "--seeds", paramLabel = "S", split = ",", defaultValue = "1,2,3",
      description = "Training seeds per method (default: ${DEFAULT-VALUE}).")
  List<Long> seeds;

  @Option(names = "--methods", paramLabel = "M", split = ",", defaultValue = "mage,lamer,gigpo",
      description = "Methods to train (default: ${DEFAULT-VALUE}; runs are deterministic, so a long comparison can be"
          + " split over several invocations with the same work directory).")
  List<String> methods;

  @Option(names = "--iterations", paramLabel = "N", defaultValue = "40",
      description = "Training iterations per run (default: ${DEFAULT-VALUE}).")
  int iterations;

  @Option(names = "--tasks", paramLabel = "B", defaultValue = "4",
      description = "Task groups per iteration (default: ${DEFAULT-VALUE}).")
  int tasks;

  @Option(names = "--eval-meta-episodes", paramLabel = "M", defaultValue = "48",
      description = "Meta-episodes per evaluation set (default: ${DEFAULT-VALUE}).")
  int evalMetaEpisodes;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Seed of the tiny model, the warm start and the evaluation sets (default: ${DEFAULT-VALUE}).")
  long seed;

  @CommandLine.Mixin RecipeOptions recipe;

  @CommandLine.Mixin ConfigOptions config;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    GameRecipe.Game game = switch (name) {
      case "kuhn-methods" -> GameRecipe.KUHN;
      case "ttt-methods" -> GameRecipe.TIC_TAC_TOE;
      default -> throw new CommandLine.ParameterException(spec.commandLine(),
          "unknown experiment '" + name + "'; known: kuhn-methods, ttt-methods");
    };
    recipe.addTo(Limits.of(spec)
        .count("--iterations", iterations, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--tasks", tasks, 1, Limits.MAX_META_EPISODES / MethodPreset.MAGE.trainingGroupSize(),
            Limits.MEMORY + " (x " + MethodPreset.MAGE.trainingGroupSize() + " per group)")
        .count("--eval-meta-episodes", evalMetaEpisodes, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .count("--seeds count", seeds.size(), 1, Limits.MAX_SEEDS, Limits.SANE))
        .check();
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    org.magejvm.spi.EnvironmentProvider provider = registry.require(game.environment());
    // the quick start's config at the comparison's budget and, as in the reference, the environment's discount
    // between attempts
    TrainingConfig training = config.apply(GameRecipe.quickStartConfig(provider, seed).toBuilder()
        .set("iterations", iterations)
        .set("rollout.tasks", tasks)
        .set("credit.gamma_traj", provider.defaults().trajGamma())
        .build());
    if (config.printConfig) {
      spec.commandLine().getOut().print(training.toJson());
      spec.commandLine().getOut().flush();
      return 0;
    }
    RecipeOptions.checkEnvironmentOptions(spec, registry, training);
    GameRecipe.Settings settings = recipe.settings(workDir, training)
        .optEvalMetaEpisodes(evalMetaEpisodes)
        .optSeed(seed)
        .build();
    List<MethodPreset> presets = new java.util.ArrayList<>();
    for (String m : methods) {
      MethodPreset p = METHODS.stream().filter(x -> x.id().equals(m)).findFirst().orElse(null);
      if (p == null) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--methods: '" + m + "' is not one of mage,"
            + " lamer, gigpo");
      }
      presets.add(p);
    }
    Limits.endOfOptions();
    Class<?> experiment = ClassPathPrograms.load(METHODS_EXPERIMENT);
    LibtorchThreads.apply(recipe.threads);
    PrintWriter out = spec.commandLine().getOut();
    RecipeOptions.installShippedWarmStart(recipe.noShippedWarmStart, new GameRecipe(registry, game, settings, out),
        out);
    Object comparison = ClassPathPrograms.construct(
        experiment.getConstructor(EnvironmentRegistry.class, GameRecipe.Game.class, PrintWriter.class),
        registry, game, out);
    ClassPathPrograms.invoke(experiment.getMethod("run", GameRecipe.Settings.class, List.class, List.class),
        comparison, settings, seeds, presets);
    return 0;
  }
}
