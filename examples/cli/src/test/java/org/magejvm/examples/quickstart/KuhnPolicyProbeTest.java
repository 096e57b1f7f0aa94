package org.magejvm.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.MetaEpisode;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.spi.EnvironmentRegistry;

class KuhnPolicyProbeTest {

  @Test
  void stateKeysNameSeatCardAndBetting() {
    assertThat(KuhnPolicyProbe.stateKey("You are player 1. Your card: Queen. Betting so far: player 0 bets."))
        .isEqualTo("p1 Queen: player 0 bets");
    assertThat(KuhnPolicyProbe.stateKey("Place your mark")).isNull();
    assertThat(KuhnPolicyProbe.shortLabel("p1 Queen: player 0 bets")).isEqualTo("P1 Q vs bet");
    assertThat(KuhnPolicyProbe.shortLabel("p0 King: player 0 checks, player 1 bets")).isEqualTo("P0 K check, bet");
    assertThat(KuhnPolicyProbe.shortLabel("p0 Jack: nothing yet")).isEqualTo("P0 J opens");
  }

  @Test
  void probesEveryInformationStateAndScoresEachPromptAloneAsInABatch(@TempDir Path dir) {
    GameRecipe recipe = new GameRecipe(EnvironmentRegistry.discover(),
        RecipeSettings.builder(dir, GameRecipe.quickStartConfig(EnvironmentRegistry.discover()
            .require(GameRecipe.KUHN.environment()), 3)).optWarmStartExamples(64).optEvalMetaEpisodes(4).optSeed(3)
            .build(), new PrintWriter(Writer.nullWriter()));
    List<MetaEpisode> games = recipe.probeMetaEpisodes(KuhnQuickStart.PROBE_META_EPISODES);
    assertThat(recipe.probeMetaEpisodes(KuhnQuickStart.PROBE_META_EPISODES).toString()).isEqualTo(games.toString());
    try (DjlLanguagePolicy policy = recipe.load(recipe.tinyModel())) {
      KuhnPolicyProbe.Result r = KuhnPolicyProbe.probe(policy, games);
      // two seats: player 0 acts first or after a check and a bet, player 1 after a check or a bet; three cards
      assertThat(r.firstAttempt()).hasSize(12);
      assertThat(r.firstAttempt().values()).allSatisfy(p -> assertThat(p).isStrictlyBetween(0.0, 1.0));
      assertThat(r.laterPrompts()).isGreaterThan(10);
      assertThat(r.historyShift()).isBetween(0.0, 1.0);
      assertThat(r.repeatProbability()).isBetween(0.0, 1.0);
      double max = r.firstAttempt().values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
      double min = r.firstAttempt().values().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
      assertThat(r.spread()).isCloseTo(max - min, within(1e-12));
      // more than one forward pass (64 rows each): every prompt scores as it does alone
      List<String> prompts = new ArrayList<>();
      for (MetaEpisode m : games) {
        m.episodes().forEach(e -> e.turns().forEach(t -> prompts.add(t.prompt())));
      }
      assertThat(prompts.size()).isGreaterThan(40);
      double[] batched = KuhnPolicyProbe.betProbabilities(policy, prompts);
      for (int i : new int[] {0, 31, 32, prompts.size() - 1}) {
        double alone = KuhnPolicyProbe.betProbabilities(policy, List.of(prompts.get(i)))[0];
        assertThat(batched[i]).as("prompt " + i).isCloseTo(alone, within(1e-5));
      }
    }
  }
}
