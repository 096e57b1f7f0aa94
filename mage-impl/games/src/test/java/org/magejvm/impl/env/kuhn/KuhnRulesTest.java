package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KuhnRulesTest {

  /** Player 0's chips for each finished line, deals in KuhnDeal.ALL order (JQ, JK, QJ, QK, KJ, KQ). */
  static final Map<String, int[]> PAYOFF_PLAYER0 = Map.of(
      "pp", new int[] {-1, -1, 1, -1, 1, 1},
      "bp", new int[] {1, 1, 1, 1, 1, 1},
      "bb", new int[] {-2, -2, 2, -2, 2, 2},
      "pbp", new int[] {-1, -1, -1, -1, -1, -1},
      "pbb", new int[] {-2, -2, 2, -2, 2, 2});

  @Test
  void dealsAreTheSixOrderedPairsOfDistinctCards() {
    assertThat(KuhnDeal.ALL).extracting(KuhnDeal::toString)
        .containsExactly("JQ", "JK", "QJ", "QK", "KJ", "KQ");
    assertThat(KuhnDeal.parse("KQ")).isEqualTo(new KuhnDeal(KuhnCard.KING, KuhnCard.QUEEN));
    assertThatThrownBy(() -> new KuhnDeal(KuhnCard.JACK, KuhnCard.JACK)).hasMessageContaining("Jack");
    assertThatThrownBy(() -> KuhnDeal.parse("QX")).hasMessageContaining("'X'");
    assertThatThrownBy(() -> KuhnDeal.parse("Q")).hasMessageContaining("'Q'");
    assertThatThrownBy(() -> KuhnDeal.ALL.get(0).card(2)).hasMessageContaining("got 2");
  }

  @Test
  void everyFinishedLinePaysTheOpenSpielAmounts() {
    assertThat(PAYOFF_PLAYER0.keySet()).containsExactlyInAnyOrderElementsOf(KuhnRules.TERMINAL_HISTORIES);
    for (Map.Entry<String, int[]> e : PAYOFF_PLAYER0.entrySet()) {
      for (int d = 0; d < KuhnDeal.ALL.size(); d++) {
        KuhnDeal deal = KuhnDeal.ALL.get(d);
        assertThat(KuhnRules.payoffForPlayer0(deal, e.getKey())).as("%s on %s", e.getKey(), deal)
            .isEqualTo(e.getValue()[d]);
        assertThat(KuhnRules.payoff(deal, e.getKey(), 1)).isEqualTo(-e.getValue()[d]);
      }
    }
  }

  @Test
  void decisionPointsPlayersAndShowdowns() {
    assertThat(KuhnRules.DECISION_HISTORIES).allMatch(KuhnRules::isDecision).noneMatch(KuhnRules::isTerminal);
    assertThat(List.of("", "p", "b", "pb")).extracting(KuhnRules::playerToAct).containsExactly(0, 1, 1, 0);
    assertThat(KuhnRules.TERMINAL_HISTORIES).filteredOn(KuhnRules::isShowdown)
        .containsExactlyInAnyOrder("pp", "bb", "pbb");
    assertThat(KuhnRules.isDecision("pp")).isFalse();
    assertThat(KuhnRules.isTerminal("x")).isFalse();
    assertThatThrownBy(() -> KuhnRules.playerToAct("bb")).hasMessageContaining("'bb'");
    assertThatThrownBy(() -> KuhnRules.payoffForPlayer0(KuhnDeal.ALL.get(0), "pb"))
        .hasMessageContaining("'pb'");
  }

  @Test
  void bettingIsDescribedWithTheSituationalVerb() {
    assertThat(KuhnRules.describe("")).isEqualTo("nothing yet");
    assertThat(KuhnRules.describe("b")).isEqualTo("player 0 bets");
    assertThat(KuhnRules.describe("pbp")).isEqualTo("player 0 checks, player 1 bets, player 0 folds");
    assertThat(KuhnRules.describe("bb")).isEqualTo("player 0 bets, player 1 calls");
    assertThat(KuhnRules.describe("pp")).isEqualTo("player 0 checks, player 1 checks");
  }

  @Test
  void cardsAndActionsRoundTrip() {
    assertThat(KuhnCard.KING.beats(KuhnCard.QUEEN)).isTrue();
    assertThat(KuhnCard.JACK.beats(KuhnCard.QUEEN)).isFalse();
    assertThat(KuhnCard.fromLetter('Q')).isEqualTo(KuhnCard.QUEEN);
    assertThatThrownBy(() -> KuhnCard.fromLetter('A')).hasMessageContaining("'A'");
    assertThat(KuhnAction.fromSymbol('b')).isEqualTo(KuhnAction.BET);
    assertThat(KuhnAction.PASS.verb(true)).isEqualTo("folds");
    assertThatThrownBy(() -> KuhnAction.fromSymbol('x')).hasMessageContaining("'x'");
  }
}
