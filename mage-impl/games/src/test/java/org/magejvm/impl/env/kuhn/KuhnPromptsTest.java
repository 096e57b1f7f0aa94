package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Seat;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;

/**
 * What the prompts must never show and how short the compact ones are; their exact text is in the golden files of
 * {@code PromptGoldenTest}.
 */
class KuhnPromptsTest {

  private static String initialObservation(KuhnDeal deal, Seat seat, KuhnOpponent opp) {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    return env.reset(KuhnPokerEnvironmentTest.seedFor(deal), opp, seat);
  }

  @Test
  void theOpponentsCardAppearsOnlyInTheRules() {
    String obs = initialObservation(KuhnDeal.parse("KQ"), Seat.SECOND, KuhnOpponents.cfr());
    assertThat(obs).isEqualTo("You are player 1. Your card: Queen. Betting so far: player 0 bets.");
    for (PromptStyle style : PromptStyle.values()) {
      String prompt = KuhnPrompts.RENDERER.renderPlay(new PromptContext(style, obs, 0, List.of(), List.of(), null));
      String rules = style == PromptStyle.VERBOSE ? KuhnPrompts.GAME_TEXT.rules() : KuhnPrompts.GAME_TEXT.compactRules();
      assertThat(prompt).contains(rules);
      assertThat(prompt.replace(rules, "")).as("%s prompt without the rules", style).doesNotContain("King", "K<");
    }
  }

  @Test
  void compactPromptIsShort() {
    String obs = initialObservation(KuhnDeal.parse("JQ"), Seat.FIRST, KuhnOpponents.conservative());
    String prompt = KuhnPrompts.RENDERER.renderPlay(
        new PromptContext(PromptStyle.COMPACT, obs, 0, List.of(), List.of(), null));
    // a few dozen tokens: well under 100 words including the observation
    assertThat(prompt.split("\\s+").length).isLessThan(70);
    String rulesOnly = KuhnPrompts.GAME_TEXT.compactRules() + " " + KuhnPrompts.GAME_TEXT.compactActionFormat();
    assertThat(rulesOnly.split("\\s+").length).isLessThan(40);
  }
}
