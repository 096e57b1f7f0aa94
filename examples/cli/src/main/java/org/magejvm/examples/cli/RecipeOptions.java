package org.magejvm.examples.cli;

import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.examples.quickstart.RecipeSettingsBuilder;
import org.magejvm.examples.quickstart.ShippedWarmStart;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The recipe options of {@code mage experiment} (picocli mixin): the warm start and the evaluation. The training
 * settings come from a training config ({@link ConfigOptions}).
 */
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

  @Option(names = "--eval-temperature", paramLabel = "T",
      description = "Evaluate at this temperature with neither top-p nor top-k, 0 for greedy (a diagnostic: shows"
          + " probability shifts the reference's evaluation sampling, temperature 0.7, top-p 0.8, top-k 20, rounds"
          + " away; default: the reference's).")
  Double evalTemperature;

  @Option(names = "--no-shipped-warm-start",
      description = "Train the warm start in the work directory even when the one shipped with mage fits the settings"
          + " (it does for the quick start and the method comparisons on Goalkeeper and Kuhn Poker with their defaults"
          + " and seed 1; training it takes about 3 minutes).")
  boolean noShippedWarmStart;

  @Option(names = "--threads", paramLabel = "T", defaultValue = "1",
      description = "libtorch threads per operation (default: ${DEFAULT-VALUE}; the tiny model's operations are too"
          + " small to share between cores, and extra threads spin-wait on a busy machine).")
  int threads;

  /**
   * @param workDir the run's work directory
   * @param training the training config
   * @return a settings builder with these options' values
   */
  RecipeSettingsBuilder settings(java.nio.file.Path workDir, org.magejvm.impl.train.TrainingConfig training) {
    return RecipeSettings.builder(workDir, training)
        .optWarmStartExamples(warmStartExamples)
        .optWarmStart(warmStartEpochs, warmStartLearningRate)
        .optEvalTemperature(evalTemperature == null ? Double.NaN : evalTemperature);
  }

  /**
   * Copies the shipped warm start into the recipe's work directory unless told not to ({@link
   * ShippedWarmStart#install}), and says so.
   *
   * @param refuse whether {@code --no-shipped-warm-start} was given
   * @param game the recipe
   * @param out where to say it
   * @return whether it was installed
   */
  static boolean installShippedWarmStart(boolean refuse, GameRecipe game, java.io.PrintWriter out) {
    if (refuse || !ShippedWarmStart.install(game)) {
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
    if (!(warmStartLearningRate > 0) || Double.isInfinite(warmStartLearningRate)) {
      limits.error("--warm-start-lr must be a finite number above 0, got " + warmStartLearningRate);
    }
    return limits
        .count("--warm-start-examples", warmStartExamples, 1, Limits.MAX_EXAMPLES,
            "each example keeps its prompt and response in memory")
        .count("--warm-start-epochs", warmStartEpochs, 1, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--threads", threads, 1, Limits.MAX_THREADS, Limits.SANE);
  }

  /**
   * Creates the game's environment once with the given options, so that an unknown option or a bad value is a usage
   * error naming it before anything is trained.
   *
   * @param spec the command, for the usage error
   * @param registry where the game's environment is found
   * @param config the training config (its environment and options)
   * @throws picocli.CommandLine.ParameterException naming the option when the environment refuses it
   */
  static void checkEnvironmentOptions(CommandSpec spec, EnvironmentRegistry registry,
      org.magejvm.impl.train.TrainingConfig config) {
    try (Environment e = registry.require(config.environment().id()).create(config.environment().options())) {
      // created only to check the options
      e.id();
    } catch (IllegalArgumentException e) {
      throw Limits.usage(spec, "environment.options: " + e.getMessage());
    }
  }
}
