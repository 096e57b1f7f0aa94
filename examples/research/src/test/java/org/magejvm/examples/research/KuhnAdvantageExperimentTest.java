package org.magejvm.examples.research;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.AnchorScope;
import org.magejvm.impl.credit.EpisodeScore;

/**
 * Near the optimum of MAGE's objective, the reference's episode score points the policy gradient away from the
 * optimum's switch after a lost attempt; scoring the whole meta-episode does not (docs/results.md).
 */
class KuhnAdvantageExperimentTest {

  /** Player 0 with the Jack after checking and folding in the first attempt: the optimum bluffs now. */
  private static final String BLUFF_AFTER_A_FOLD =
      "You are player 0. Your card: Jack. Betting so far: nothing yet. | Try 1 lost: PASS, PASS | Try 2 now.";

  @Test
  void theAttemptScoreDisfavoursTheOptimumsSwitchAndTheMetaEpisodeScoreFavoursItEverywhere() {
    Map<EpisodeScore, KuhnAdvantageExperiment.Result> r = KuhnAdvantageExperiment.run(0.2, 100, 1000,
        AnchorScope.PROMPT);
    KuhnAdvantageExperiment.Result attempt = r.get(EpisodeScore.ATTEMPT);
    KuhnAdvantageExperiment.Result whole = r.get(EpisodeScore.META_EPISODE);
    assertThat(attempt.prompts()).isGreaterThan(40);
    assertThat(attempt.disagreeing()).containsKey(BLUFF_AFTER_A_FOLD);
    assertThat(whole.disagreeing()).doesNotContainKey(BLUFF_AFTER_A_FOLD);
    assertThat(whole.turnShare()).isGreaterThan(0.98).isGreaterThan(attempt.turnShare());
  }

  @Test
  void theStateLineDropsTheRulesAndTheAnswerInstruction() {
    assertThat(KuhnAdvantageExperiment.stateLine("Kuhn poker: rules.\nStart:\nYou are player 1. Your card: King."
        + "\nTry 1 lost: BET\nAnswer <action>PASS</action> or <action>BET</action>."))
        .isEqualTo("You are player 1. Your card: King. | Try 1 lost: BET");
  }
}
