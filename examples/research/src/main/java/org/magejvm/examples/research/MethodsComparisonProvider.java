package org.magejvm.examples.research;

import java.io.PrintWriter;
import java.util.List;
import org.magejvm.examples.cli.MethodsComparison;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/** {@code mage experiment}'s comparisons: a {@link MethodsExperiment} or a {@link ClaimsExperiment} per call. */
public final class MethodsComparisonProvider implements MethodsComparison {

  /** Creates the provider (ServiceLoader). */
  public MethodsComparisonProvider() {}

  @Override
  public void run(EnvironmentRegistry registry, RecipeGame game, PrintWriter out, RecipeSettings settings,
      List<Long> trainingSeeds, List<TrainingPreset> methods, boolean train) {
    new MethodsExperiment(registry, game, out).run(settings, trainingSeeds, methods, train);
  }

  @Override
  public String claims(EnvironmentRegistry registry, RecipeGame game, PrintWriter out, RecipeSettings settings,
      List<Long> trainingSeeds, List<TrainingPreset> methods, boolean train) {
    return RunSummaries.GSON.toJson(
        new ClaimsExperiment(registry, game, out).run(settings, trainingSeeds, methods, train).json());
  }
}
