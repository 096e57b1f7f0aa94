package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;

class KuhnPromptsTest {

  private static String initialObservation(KuhnDeal deal, Seat seat, KuhnOpponent opp) {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    return env.reset(KuhnPokerEnvironmentTest.seedFor(deal), opp, seat);
  }

  @Test
  void verbosePlayPromptHasRulesCardSeatAndActionFormat() {
    String obs = initialObservation(KuhnDeal.parse("KQ"), Seat.SECOND, KuhnOpponents.cfr());
    assertThat(obs).isEqualTo("You are player 1. Your card: Queen. Betting so far: player 0 bets.");
    String prompt = KuhnPrompts.RENDERER.renderPlay(
        new PromptContext(PromptStyle.VERBOSE, obs, 0, List.of(), List.of(), null));
    assertThat(prompt).contains("Kuhn Poker", "Jack < Queen < King", "ante", "PASS", "BET", "fold", "call",
        "Player 0 acts first", "Your card: Queen", "You are player 1", "<action>BET</action>");
    // the hidden card (King) appears only in the rules' ranking, never as the opponent's card
    assertThat(prompt).doesNotContain("opponent had");
  }

  @Test
  void compactPromptIsShortAndComplete() {
    String obs = initialObservation(KuhnDeal.parse("JQ"), Seat.FIRST, KuhnOpponents.conservative());
    String prompt = KuhnPrompts.RENDERER.renderPlay(
        new PromptContext(PromptStyle.COMPACT, obs, 0, List.of(), List.of(), null));
    assertThat(prompt).contains("Your card: Jack", "You are player 0", "<action>PASS</action>", "BET");
    // a few dozen tokens: well under 100 words including the observation
    assertThat(prompt.split("\\s+").length).isLessThan(70);
    String rulesOnly = KuhnPrompts.GAME_TEXT.compactRules() + " " + KuhnPrompts.GAME_TEXT.compactActionFormat();
    assertThat(rulesOnly.split("\\s+").length).isLessThan(40);
  }

  @Test
  void laterAttemptsShowReflectionsAndTheFrozenStart() {
    String obs = initialObservation(KuhnDeal.parse("QJ"), Seat.FIRST, KuhnOpponents.aggressive());
    PastEpisode first = new PastEpisode(0, List.of(), Outcome.LOST, "Checking the Queen let them bet.");
    List<HistoryStep> steps = List.of(new HistoryStep(1, "PASS", true,
        "You are player 0. Your card: Queen. Betting so far: player 0 checks, player 1 bets."));
    String prompt = KuhnPrompts.RENDERER.renderPlay(
        new PromptContext(PromptStyle.VERBOSE, obs, 1, List.of(first), steps, null));
    assertThat(prompt).contains("Checking the Queen let them bet.", "attempt #2", "Action: PASS",
        "player 1 bets", "Only your own actions are listed");
    String reflect = KuhnPrompts.RENDERER.renderReflect(
        new PromptContext(PromptStyle.VERBOSE, obs, 0, List.of(), steps, Outcome.LOST));
    assertThat(reflect).contains("<remark>", "Your card: Queen");
  }
}
