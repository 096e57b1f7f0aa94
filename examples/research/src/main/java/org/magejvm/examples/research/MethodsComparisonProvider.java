package org.magejvm.examples.research;

import java.io.PrintWriter;
import java.util.List;
import org.magejvm.examples.cli.MethodsComparison;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/** {@code mage experiment}'s comparison: a {@link MethodsExperiment} per call. */
public final class MethodsComparisonProvider implements MethodsComparison {

  /** Creates the provider (ServiceLoader). */
  public MethodsComparisonProvider() {}

  @Override
  public void run(EnvironmentRegistry registry, RecipeGame game, PrintWriter out, RecipeSettings settings,
      List<Long> trainingSeeds, List<TrainingPreset> methods, boolean train) {
    new MethodsExperiment(registry, game, out).run(settings, trainingSeeds, methods, train);
  }
}
