package org.magejvm.examples.research;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.env.penalty.PenaltyProvider;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.spi.EnvironmentRegistry;

class ClaimsExperimentTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();
  private static final PrintWriter QUIET = new PrintWriter(Writer.nullWriter());

  private static GameRecipe recipe(RecipeGame game, Path dir, int perStriker) {
    TrainingConfig config = GameRecipe.quickStartConfig(REGISTRY.require(game.environment()), 1).toBuilder()
        .set("iterations", 0).build();
    RecipeSettings settings = RecipeSettings.builder(dir, config).optEvalMetaEpisodes(perStriker).optSeed(1).build();
    return new GameRecipe(REGISTRY, game, settings, QUIET);
  }

  @Test
  void theExactRowsAreTheComputedOptimaAndCeilings(@TempDir Path dir) {
    var experiment = new ClaimsExperiment(REGISTRY, GameRecipe.PENALTY_GRADED, QUIET);
    var rows = experiment.exactRows(recipe(GameRecipe.PENALTY_GRADED, dir, 5));
    assertThat(rows.keySet()).containsExactly("ceiling-blind", "optimum-final", "optimum-cumulative",
        "ceiling-adaptive");
    Map<String, Double> mage = rows.get("optimum-final").get(0);
    Map<String, Double> lamer = rows.get("optimum-cumulative").get(0);
    // docs/environments.md, PenaltyObjectivesTest: the two optima on the training population (gamma_traj 1)
    assertThat(mage.get("train/success_rate[1]")).isCloseTo(0.65, within(1e-12));
    assertThat(mage.get("train/final_attempt_score")).isCloseTo(1.0, within(1e-12));
    assertThat(mage.get("train/cumulative_score")).isCloseTo(1.25, within(1e-12));
    assertThat(lamer.get("train/success_rate[2]")).isCloseTo(0.75, within(1e-12));
    assertThat(lamer.get("train/final_attempt_score")).isCloseTo(0.875, within(1e-12));
    assertThat(lamer.get("train/cumulative_score")).isCloseTo(1.4, within(1e-12));
    // the blind ceilings of each population, and the training optimum's fall on the held-out strikers
    assertThat(rows.get("ceiling-blind").get(0).get("train/success_rate[2]")).isCloseTo(0.65, within(1e-12));
    assertThat(rows.get("ceiling-blind").get(0).get("held_out/success_rate[2]")).isCloseTo(0.65, within(1e-12));
    assertThat(rows.get("ceiling-blind").get(0).get("no_history/held_out/success_rate[2]"))
        .isCloseTo(0.65, within(1e-12));
    assertThat(mage.get("held_out/success_rate[2]")).isCloseTo(0.35, within(1e-12));
    assertThat(mage.get("no_history/train/success_rate[2]")).isNaN();
    assertThat(rows.get("ceiling-adaptive").get(0).get("held_out/success_rate[2]")).isEqualTo(1.0);
    assertThat(mage.keySet()).containsExactlyElementsOf(experiment.columns());

    var showcase = new ClaimsExperiment(REGISTRY, GameRecipe.PENALTY, QUIET)
        .exactRows(recipe(GameRecipe.PENALTY, dir, 5));
    assertThat(showcase.get("ceiling-blind").get(0).get("train/success_rate[2]")).isCloseTo(0.95 / 1.5,
        within(1e-12));
    assertThat(showcase.get("ceiling-blind").get(0).get("held_out/success_rate[2]")).isCloseTo(0.6, within(1e-12));
    assertThat(showcase.get("optimum-final").get(0).get("held_out/success_rate[2]")).isCloseTo(0.35, within(1e-12));

    // the steps game, 7 spots: 3/7 blind on either set, 1 adaptive on either set
    var steps = new ClaimsExperiment(REGISTRY, GameRecipe.PENALTY_STEPS, QUIET)
        .exactRows(recipe(GameRecipe.PENALTY_STEPS, dir, 7));
    for (String set : new String[] {"train", "held_out"}) {
      assertThat(steps.get("ceiling-blind").get(0).get(set + "/success_rate[2]")).isCloseTo(3.0 / 7, within(1e-12));
      assertThat(steps.get("ceiling-adaptive").get(0).get(set + "/success_rate[2]")).isCloseTo(1.0, within(1e-12));
    }
    assertThat(steps.get("optimum-final").get(0).get("train/success_rate[2]")).isCloseTo(1.0, within(1e-12));
  }

  @Test
  void aScriptedKeeperMeasuresItsExactOutcomeOnSetsBalancedOverTheFirstSpot(@TempDir Path dir) {
    // the blind keeper dives 1, 1, 2 whatever happens; with 8 meta-episodes per first spot its measures on each
    // training striker are exact, final-attempt and cumulative scores included
    GameRecipe recipe = recipe(GameRecipe.PENALTY_GRADED, dir, 40);
    var experiment = new ClaimsExperiment(REGISTRY, GameRecipe.PENALTY_GRADED, QUIET);
    Map<String, Double> exact = experiment.exactRows(recipe).get("ceiling-blind").get(0);
    Map<String, Double> measured;
    try (LanguagePolicy blind = REGISTRY.require(GameRecipe.PENALTY_GRADED.environment())
        .scriptedPolicy(PenaltyProvider.BLIND_POLICY, 0)) {
      measured = experiment.measure(recipe.evaluationRollouts(blind, ContextMode.HISTORY_ONLY,
          ReflectionControl.OWN), "");
    }
    for (String striker : GameRecipe.PENALTY_GRADED.pool()) {
      for (String metric : experiment.metrics()) {
        assertThat(measured.get(striker + "/" + metric)).as(striker + "/" + metric)
            .isCloseTo(exact.get(striker + "/" + metric), within(1e-12));
      }
    }
    assertThat(measured.get("train/final_attempt_score")).isCloseTo(0.725, within(1e-12));

    // the adaptive keeper (ties broken at random) saves every meta-episode by the third attempt
    try (LanguagePolicy adaptive = REGISTRY.require(GameRecipe.PENALTY_GRADED.environment())
        .scriptedPolicy(PenaltyProvider.ADAPTIVE_POLICY, 0)) {
      measured = experiment.measure(recipe.evaluationRollouts(adaptive, ContextMode.HISTORY_ONLY,
          ReflectionControl.OWN), "");
    }
    assertThat(measured.get("train/success_rate[2]")).isEqualTo(1.0);
    assertThat(measured.get("train/final_attempt_score")).isEqualTo(1.0);
    assertThat(measured.get("train/invalid_action_rate")).isZero();
  }

  @Test
  void theVerdictComparesTheMeasuredDifferenceWithThePredictedSignBeyondTheSpread() {
    assertThat(ClaimsExperiment.verdict(0.125, 0.2, 0.1)).isEqualTo("reproduced");
    assertThat(ClaimsExperiment.verdict(0.125, 0.05, 0.1)).isEqualTo("not separated");
    assertThat(ClaimsExperiment.verdict(-0.15, 0.2, 0.1)).isEqualTo("reversed");
    assertThat(ClaimsExperiment.verdict(0, 0.05, 0.1)).isEqualTo("tie as predicted");
    assertThat(ClaimsExperiment.verdict(0, 0.3, 0.1)).isEqualTo("separated");
  }

  @Test
  void otherGamesAreRefused() {
    assertThatThrownBy(() -> new ClaimsExperiment(REGISTRY, GameRecipe.KUHN, QUIET))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mage-penalty-graded");
  }
}
