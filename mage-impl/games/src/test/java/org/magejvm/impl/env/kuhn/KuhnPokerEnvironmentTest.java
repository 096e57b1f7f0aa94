package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Seat;
import org.magejvm.spi.StepResult;

class KuhnPokerEnvironmentTest {

  private static String act(KuhnAction a) {
    return "<action>" + a.text() + "</action>";
  }

  /** An opponent that plays the opponent's part of a fixed betting line. */
  private static KuhnOpponent scripted(String line) {
    return KuhnOpponents.of("line-" + line, "plays " + line,
        (card, history) -> line.charAt(history.length()) == 'b' ? 1 : 0);
  }

  /** The first seed whose deal is the given one. */
  static long seedFor(KuhnDeal deal) {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    for (long seed = 0; seed < 1000; seed++) {
      env.reset(seed, KuhnOpponents.conservative(), Seat.FIRST);
      if (env.deal().equals(deal)) {
        return seed;
      }
    }
    throw new AssertionError("no seed below 1000 deals " + deal);
  }

  /**
   * One hand of the exhaustive tests.
   *
   * @param dealIndex the deal's index in {@link KuhnDeal#ALL}
   * @param deal the deal
   * @param seed a seed that deals it
   * @param line the terminal betting line
   * @param seat the agent's seat
   */
  private record Hand(int dealIndex, KuhnDeal deal, long seed, String line, Seat seat) {
    int agent() {
      return seat == Seat.FIRST ? 0 : 1;
    }

    String where() {
      return line + " on " + deal + " as player " + agent();
    }
  }

  /** Every deal, terminal betting line and seat. */
  private static List<Hand> everyHand() {
    List<Hand> hands = new ArrayList<>();
    for (int d = 0; d < KuhnDeal.ALL.size(); d++) {
      KuhnDeal deal = KuhnDeal.ALL.get(d);
      long seed = seedFor(deal);
      for (String line : KuhnRules.TERMINAL_HISTORIES) {
        for (Seat seat : Seat.values()) {
          hands.add(new Hand(d, deal, seed, line, seat));
        }
      }
    }
    return hands;
  }

  @Test
  void everyDealSeatAndBettingLineEndsWithTheExactPayoff() {
    int hands = 0;
    for (Hand hand : everyHand()) {
      KuhnDeal deal = hand.deal();
      String line = hand.line();
      int agent = hand.agent();
      KuhnPokerEnvironment env = new KuhnPokerEnvironment();
      KuhnOpponent opp = scripted(line);
      String first = env.reset(hand.seed(), opp, hand.seat());
      assertThat(env.deal()).isEqualTo(deal);
      assertThat(first).startsWith("You are player " + agent + ". Your card: "
          + deal.card(agent).displayName() + ".");
      StepResult last = null;
      int agentMoves = 0;
      for (int i = 0; i < line.length(); i++) {
        if (i % 2 != agent) {
          continue;
        }
        assertThat(env.state().history()).isEqualTo(line.substring(0, i));
        assertThat(env.legalActions()).containsExactly("PASS", "BET");
        last = env.step(act(KuhnAction.fromSymbol(line.charAt(i))));
        agentMoves++;
        assertThat(last.actionValid()).isTrue();
        assertThat(last.action()).isEqualTo(line.charAt(i) == 'b' ? "BET" : "PASS");
      }
      assertThat(agentMoves).isPositive();
      int chips = KuhnRulesTest.PAYOFF_PLAYER0.get(line)[hand.dealIndex()] * (agent == 0 ? 1 : -1);
      String where = hand.where();
      assertThat(last.done()).as(where).isTrue();
      assertThat(env.isDone()).isTrue();
      assertThat(last.reward()).as(where).isEqualTo(5.0 * chips);
      assertThat(last.score()).as(where).isEqualTo(chips);
      assertThat(last.won()).as(where).isEqualTo(chips > 0);
      assertThat(last.draw()).isFalse();
      assertThat(env.legalActions()).isEmpty();
      KuhnState state = env.state();
      assertThat(state.history()).isEqualTo(line);
      assertThat(state.agentChips()).isEqualTo(chips);
      KuhnCard theirs = deal.card(1 - agent);
      if (KuhnRules.isShowdown(line)) {
        assertThat(state.opponentCard()).contains(theirs);
        assertThat(last.observation()).as(where).contains("opponent had the " + theirs.displayName());
      } else {
        assertThat(state.opponentCard()).isEmpty();
        assertThat(last.observation()).as(where).doesNotContain(theirs.displayName());
      }
      assertThat(last.observation()).contains(chips > 0 ? "you win " : "you lose ")
          .contains(Math.abs(chips) == 1 ? "1 chip." : "2 chips.");
      hands++;
    }
    assertThat(hands).isEqualTo(6 * 5 * 2);
  }

