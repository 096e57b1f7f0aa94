package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Advantages;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;

/** {@link AnchorScope#PROMPT}: step groups keyed by the whole prompt and the episode index. */
class PromptAnchorTest {

  @Test
  void turnsWithTheSameStateButDifferentPromptsAreNotPooled() {
    // four first turns of episode 1 from the same deal ("Q"): two saw "lost: BET", two saw "lost: PASS"; one more
    // with the first prompt in episode 2
    List<ScoredTurn> turns = List.of(
        GoldenBatch.play("Q | lost: BET", "g", "opp", Seat.FIRST, 1, 0, "Q", 0, 0, true),
        GoldenBatch.play("Q | lost: BET", "g", "opp", Seat.FIRST, 1, 0, "Q", 20, 20, true),
        GoldenBatch.play("Q | lost: PASS", "g", "opp", Seat.FIRST, 1, 0, "Q", 4, 4, true),
        GoldenBatch.play("Q | lost: PASS", "g", "opp", Seat.FIRST, 1, 0, "Q", 0, 0, true),
        GoldenBatch.play("Q | lost: BET", "g", "opp", Seat.FIRST, 2, 0, "Q", 6, 6, true));
    Advantages prompt = new GigpoAdvantageNormalizer(
        OptimizerConfig.builder().optAnchorScope(AnchorScope.PROMPT).build()).compute(turns);
    // groups: {0, 1} mean 10 -> -10, 10; {2, 3} mean 2 -> 2, -2; {4} singleton -> 0
    assertThat(prompt.stepTerm()).containsExactly(new double[] {-10, 10, 2, -2, 0}, within(1e-12));
    assertThat(prompt.stepGroupCount()).isEqualTo(3);

    Advantages global = new GigpoAdvantageNormalizer(OptimizerConfig.defaults()).compute(turns);
    // one group of all five: mean 6 -> -6, 14, -2, -6, 0
    assertThat(global.stepTerm()).containsExactly(new double[] {-6, 14, -2, -6, 0}, within(1e-12));
    assertThat(global.stepGroupCount()).isEqualTo(1);
    // the episode term does not depend on the anchors
    assertThat(prompt.episodeTerm()).containsExactly(global.episodeTerm(), within(1e-12));
  }
}
