package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.ServiceLoader;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The comparison of training methods that {@code mage experiment} runs, a plugin of the tool: the lab ({@code
 * mage-research}) implements it and registers it in {@code
 * META-INF/services/org.magejvm.examples.cli.MethodsComparison}; the tool finds it on the class path, where the {@code
 * mage} launcher puts the lab's jar. A typed call, checked by the compiler, instead of a class name in a string.
 */
public interface MethodsComparison {

  /**
   * Trains and evaluates each method over the seeds from one warm start, reusing finished runs, and prints the table.
   *
   * @param registry where the game is found
   * @param game the game
   * @param out where the progress and the table go
   * @param settings the recipe's settings (work directory, training config, evaluation)
   * @param trainingSeeds the training seeds
   * @param methods the training presets to compare
   * @param train whether to train runs that are missing (false: only report finished ones)
   * @throws Exception whatever the comparison throws (the tool reports it as any command's error)
   */
  void run(EnvironmentRegistry registry, RecipeGame game, PrintWriter out, RecipeSettings settings,
      List<Long> trainingSeeds, List<TrainingPreset> methods, boolean train) throws Exception;

  /**
   * The paper's claims at toy scale on Penalty Shoot-out: trains and evaluates each method over the seeds from one
   * warm start on the training strikers and the held-out ones, reusing finished runs, and prints the tables, the exact
   * ceilings and optima, the prediction and the measured differences.
   *
   * @param registry where the game is found
   * @param game a Penalty Shoot-out game
   * @param out where the progress and the tables go
   * @param settings the recipe's settings (work directory, training config, evaluation)
   * @param trainingSeeds the training seeds
   * @param methods the training presets to compare
   * @param train whether to train runs that are missing (false: only report finished ones)
   * @return the report as JSON text
   * @throws Exception whatever the comparison throws (the tool reports it as any command's error)
   */
  String claims(EnvironmentRegistry registry, RecipeGame game, PrintWriter out, RecipeSettings settings,
      List<Long> trainingSeeds, List<TrainingPreset> methods, boolean train) throws Exception;

  /**
   * @return the comparison on the class path
   * @throws IllegalStateException naming the jar when there is none
   */
  static MethodsComparison find() {
    return ServiceLoader.load(MethodsComparison.class).findFirst().orElseThrow(() -> new IllegalStateException(
        "the methods comparison (mage-research) is not on the class path: it lives in"
            + " examples/research/target/mage-research.jar, which the `mage` launcher adds when it is built"
            + " (mvn -B -q package -DskipTests)"));
  }
}
