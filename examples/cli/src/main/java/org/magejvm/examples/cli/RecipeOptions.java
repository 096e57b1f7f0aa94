package org.magejvm.examples.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.ShippedWarmStart;
import org.magejvm.impl.credit.EpisodeScore;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The recipe options shared by {@code mage quickstart} and {@code mage experiment} (picocli mixin). */
final class RecipeOptions {

  @Option(names = "--warm-start-examples", paramLabel = "N", defaultValue = "3200",
      description = "Scripted turns the warm start trains on, one epoch in batches of 32 (default: ${DEFAULT-VALUE}).")
  int warmStartExamples;

  @Option(names = "--warm-start-epochs", paramLabel = "N", defaultValue = "4",
      description = "Passes of the warm start over its examples (default: ${DEFAULT-VALUE}; with 1 pass at 3e-3,"
          + " the first recipe's, the tiny model learns only how often to bet, not when: docs/results.md).")
  int warmStartEpochs;

  @Option(names = "--warm-start-lr", paramLabel = "X", defaultValue = "1e-3",
      description = "Learning rate of the warm start (default: ${DEFAULT-VALUE}; the first recipe's was 3e-3).")
  double warmStartLearningRate;

  @Option(names = "--lr", paramLabel = "X", defaultValue = "5e-4",
      description = "Learning rate of the reinforcement-learning phase (default: ${DEFAULT-VALUE}).")
  double learningRate;

  @Option(names = "--kl", paramLabel = "X", defaultValue = "1.0",
      description = "Weight of the k3 KL penalty to the warm start (a frozen copy); 0 turns it off"
          + " (default: ${DEFAULT-VALUE}).")
  double klCoefficient;

  @Option(names = "--max-update-kl", paramLabel = "X", defaultValue = "0",
      description = "Redo an update that moves the policy on its batch's turns by a larger mean per-token KL"
          + " divergence than X with half the learning rate (at most 3 times; the last try is kept); 0 turns the"
          + " check off (default: ${DEFAULT-VALUE}).")
  double maxUpdateKl;

  @Option(names = "--max-anchor-drop", paramLabel = "X", defaultValue = "0.01",
      description = "Redo an update that lowers the log-probability of 256 scripted answers (the format the model was"
          + " warm-started on) by more than X per token with half the learning rate, and undo it when its last try"
          + " (an eighth of the rate) still does; 0 turns the check off (default: ${DEFAULT-VALUE}).")
  double maxAnchorDrop;

  @Option(names = "--episode-score", paramLabel = "SCORE", defaultValue = "META_EPISODE",
      description = "What GiGPO's episode-level advantage compares within a group: META_EPISODE (the whole"
          + " meta-episode's outcome for every turn, as upstream GiGPO scores a trajectory) or ATTEMPT (the"
          + " reference's: each turn's own attempt, r'_n under MAGE, which disfavours switching after a lost attempt"
          + " where the objective's optimum switches; docs/results.md) (default: ${DEFAULT-VALUE}).")
  EpisodeScore episodeScore;

  @Option(names = "--traj-gamma", paramLabel = "X",
      description = "Discount between the attempts of a meta-episode in credit assignment, in [0, 1]; 1 makes the"
          + " return of every turn the last attempt's reward, the paper's objective, under which losing an early"
          + " attempt to learn the opponent costs nothing (default: quickstart 1; experiment the environment's, 0.6"
          + " for Kuhn Poker as in the reference; docs/results.md).")
  Double trajGamma;

  @Option(names = "--eval-temperature", paramLabel = "T",
      description = "Evaluate at this temperature with neither top-p nor top-k, 0 for greedy (a diagnostic: shows"
          + " probability shifts the reference's evaluation sampling, temperature 0.7, top-p 0.8, top-k 20, rounds"
          + " away; default: the reference's).")
  Double evalTemperature;

  @Option(names = "--env-option", paramLabel = "KEY=VALUE",
      description = "An option of the game's environment in warm start, training and evaluation (repeatable; see"
          + " `mage envs`): for Kuhn Poker reward=win-loss trains on +5/-5 per won/lost hand instead of the"
          + " reference's 5 per chip (docs/results.md).")
  Map<String, String> environmentOptions = new LinkedHashMap<>();

