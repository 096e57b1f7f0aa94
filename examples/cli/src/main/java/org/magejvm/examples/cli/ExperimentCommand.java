package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mage experiment NAME}: long training-quality checks that do not belong in the unit tests. {@code methods}
 * (with the aliases {@code kuhn-methods} and {@code ttt-methods}) is the method comparison of docs/results.md, one
 * command per comparison table; {@code claims} measures the paper's claims on Penalty Shoot-out.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run a training experiment and print its table (minutes to hours on a CPU).",
        "methods: the method comparison on --env ID (default mage-goalkeeper): the methods trained from one warm start"
            + " with several training seeds each, on the same number of attempts per iteration, and evaluated with the"
            + " untrained warm start on the same evaluation seeds (docs/results.md). Goalkeeper: Pass@k and"
            + " per-attempt save rates with and without the history, next to the exact history-blind and adaptive"
            + " ceilings. Each run's summary goes to RUN_DIR/summary.json; a later invocation with the same work"
            + " directory and settings reuses it, so a long comparison can be split over several invocations.",
        "kuhn-methods: methods --env mage-kuhn-poker (pool: conservative, aggressive, intermediate; held out: cfr).",
        "ttt-methods: methods --env mage-tictactoe (pool: MCTS-100, the preferred-position players, random; held out:"
            + " MCTS-1000; draw rates beside the success rates; the history-blind and adaptive ceilings of the sets,"
            + " the MCTS ones estimated from sampled moves).",
        "claims: the paper's claims on Penalty Shoot-out, --env mage-penalty-graded (default; MAGE's and LaMer's"
            + " optima differ), mage-penalty or mage-penalty-steps (held-out steps a perfect learner can save): mage,"
            + " lamer, gigpo and grpo from one warm start, evaluated on every training striker and every held-out one"
            + " (never trained on): Pass@k, final-attempt and cumulative scores, the same without history, beside the"
            + " exact blind and adaptive ceilings and both objectives' optima, what a perfect learner of the training"
            + " population can reach on the held-out strikers, the predicted and the measured MAGE-LaMer differences;"
            + " RUN_DIR/summary.json reused as above, WORK_DIR/claims-*.json the report (--json prints it)."})
final class ExperimentCommand implements Callable<Integer>, Limits.OptionPhase {

  /** The methods the comparison can train: every training preset. */
  static final List<TrainingPreset> METHODS = List.of(TrainingPreset.MAGE, TrainingPreset.MAGE_REFERENCE,
      TrainingPreset.LAMER, TrainingPreset.GIGPO, TrainingPreset.GRPO);

  /** The methods the claims compare unless told otherwise. */
  static final List<TrainingPreset> CLAIMS_METHODS = List.of(TrainingPreset.MAGE, TrainingPreset.LAMER,
      TrainingPreset.GIGPO, TrainingPreset.GRPO);

  /** The games the claims are measured on, the default first. */
  static final List<RecipeGame> CLAIMS_GAMES = List.of(GameRecipe.PENALTY_GRADED, GameRecipe.PENALTY,
      GameRecipe.PENALTY_STEPS);

  /** The claims' training iterations per run unless told otherwise. */
  static final int CLAIMS_ITERATIONS = 300;

  /** The claims' meta-episodes per striker and first spot unless told otherwise (40 per striker with 5 spots). */
  static final int CLAIMS_EVAL_META_EPISODES_PER_SPOT = 8;

  /** The games the comparison plays. */
  static final List<RecipeGame> GAMES = List.of(GameRecipe.GOALKEEPER, GameRecipe.KUHN, GameRecipe.TIC_TAC_TOE,
      GameRecipe.PENALTY, GameRecipe.PENALTY_GRADED, GameRecipe.PENALTY_STEPS);

  @Parameters(index = "0", paramLabel = "NAME", description = "The experiment: methods, or its aliases kuhn-methods"
      + " (--env mage-kuhn-poker) and ttt-methods (--env mage-tictactoe); claims.")
  String name;

  @Option(names = "--env", paramLabel = "ID",
      description = "The game of `methods`: mage-goalkeeper (default), mage-kuhn-poker, mage-tictactoe, mage-penalty,"
          + " mage-penalty-graded or mage-penalty-steps; of `claims`: mage-penalty-graded (default), mage-penalty or"
          + " mage-penalty-steps.")
  String env;

