package org.magejvm.examples.research;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.Writer;
import org.junit.jupiter.api.Test;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.spi.EnvironmentRegistry;

class MethodsExperimentTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  @Test
  void theComparisonReportsDrawRatesOnlyForGamesWithDraws() {
    var out = new PrintWriter(Writer.nullWriter());
    assertThat(new MethodsExperiment(REGISTRY, GameRecipe.KUHN, out).columns()).containsExactly(
        "pool/success_rate[0]", "pool/success_rate[2]", "cfr/success_rate[0]", "cfr/success_rate[2]",
        "pool/score[0]", "pool/score[2]", "cfr/score[0]", "cfr/score[2]");
    assertThat(new MethodsExperiment(REGISTRY, GameRecipe.TIC_TAC_TOE, out).columns()).contains(
        "pool/draw_rate[0]", "mcts-1000/draw_rate[2]", "mcts-1000/success_rate[0]", "mcts-1000/score[2]").hasSize(12);
  }
}
