package org.magejvm.impl.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.magejvm.api.OpponentPool;
import org.magejvm.testkit.DuelOpponent;
import org.junit.jupiter.api.Test;

/** {@link OpponentQuota}: the reference's {@code generate_opponent_list} from weights and a group count. */
class OpponentQuotaTest {

  @Test
  void theReferencesPoolsGiveTheReferencesQuotas() {
    // Kuhn Poker: conservative, aggressive, intermediate at ratios 0.3, 0.3, 0.4 of 16 groups
    assertThat(OpponentQuota.counts(new double[] {0.3, 0.3, 0.4}, 16)).containsExactly(5, 5, 6);
    // Tic-Tac-Toe: mcts-100 7, six preferred-position players 1 each, random 3
    assertThat(OpponentQuota.counts(new double[] {7, 1, 1, 1, 1, 1, 1, 3}, 16))
        .containsExactly(7, 1, 1, 1, 1, 1, 1, 3);
  }

  @Test
  void roundingIsHalfToEvenAShortfallGoesToTheLastAndAnExcessIsCutFromTheEnd() {
    // 0.3 * 8 = 2.4 -> 2, 2.4 -> 2, 3.2 -> 3: one group short, the last opponent takes it (the reference fills with
    // "intermediate", the last of its Kuhn pool)
    assertThat(OpponentQuota.counts(new double[] {0.3, 0.3, 0.4}, 8)).containsExactly(2, 2, 4);
    // 1.5 -> 2, 1.5 -> 2, 2.0 -> 2: one group too many, cut from the end of the list
    assertThat(OpponentQuota.counts(new double[] {0.3, 0.3, 0.4}, 5)).containsExactly(2, 2, 1);
    // half to even: 2.5 -> 2, 0.5 -> 0 (Python's round), then the rest to the last
    assertThat(OpponentQuota.counts(new double[] {5, 1}, 3)).containsExactly(2, 1);
    assertThat(OpponentQuota.counts(new double[] {1, 1}, 1)).containsExactly(0, 1);
    assertThat(OpponentQuota.counts(new double[] {2, 1}, 0)).containsExactly(0, 0);
    // weights need not add up to 1
    assertThat(OpponentQuota.counts(new double[] {3, 3, 4}, 16)).containsExactly(5, 5, 6);
  }

  @Test
  void groupsAreContiguousBlocksInPoolOrder() {
    OpponentPool pool = OpponentPool.builder().addOpponent(DuelOpponent.greedy(), 0.25)
        .addOpponent(DuelOpponent.patient(), 0.75).addHeldOut(DuelOpponent.coin()).build();
    assertThat(OpponentQuota.assign(pool, 4)).extracting(o -> o.id())
        .containsExactly("greedy", "patient", "patient", "patient");
    assertThat(OpponentQuota.assign(pool, 0)).isEmpty();
    assertThatThrownBy(() -> OpponentQuota.assign(OpponentPool.builder().addHeldOut(DuelOpponent.coin()).build(), 2))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> OpponentQuota.counts(new double[0], 2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OpponentQuota.counts(new double[] {1, -1}, 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(List.of(OpponentSampling.values())).contains(OpponentSampling.QUOTA);
  }
}