  @Option(names = "--no-shipped-warm-start",
      description = "Train the warm start in the work directory even when the one shipped with mage fits the settings"
          + " (it does for the quick start and kuhn-methods with their defaults and seed 1; training it takes about 3"
          + " minutes).")
  boolean noShippedWarmStart;

  @Option(names = "--threads", paramLabel = "T", defaultValue = "1",
      description = "libtorch threads per operation (default: ${DEFAULT-VALUE}; the tiny model's operations are too"
          + " small to share between cores, and extra threads spin-wait on a busy machine).")
  int threads;

  /**
   * @param workDir the run's work directory
   * @return a settings builder with the quick start's defaults and the values of these options
   */
  GameRecipe.Settings.Builder settings(java.nio.file.Path workDir) {
    return GameRecipe.Settings.builder(workDir)
        .optWarmStartExamples(warmStartExamples)
        .optWarmStart(warmStartEpochs, warmStartLearningRate)
        .optLearningRate(learningRate)
        .optKlCoefficient(klCoefficient)
        .optMaxUpdateKl(maxUpdateKl)
        .optMaxAnchorDrop(maxAnchorDrop)
        .optEpisodeScore(episodeScore)
        .optTrajGamma(trajGamma == null ? Double.NaN : trajGamma)
        .optEvalTemperature(evalTemperature == null ? Double.NaN : evalTemperature)
        .optEnvironmentOptions(environmentOptions);
  }

  /**
   * Copies the shipped warm start into the recipe's work directory unless {@code --no-shipped-warm-start} is given
   * ({@link ShippedWarmStart#install}), and says so.
   *
   * @param game the recipe
   * @param shippedShape whether the run asks for the shipped model's shape
   * @param out where to say it
   * @return whether it was installed
   */
  boolean installShippedWarmStart(GameRecipe game, boolean shippedShape, java.io.PrintWriter out) {
    if (noShippedWarmStart || !shippedShape || !ShippedWarmStart.install(game)) {
      return false;
    }
    out.println("Warm start: the one shipped with mage for these settings (seed " + game.settings().seed()
        + "), copied to " + game.warmStartDir() + "; --no-shipped-warm-start trains it afresh (about 3 minutes)");
    return true;
  }

  /**
   * Adds the sizes these options hold to a limits check.
   *
   * @param limits the check
   * @return the same check
   */
  Limits addTo(Limits limits) {
    positive(limits, "--lr", learningRate);
    positive(limits, "--warm-start-lr", warmStartLearningRate);
    nonNegative(limits, "--kl", klCoefficient);
    nonNegative(limits, "--max-update-kl", maxUpdateKl);
    nonNegative(limits, "--max-anchor-drop", maxAnchorDrop);
    if (trajGamma != null && !(trajGamma >= 0 && trajGamma <= 1)) {
      limits.error("--traj-gamma must lie in [0, 1], got " + trajGamma);
    }
    return limits
        .count("--warm-start-examples", warmStartExamples, 1, Limits.MAX_EXAMPLES,
            "each example keeps its prompt and response in memory")
        .count("--warm-start-epochs", warmStartEpochs, 1, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--threads", threads, 1, Limits.MAX_THREADS, Limits.SANE);
  }

  private static void positive(Limits limits, String option, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      limits.error(option + " must be a finite number above 0, got " + value);
    }
  }

  private static void nonNegative(Limits limits, String option, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      limits.error(option + " must be a finite number, 0 or above, got " + value);
    }
  }

  /**
   * Creates the game's environment once with the given options, so that an unknown option or a bad value is a usage
   * error naming it before anything is trained.
   *
   * @param spec the command, for the usage error
   * @param registry where the game's environment is found
   * @param game the game
   * @throws picocli.CommandLine.ParameterException naming the option when the environment refuses it
   */
  void checkEnvironmentOptions(CommandSpec spec, EnvironmentRegistry registry, GameRecipe.Game game) {
    try (Environment e = registry.require(game.environment()).create(environmentOptions)) {
      // created only to check the options
      e.id();
    } catch (IllegalArgumentException e) {
      throw Limits.usage(spec, "--env-option: " + e.getMessage());
    }
  }
}