  @Test
  void winLossRewardIsFivePerWonOrLostHandWhateverTheStakeAndKeepsChipsAsTheScore() {
    int twoChipHands = 0;
    for (Hand hand : everyHand()) {
      String line = hand.line();
      KuhnPokerEnvironment chips = new KuhnPokerEnvironment(KuhnPokerEnvironment.RewardMode.CHIPS);
      KuhnPokerEnvironment winLoss = new KuhnPokerEnvironment(KuhnPokerEnvironment.RewardMode.WIN_LOSS);
      chips.reset(hand.seed(), scripted(line), hand.seat());
      winLoss.reset(hand.seed(), scripted(line), hand.seat());
      StepResult a = null;
      StepResult b = null;
      for (int i = hand.agent(); i < line.length(); i += 2) {
        a = chips.step(act(KuhnAction.fromSymbol(line.charAt(i))));
        b = winLoss.step(act(KuhnAction.fromSymbol(line.charAt(i))));
        assertThat(b.observation()).isEqualTo(a.observation());
      }
      if (a == null) {
        continue;
      }
      String where = hand.where();
      assertThat(b.done()).as(where).isTrue();
      assertThat(b.score()).as(where).isEqualTo(a.score());
      assertThat(b.won()).as(where).isEqualTo(a.won());
      assertThat(b.reward()).as(where).isEqualTo(a.won() ? 5.0 : -5.0);
      if (Math.abs(a.score()) == 2) {
        twoChipHands++;
        assertThat(a.reward()).as(where).isEqualTo(10.0 * Math.signum(a.score()));
      }
    }
    assertThat(twoChipHands).isPositive();
  }

  @Test
  void observationsNeverShowTheOpponentsCardBeforeTheEnd() {
    for (KuhnDeal deal : KuhnDeal.ALL) {
      long seed = seedFor(deal);
      for (Seat seat : Seat.values()) {
        for (KuhnOpponent opp : KuhnOpponents.all()) {
          KuhnPokerEnvironment env = new KuhnPokerEnvironment();
          String obs = env.reset(seed, opp, seat);
          KuhnCard theirs = deal.card(seat == Seat.FIRST ? 1 : 0);
          while (!env.isDone()) {
            assertThat(obs).doesNotContain(theirs.displayName());
            assertThat(env.state().opponentCard()).isEmpty();
            obs = env.step(act(KuhnAction.PASS)).observation();
          }
        }
      }
    }
  }

  @Test
  void invalidActionIsANoOpAndTheOpponentDoesNotMove() {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    String obs = env.reset(3, KuhnOpponents.aggressive(), Seat.SECOND);
    assertThat(env.state().history()).isEqualTo("b"); // the aggressive player 0 always opens with a bet
    assertThat(obs).endsWith("Betting so far: player 0 bets.");
    for (String bad : List.of("<action>bet</action>", "BET", "", "<action>FOLD</action>")) {
      StepResult r = env.step(bad);
      assertThat(r.actionValid()).isFalse();
      assertThat(r.reward()).isZero();
      assertThat(r.done()).isFalse();
      assertThat(r.score()).isZero();
      assertThat(r.observation()).isEqualTo(obs);
      assertThat(r.anchor()).isEqualTo(new AnchorKey(obs, "aggressive"));
      assertThat(r.message()).isNotEmpty();
      assertThat(env.state().history()).isEqualTo("b");
    }
    assertThat(env.step("<action>bet</action>").action()).isEqualTo("bet");
    assertThat(env.step(null).actionValid()).isFalse();
    StepResult ok = env.step(act(KuhnAction.PASS));
    assertThat(ok.actionValid()).isTrue();
    assertThat(ok.done()).isTrue();
    assertThat(ok.reward()).isEqualTo(-5.0);
    assertThat(ok.observation()).contains("you folded; you lose 1 chip.");
  }

