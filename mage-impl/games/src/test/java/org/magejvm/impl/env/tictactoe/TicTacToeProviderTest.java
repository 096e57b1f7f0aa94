package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

class TicTacToeProviderTest {

  @Test
  void isDiscoveredThroughTheServiceLoader() {
    EnvironmentProvider p = EnvironmentRegistry.discover().require("mage-tictactoe");
    assertThat(p).isInstanceOf(TicTacToeProvider.class);
    assertThat(p.version()).isEqualTo("0.1.0");
    assertThat(p.description()).isNotEmpty();
    assertThat(p.twoPlayer()).isTrue();
    Environment env = p.create(Map.of());
    assertThat(env.id()).isEqualTo("mage-tictactoe");
    assertThat(env.reset(1, p.opponents().require("random"), Seat.FIRST)).isEqualTo(". . .\n. . .\n. . .");
  }

  @Test
  void defaultsAreTheReferenceSettings() {
    EnvironmentDefaults d = new TicTacToeProvider().defaults();
    assertThat(d).isEqualTo(EnvironmentDefaults.builder()
        .setMaxTurns(8).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
        .setInvalidPenalty(0.5).setLengthPenalty(2.0).setMaxResponseTokens(3072)
        .build());
    assertThat(new TicTacToeProvider().evaluationOpponent()).isEqualTo("mcts-100");
    assertThat(new TicTacToeProvider().evaluationSeat()).isEqualTo(Seat.FIRST);
  }

  @Test
  void theTrainingPopulationMirrorsTheReference() {
    OpponentPool pool = new TicTacToeProvider().opponents();
    Map<String, Double> weights = new HashMap<>();
    for (OpponentPool.Entry e : pool.training()) {
      weights.put(e.opponent().id(), e.weight());
    }
    assertThat(weights).containsEntry("mcts-100", 7.0).containsEntry("random", 3.0)
        .containsEntry("preferred-center-first", 1.0).containsEntry("preferred-corners-first", 1.0)
        .containsEntry("preferred-edges-first", 1.0).containsEntry("preferred-main-diagonal", 1.0)
        .containsEntry("preferred-anti-diagonal", 1.0).containsEntry("preferred-reverse", 1.0).hasSize(8);
    assertThat(pool.heldOut()).extracting(Opponent::id).containsExactly("mcts-1000", "minimax");
    assertThat(pool.require("mcts-100")).isInstanceOf(MctsOpponent.class);
    // sampling follows the 7 : 6 : 3 group split
    Random r = new Random(0);
    int mcts = 0;
    int random = 0;
    int n = 16_000;
    for (int i = 0; i < n; i++) {
      String id = pool.sample(r).id();
      mcts += id.equals("mcts-100") ? 1 : 0;
      random += id.equals("random") ? 1 : 0;
    }
    assertThat(mcts / (double) n).isBetween(7 / 16.0 - 0.02, 7 / 16.0 + 0.02);
    assertThat(random / (double) n).isBetween(3 / 16.0 - 0.02, 3 / 16.0 + 0.02);
  }

  @Test
  void rejectsEveryOption() {
    TicTacToeProvider p = new TicTacToeProvider();
    assertThat(p.options()).isEmpty();
    assertThatThrownBy(() -> p.create(Map.of("size", "4")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'size'").hasMessageContaining("mage-tictactoe").hasMessageContaining("no options");
  }

  @Test
  void offersRandomAndMinimaxScriptedPolicies() {
    TicTacToeProvider p = new TicTacToeProvider();
    assertThat(p.scriptedPolicies()).containsExactly("random", "minimax");
    assertThat(p.scriptedPolicy("random", 1).name()).isEqualTo("random");
    assertThat(p.scriptedPolicy("minimax", 1).name()).isEqualTo("minimax");
    assertThatThrownBy(() -> p.scriptedPolicy("greedy", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'greedy'").hasMessageContaining("random, minimax");
  }

  @Test
  void theMinimaxPolicyPlaysFromTheStateAndReflects() {
    TicTacToeProvider p = new TicTacToeProvider();
    Environment env = p.create(Map.of());
    env.reset(3, TicTacToeTesting.scripted("fixed", 0, 1), Seat.FIRST);
    env.step("<action>(2, 2)</action>"); // X center, O (1, 1)
    env.step("<action>(3, 3)</action>"); // X (3, 3), O (1, 2); O threatens (1, 3)
    LanguagePolicy policy = p.scriptedPolicy("minimax", 7);
    PolicyRequest play = new PolicyRequest("prompt", Phase.PLAY, "w", 0, 2, env.legalActions(), env.state(),
        List.of());
    String text = policy.generate(List.of(play), SamplingConfig.training(32)).get(0).text();
    assertThat(text).isEqualTo("<action>(1, 3)</action>");
    PolicyRequest reflect = new PolicyRequest("prompt", Phase.REFLECT, "w", 0, 0, List.of(), null, List.of());
    String remark = policy.generate(List.of(reflect), SamplingConfig.training(32)).get(0).text();
    assertThat(remark).startsWith("<remark>").endsWith("</remark>").hasSizeGreaterThan(30);
    PolicyRequest noState = PolicyRequest.of("prompt");
    assertThatThrownBy(() -> policy.generate(List.of(noState), SamplingConfig.training(32)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Tic-Tac-Toe state");
  }
}