  @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "mage-experiments",
      description = "Where the model, the warm start and each run's metrics and summary go (default:"
          + " ${DEFAULT-VALUE}).")
  Path workDir;

  @Option(names = "--seeds", paramLabel = "S", split = ",",
      description = "Training seeds per method (default: 1,2,3,4,5 on Goalkeeper and for claims, 1,2,3 otherwise).")
  List<Long> seeds;

  @Option(names = "--methods", paramLabel = "M", split = ",",
      description = "Methods to train, of mage, mage-reference, lamer, gigpo, grpo (default: all five on"
          + " Goalkeeper, mage,lamer,gigpo,grpo for claims, mage,lamer,gigpo otherwise). Finished runs are reused, so"
          + " a long comparison can be split over several invocations with the same work directory and settings.")
  List<String> methods;

  @Option(names = "--no-train",
      description = "Train nothing, not even the warm start: print the table and chart of the finished runs in the"
          + " work directory made with these settings, name the missing ones and leave out methods with none (the"
          + " warm start is still evaluated, as in every comparison).")
  boolean noTrain;

  @Option(names = "--iterations", paramLabel = "N",
      description = "Training iterations per run (default: the quick start's "
          + GameRecipe.GOALKEEPER_QUICK_START_ITERATIONS + " on Goalkeeper, " + CLAIMS_ITERATIONS + " for claims, 40"
          + " otherwise).")
  Integer iterations;

  @Option(names = "--tasks", paramLabel = "B",
      description = "Task groups per iteration (default: the quick start's 8 on Goalkeeper and for claims, 4"
          + " otherwise).")
  Integer tasks;

  @Option(names = "--eval-meta-episodes", paramLabel = "M",
      description = "Meta-episodes per evaluation set (default: 140 on Goalkeeper, 20 per spot, as the quick start; "
          + CLAIMS_EVAL_META_EPISODES_PER_SPOT + " per striker and first spot for claims (40 with 5 spots, 56 with"
          + " 7); 48 otherwise).")
  Integer evalMetaEpisodes;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Seed of the tiny model, the warm start and the evaluation sets (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--json", description = "claims: print the report as one JSON object on standard output (the"
      + " progress and the tables then go to standard error).")
  boolean json;

  @CommandLine.Mixin RecipeOptions recipe;

  @CommandLine.Mixin ConfigOptions config;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * @return the game of the experiment's name and {@code --env}
   * @throws CommandLine.ParameterException for an unknown name or game, or an alias with another {@code --env}
   */
  RecipeGame game() {
    if (name.equals("claims")) {
      String wanted = env == null ? CLAIMS_GAMES.get(0).environment() : env;
      return CLAIMS_GAMES.stream().filter(g -> g.environment().equals(wanted)).findFirst().orElseThrow(
          () -> new CommandLine.ParameterException(spec.commandLine(), "--env: the claims are measured on "
              + CLAIMS_GAMES.stream().map(RecipeGame::environment).collect(java.util.stream.Collectors.joining(
                  " or ")) + ", not '" + wanted + "'"));
    }
    String id = switch (name) {
      case "methods" -> env == null ? GameRecipe.GOALKEEPER.environment() : env;
      case "kuhn-methods" -> GameRecipe.KUHN.environment();
      case "ttt-methods" -> GameRecipe.TIC_TAC_TOE.environment();
      default -> throw new CommandLine.ParameterException(spec.commandLine(),
          "unknown experiment '" + name + "'; known: methods, kuhn-methods, ttt-methods, claims");
    };
    if (env != null && !env.equals(id)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--env: " + name + " plays " + id + "; use"
          + " `mage experiment methods --env " + env + "`");
    }
    for (RecipeGame g : GAMES) {
      if (g.environment().equals(id)) {
        return g;
      }
    }
    throw new CommandLine.ParameterException(spec.commandLine(), "--env: the comparison plays "
        + GAMES.stream().map(RecipeGame::environment).collect(java.util.stream.Collectors.joining(", "))
        + ", not '" + id + "'");
  }

  @Override
  public Integer call() throws Exception {
    Limits.requireFolder(spec, "--work-dir", workDir);
    RecipeGame game = game();
    boolean goalkeeper = !game.hasOpponents();
    boolean claims = name.equals("claims");
    if (json && !claims) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--json: only `claims` prints JSON");
    }
    List<Long> trainingSeeds = seeds != null ? seeds
        : goalkeeper || claims ? List.of(1L, 2L, 3L, 4L, 5L) : List.of(1L, 2L, 3L);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    org.magejvm.spi.EnvironmentProvider provider = registry.require(game.environment());
    int evalSize = evalMetaEpisodes != null ? evalMetaEpisodes
        : goalkeeper ? 140
        : claims ? CLAIMS_EVAL_META_EPISODES_PER_SPOT * GameRecipe.penaltySpots(provider, Map.of()).orElseThrow()
        : 48;
    recipe.addTo(Limits.of(spec)
        .count("--iterations", iterations, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--tasks", tasks, 1, Limits.MAX_META_EPISODES / TrainingPreset.MAGE.trainingGroupSize(),
            Limits.MEMORY + " (x " + TrainingPreset.MAGE.trainingGroupSize() + " per group)")
        .count("--eval-meta-episodes", evalSize, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .count("--seeds count", trainingSeeds.size(), 1, Limits.MAX_SEEDS, Limits.SANE))
        .check();
    TrainingConfig.Builder base = GameRecipe.quickStartConfig(provider, seed).toBuilder();
    if (claims) {
      // the quick start's config (the mage preset: attempt discount 1, so LaMer's cumulative return adds the scores
      // undiscounted, as the predictions assume) at the claims' budget
      base.set("iterations", iterations != null ? iterations : CLAIMS_ITERATIONS)
          .set("rollout.tasks", tasks != null ? tasks : 8);
    } else if (goalkeeper) {
      // the quick start's config, budget included, unless told otherwise
      if (iterations != null) {
        base.set("iterations", iterations);
      }
      if (tasks != null) {
        base.set("rollout.tasks", tasks);
      }
    } else {
      // the quick start's config at the comparison's budget and, as in the reference, the environment's discount
      // between attempts
      base.set("iterations", iterations != null ? iterations : 40)
          .set("rollout.tasks", tasks != null ? tasks : 4)
          .set("credit.gamma_traj", provider.defaults().trajGamma());
    }
    TrainingConfig training = config.apply(base.build());
    if (config.printConfig) {
      spec.commandLine().getOut().print(training.toJson());
      spec.commandLine().getOut().flush();
      return 0;
    }
    RecipeOptions.checkEnvironmentOptions(spec, registry, training);
    RecipeSettings settings = recipe.settings(workDir, training)
        .optEvalMetaEpisodes(evalSize)
        .optSeed(seed)
        .build();
    List<String> names = methods != null ? methods : goalkeeper
        ? METHODS.stream().map(TrainingPreset::id).toList()
        : claims ? CLAIMS_METHODS.stream().map(TrainingPreset::id).toList() : List.of("mage", "lamer", "gigpo");
    List<TrainingPreset> presets = new java.util.ArrayList<>();
    for (String m : names) {
      TrainingPreset p = METHODS.stream().filter(x -> x.id().equals(m)).findFirst().orElse(null);
      if (p == null) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--methods: '" + m + "' is not one of "
            + METHODS.stream().map(TrainingPreset::id).collect(java.util.stream.Collectors.joining(", ")));
      }
      presets.add(p);
    }
    Limits.endOfOptions();
    MethodsComparison comparison = MethodsComparison.find();
    LibtorchThreads.apply(recipe.threads);
    PrintWriter out = json ? spec.commandLine().getErr() : spec.commandLine().getOut();
    if (!noTrain) {
      // a shipped warm start stands in for training one; with --no-train only what was trained here counts
      RecipeOptions.installShippedWarmStart(recipe.noShippedWarmStart, new GameRecipe(registry, game, settings, out),
          out);
    }
    if (claims) {
      String report = comparison.claims(registry, game, out, settings, trainingSeeds, presets, !noTrain);
      if (json) {
        spec.commandLine().getOut().println(report);
        spec.commandLine().getOut().flush();
      }
      return 0;
    }
    comparison.run(registry, game, out, settings, trainingSeeds, presets, !noTrain);
    return 0;
  }
}
