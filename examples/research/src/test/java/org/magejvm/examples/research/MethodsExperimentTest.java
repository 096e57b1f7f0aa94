package org.magejvm.examples.research;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
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

  @Test
  void theTicTacToeCeilingsFillTheSuccessColumnsOfBothRows() {
    var experiment = new MethodsExperiment(REGISTRY, GameRecipe.TIC_TAC_TOE, new PrintWriter(Writer.nullWriter()));
    var rows = experiment.ticTacToeCeilings(16);
    assertThat(rows.keySet()).containsExactly("ceiling-blind", "ceiling-adaptive");
    var blind = rows.get("ceiling-blind").get(0);
    var adaptive = rows.get("ceiling-adaptive").get(0);
    assertThat(blind.keySet()).containsExactlyElementsOf(experiment.columns());
    for (String key : List.of("pool/success_rate[0]", "pool/success_rate[2]")) {
      assertThat(blind.get(key)).as(key).isBetween(0.5, 1.0).isLessThanOrEqualTo(adaptive.get(key));
    }
    assertThat(blind.get("pool/success_rate[2]")).isGreaterThan(blind.get("pool/success_rate[0]"));
    // one opponent: the best history-blind player is its best response
    assertThat(blind.get("mcts-1000/success_rate[2]")).isEqualTo(adaptive.get("mcts-1000/success_rate[2]"))
        .isLessThan(0.5);
    assertThat(blind.get("pool/draw_rate[0]")).isNaN();
    assertThat(adaptive.get("mcts-1000/score[2]")).isNaN();
  }

  @Test
  void aGameWithoutOpponentsReportsEveryAttemptWithAndWithoutItsHistory() {
    var out = new PrintWriter(Writer.nullWriter());
    assertThat(new MethodsExperiment(REGISTRY, GameRecipe.GOALKEEPER, out).columns()).containsExactly(
        "success_rate[0]", "success_rate[1]", "success_rate[2]",
        "no_history/success_rate[0]", "no_history/success_rate[1]", "no_history/success_rate[2]",
        "per_attempt_success[0]", "per_attempt_success[1]", "per_attempt_success[2]",
        "no_history/per_attempt_success[0]", "no_history/per_attempt_success[1]",
        "no_history/per_attempt_success[2]");
  }

  @Test
  void ratesNoMetaEpisodeReachedAreLeftOutOfTheSpread() {
    assertThat(RunSummaries.meanSpread(new double[] {0.5})).isEqualTo("0.500");
    assertThat(RunSummaries.meanSpread(new double[] {0.25, Double.NaN, 0.75}))
        .isEqualTo("0.500+-0.354 [0.25..0.75]");
    assertThat(RunSummaries.meanSpread(new double[] {Double.NaN})).isEqualTo("-");
  }

  @Test
  void aRefusedSummaryNamesTheFirstSettingThatDiffers() {
    var stored = com.google.gson.JsonParser.parseString("{\"config\": {\"seed\": 1, \"adamw\": {\"lr\": 1}},"
        + " \"evaluation\": {\"meta_episodes\": 2}}");
    var wanted = com.google.gson.JsonParser.parseString("{\"config\": {\"seed\": 1, \"adamw\": {\"lr\": 2}},"
        + " \"evaluation\": {\"meta_episodes\": 2}}");
    assertThat(RunSummaries.difference("", stored, wanted)).isEqualTo("config.adamw.lr: 1 there, 2 now");
    assertThat(RunSummaries.difference("", null, wanted)).startsWith("settings: null there, {");
  }
}
