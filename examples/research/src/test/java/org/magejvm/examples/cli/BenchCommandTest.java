package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/**
 * Every program {@code mage bench} names exists, with mage-bench and mage-research on the class path as the launcher
 * puts them: a renamed or moved program fails here, not at a user's command line.
 */
class BenchCommandTest {

  @Test
  void everyBenchmarkNameFindsAPublicStaticMain() throws Exception {
    for (String className : BenchCommand.BENCHMARKS.values()) {
      Method main = ClassPathPrograms.load(className).getMethod("main", String[].class);
      assertThat(Modifier.isStatic(main.getModifiers())).as(className).isTrue();
    }
    Class<?> experiment = ClassPathPrograms.load(ExperimentCommand.METHODS_EXPERIMENT);
    assertThat(experiment.getMethod("run", org.magejvm.examples.quickstart.GameRecipe.Settings.class,
        java.util.List.class, java.util.List.class)).isNotNull();
  }
}