  @Test
  void theOpponentRepliesInTheSameStepAndTheAnchorIsTheStateBefore() {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    KuhnDeal deal = KuhnDeal.parse("QK"); // agent Queen as player 0, conservative King bets after a check
    String obs = env.reset(seedFor(deal), KuhnOpponents.conservative(), Seat.FIRST);
    assertThat(obs).isEqualTo("You are player 0. Your card: Queen. Betting so far: nothing yet.");
    assertThat(env.anchor()).isEqualTo(new AnchorKey(obs, "conservative"));
    StepResult r = env.step(act(KuhnAction.PASS));
    assertThat(r.anchor()).isEqualTo(new AnchorKey(obs, "conservative"));
    assertThat(r.done()).isFalse();
    assertThat(r.reward()).isZero();
    assertThat(r.score()).isZero();
    assertThat(r.observation())
        .isEqualTo("You are player 0. Your card: Queen. Betting so far: player 0 checks, player 1 bets.");
    assertThat(env.observation()).isEqualTo(r.observation());
    StepResult end = env.step(act(KuhnAction.BET));
    assertThat(end.anchor().state()).isEqualTo(r.observation());
    assertThat(end.observation()).isEqualTo("You are player 0. Your card: Queen. Betting so far: player 0 checks,"
        + " player 1 bets, player 0 calls. Result: showdown, the opponent had the King; you lose 2 chips.");
    assertThat(end.reward()).isEqualTo(-10.0);
    assertThatThrownBy(() -> env.step(act(KuhnAction.BET))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("over");
  }

  @Test
  void restartKeepsTheDealAndTheOpeningInBothSeats() {
    for (Seat seat : Seat.values()) {
      for (long seed = 0; seed < 40; seed++) {
        KuhnPokerEnvironment env = new KuhnPokerEnvironment();
        String initial = env.reset(seed, KuhnOpponents.cfrMixed(), seat);
        KuhnState start = env.state();
        KuhnDeal deal = env.deal();
        for (int episode = 0; episode < 4; episode++) {
          while (!env.isDone()) {
            env.step(act(episode % 2 == 0 ? KuhnAction.BET : KuhnAction.PASS));
          }
          assertThat(env.restart()).isEqualTo(initial);
          assertThat(env.state()).isEqualTo(start);
          assertThat(env.deal()).isEqualTo(deal);
          assertThat(env.legalActions()).containsExactly("PASS", "BET");
        }
      }
    }
  }

  @Test
  void theSameSeedReproducesTheWholeMetaEpisodeAndSeedsCoverEveryDeal() {
    Set<KuhnDeal> deals = new HashSet<>();
    Set<String> openings = new HashSet<>();
    for (long seed = 0; seed < 200; seed++) {
      List<String> a = play(seed);
      assertThat(play(seed)).isEqualTo(a);
      KuhnPokerEnvironment env = new KuhnPokerEnvironment();
      env.reset(seed, KuhnOpponents.cfrMixed(), Seat.SECOND);
      deals.add(env.deal());
      openings.add(env.deal().player0().letter() + env.state().history());
    }
    assertThat(deals).containsExactlyInAnyOrderElementsOf(KuhnDeal.ALL);
    // cfr-mixed bets the Jack with about 0.19 and the King with about 0.58: both openings occur
    assertThat(openings).contains("Jb", "Jp", "Kb", "Kp");
  }

  private static List<String> play(long seed) {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    List<String> log = new ArrayList<>();
    log.add(env.reset(seed, KuhnOpponents.cfrMixed(), Seat.SECOND));
    for (int episode = 0; episode < 3; episode++) {
      while (!env.isDone()) {
        log.add(env.step(act(KuhnAction.BET)).observation());
      }
      log.add(env.restart());
    }
    return log;
  }

  @Test
  void misuseFailsWithClearMessages() {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    assertThat(env.id()).isEqualTo("mage-kuhn-poker");
    assertThat(env.legalActions()).isEmpty();
    assertThatThrownBy(env::restart).isInstanceOf(IllegalStateException.class).hasMessageContaining("reset");
    assertThatThrownBy(() -> env.step("<action>BET</action>")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(env::state).isInstanceOf(IllegalStateException.class);
    Opponent foreign = () -> "mcts-100";
    assertThatThrownBy(() -> env.reset(1, foreign, Seat.FIRST)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mcts-100").hasMessageContaining("KuhnOpponent");
    assertThatThrownBy(() -> env.reset(1, null, Seat.FIRST)).hasMessageContaining("opponent");
    assertThatThrownBy(() -> env.reset(1, KuhnOpponents.cfr(), null)).hasMessageContaining("seat");
    assertThat(env.promptRenderer()).isSameAs(KuhnPrompts.RENDERER);
    KuhnOpponent broken = KuhnOpponents.of("broken", "", (card, history) -> 1.5);
    assertThatThrownBy(() -> env.reset(1, broken, Seat.SECOND)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("broken").hasMessageContaining("1.5");
    assertThatThrownBy(() -> KuhnOpponents.cfr().act(KuhnCard.KING, 1, "", new Random(1)))
        .hasMessageContaining("player 0");
    assertThatThrownBy(() -> KuhnOpponents.byId("mcts")).hasMessageContaining("'mcts'")
        .hasMessageContaining("cfr-mixed");
  }
}
