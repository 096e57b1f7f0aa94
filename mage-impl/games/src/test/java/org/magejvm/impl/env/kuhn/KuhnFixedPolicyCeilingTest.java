package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Seat;

/**
 * What the success rate of Kuhn Poker can show: every deterministic agent strategy (a PASS or BET at each of the
 * twelve information states, six per seat) is played against the training pool on all six deals in both seats, and
 * counted when it wins every winnable deal. Such a strategy reaches the winnable-deal ceiling in its first attempt
 * against every pool opponent without knowing which one it faces, so success_rate[2] - success_rate[0] is no measure
 * of adaptation for a player that maximizes wins (docs/results.md cites these counts).
 */
class KuhnFixedPolicyCeilingTest {

  private static final String[] STATES = {"", "pb", "p", "b"};

  /** The deterministic strategy numbered {@code bits}: bit (card * 4 + state) set means BET. */
  private static KuhnStrategy strategy(int bits) {
    return (card, history) -> {
      int state = java.util.Arrays.asList(STATES).indexOf(history);
      return (bits >> (card.ordinal() * 4 + state) & 1) == 1 ? 1.0 : 0.0;
    };
  }

  private static int wins(KuhnStrategy agent, KuhnStrategy opponent, Seat seat) {
    int wins = 0;
    for (KuhnDeal d : KuhnDeal.ALL) {
      wins += KuhnAnalysis.expectedValue(agent, opponent, seat, d) > 0 ? 1 : 0;
    }
    return wins;
  }

  private static List<Integer> atCeiling(List<KuhnOpponent> opponents) {
    List<Integer> found = new ArrayList<>();
    for (int bits = 0; bits < 1 << 12; bits++) {
      KuhnStrategy s = strategy(bits);
      boolean all = true;
      for (KuhnOpponent o : opponents) {
        for (Seat seat : Seat.values()) {
          all &= wins(s, o, seat) == KuhnAnalysis.winnableDeals(o, seat).size();
        }
      }
      if (all) {
        found.add(bits);
      }
    }
    return found;
  }

  @Test
  void someFixedStrategiesWinEveryWinnableDealAgainstTheWholePoolInBothSeats() {
    List<KuhnOpponent> pool = List.of(KuhnOpponents.conservative(), KuhnOpponents.aggressive(),
        KuhnOpponents.intermediate());
    List<Integer> found = atCeiling(pool);
    assertThat(found).hasSize(144);
    // the held-out argmax CFR opponent rules none of them out
    List<KuhnOpponent> withCfr = new ArrayList<>(pool);
    withCfr.add(KuhnOpponents.cfr());
    assertThat(atCeiling(withCfr)).isEqualTo(found);
    // always PASS (check or fold) is not among them
    assertThat(found).doesNotContain(0);
  }
}
