package org.magejvm.examples.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Seat;
import org.magejvm.examples.plugin.RpsEnvironment.Move;
import org.magejvm.examples.plugin.RpsEnvironment.Round;
import org.magejvm.examples.plugin.RpsEnvironment.State;
import org.magejvm.spi.StepResult;

class RpsEnvironmentTest {

  private static final RpsOpponent ROCK = RpsOpponent.Builtin.ALWAYS_ROCK;
  private static final RpsOpponent UNIFORM = RpsOpponent.Builtin.UNIFORM;

  static String act(String move) {
    return "I think the opponent likes rock.\n<action>" + move + "</action>";
  }

  private static RpsEnvironment started(long seed, RpsOpponent opponent) {
    RpsEnvironment env = new RpsProvider().create(Map.of());
    env.reset(seed, opponent, Seat.FIRST);
    return env;
  }

  private static List<StepResult> play(RpsEnvironment env, String... moves) {
    List<StepResult> out = new ArrayList<>();
    for (String m : moves) {
      out.add(env.step(act(m)));
    }
    return out;
  }

  @Test
  void eachMoveBeatsExactlyOneOther() {
    assertThat(Move.ROCK.beats(Move.SCISSORS)).isTrue();
    assertThat(Move.SCISSORS.beats(Move.PAPER)).isTrue();
    assertThat(Move.PAPER.beats(Move.ROCK)).isTrue();
    for (Move a : Move.values()) {
      assertThat(a.beats(a)).isFalse();
      assertThat(a.beatenBy().beats(a)).isTrue();
      int beaten = 0;
      for (Move b : Move.values()) {
        beaten += a.beats(b) ? 1 : 0;
        assertThat(a.beats(b) && b.beats(a)).isFalse();
      }
      assertThat(beaten).isEqualTo(1);
    }
    assertThat(new Round(Move.PAPER, Move.ROCK).result()).isEqualTo(1);
    assertThat(new Round(Move.ROCK, Move.PAPER).result()).isEqualTo(-1);
    assertThat(new Round(Move.ROCK, Move.ROCK).result()).isZero();
  }

  @Test
  void aMatchWonOnEveryRoundPaysTheRewardOnlyAtTheEnd() {
    RpsEnvironment env = started(1, ROCK);
    List<StepResult> r = play(env, "paper", "paper", "paper");
    for (int i = 0; i < 2; i++) {
      assertThat(r.get(i).done()).isFalse();
      assertThat(r.get(i).reward()).isZero();
      assertThat(r.get(i).score()).isZero();
      assertThat(r.get(i).actionValid()).isTrue();
      assertThat(r.get(i).action()).isEqualTo("paper");
    }
    StepResult last = r.get(2);
    assertThat(last.done()).isTrue();
    assertThat(last.won()).isTrue();
    assertThat(last.draw()).isFalse();
    assertThat(last.reward()).isEqualTo(10.0);
    assertThat(last.score()).isEqualTo(1.0);
    assertThat(last.observation()).startsWith("The match is over. Final score: you 3, opponent 0. You won the match.");
    assertThat(env.isDone()).isTrue();
  }

  @Test
  void lossesAndDrawsFollowTheRoundCount() {
    StepResult lost = play(started(1, ROCK), "scissors", "scissors", "scissors").get(2);
    assertThat(lost.done()).isTrue();
    assertThat(lost.won()).isFalse();
    assertThat(lost.draw()).isFalse();
    assertThat(lost.reward()).isEqualTo(-10.0);
    assertThat(lost.score()).isEqualTo(-1.0);
    assertThat(lost.observation()).contains("You lost the match.");

    StepResult allTies = play(started(1, ROCK), "rock", "rock", "rock").get(2);
    assertThat(allTies.draw()).isTrue();
    assertThat(allTies.won()).isFalse();
    assertThat(allTies.reward()).isZero();
    assertThat(allTies.score()).isZero();
    assertThat(allTies.observation()).contains("The match is a draw.");

    // win, loss, tie: one round each way is a draw
    StepResult oneEach = play(started(1, ROCK), "paper", "scissors", "rock").get(2);
    assertThat(oneEach.draw()).isTrue();
    assertThat(oneEach.reward()).isZero();

    // two wins and a loss win the match
    StepResult twoToOne = play(started(1, ROCK), "scissors", "paper", "paper").get(2);
    assertThat(twoToOne.won()).isTrue();
    assertThat(twoToOne.observation()).contains("Final score: you 2, opponent 1.");
  }

  @Test
  void observationsStateTheRoundTheScoreAndEveryEarlierRound() {
    RpsEnvironment env = new RpsEnvironment();
    String start = env.reset(3, ROCK, Seat.FIRST);
    assertThat(start).isEqualTo("Round 1 of 3. Score: you 0, opponent 0.\nNo round has been played yet.");
    env.step(act("paper"));
    env.step(act("rock"));
    assertThat(env.observation()).isEqualTo("Round 3 of 3. Score: you 1, opponent 0.\n"
        + "Round 1: you played paper, the opponent played rock (you won the round).\n"
        + "Round 2: you played rock, the opponent played rock (tie).");
    env.step(act("scissors"));
    assertThat(env.observation()).isEqualTo("The match is over. Final score: you 1, opponent 1."
        + " The match is a draw.\n"
        + "Round 1: you played paper, the opponent played rock (you won the round).\n"
        + "Round 2: you played rock, the opponent played rock (tie).\n"
        + "Round 3: you played scissors, the opponent played rock (you lost the round).");
  }

  @Test
  void theAnchorIsTheObservationBeforeTheActionPlusTheOpponent() {
    RpsEnvironment env = started(5, ROCK);
    String before = env.observation();
    assertThat(env.anchor()).isEqualTo(new AnchorKey(before, "always-rock"));
    StepResult r = env.step(act("paper"));
    assertThat(r.anchor()).isEqualTo(new AnchorKey(before, "always-rock"));
    assertThat(env.anchor()).isEqualTo(new AnchorKey(r.observation(), "always-rock"));
    assertThat(r.anchor().state()).isNotEqualTo(r.observation());

    // the same scoreboard against another opponent is another anchor
    RpsEnvironment other = started(5, RpsOpponent.Builtin.CYCLE);
    assertThat(other.anchor().state()).isEqualTo(before);
    assertThat(other.anchor()).isNotEqualTo(new AnchorKey(before, "always-rock"));
  }

  @Test
  void legalActionsAndStateFollowTheMatch() {
    RpsEnvironment env = new RpsEnvironment();
    assertThat(env.legalActions()).isEmpty();
    env.reset(1, ROCK, Seat.FIRST);
    assertThat(env.legalActions()).containsExactly("rock", "paper", "scissors");
    State empty = env.state();
    assertThat(empty.played()).isEmpty();
    assertThat(empty.nextRound()).isEqualTo(1);
    env.step(act("paper"));
    State one = env.state();
    play(env, "scissors", "rock");
    // snapshots do not change afterwards
    assertThat(empty.played()).isEmpty();
    assertThat(one.played()).containsExactly(new Round(Move.PAPER, Move.ROCK));
    State end = env.state();
    assertThat(end.over()).isTrue();
    assertThat(end.agentWins()).isEqualTo(1);
    assertThat(end.opponentWins()).isEqualTo(1);
    assertThat(env.legalActions()).isEmpty();
    assertThatThrownBy(() -> end.played().add(new Round(Move.ROCK, Move.ROCK)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "paper", "<action>lizard</action>", "<action></action>", "<action>paper",
      "<action>rock paper</action>", "<ACTION>rock</ACTION>"})
  void unreadableTextIsANoOp(String response) {
    RpsEnvironment env = started(9, ROCK);
    env.step(act("paper"));
    String before = env.observation();
    State stateBefore = env.state();
    StepResult r = env.step(response);
    assertThat(r.actionValid()).isFalse();
    assertThat(r.reward()).isZero();
    assertThat(r.done()).isFalse();
    assertThat(r.won()).isFalse();
    assertThat(r.score()).isZero();
    assertThat(r.observation()).isEqualTo(before);
    assertThat(r.anchor()).isEqualTo(new AnchorKey(before, "always-rock"));
    assertThat(r.message()).isNotEmpty();
    assertThat(env.observation()).isEqualTo(before);
    assertThat(env.state()).isEqualTo(stateBefore);
    assertThat(env.legalActions()).hasSize(3);
  }

  @Test
  void nullResponseIsANoOpToo() {
    StepResult r = started(9, ROCK).step(null);
    assertThat(r.actionValid()).isFalse();
    assertThat(r.message()).contains("empty");
  }

  @Test
  void anInvalidAnswerDoesNotLetTheOpponentMoveOrDrawRandomNumbers() {
    // Against the uniform opponent every move draws from the generator: if an invalid answer let the opponent move,
    // the later rounds would differ from a match without the invalid answers.
    for (long seed = 0; seed < 20; seed++) {
      RpsEnvironment clean = started(seed, UNIFORM);
      RpsEnvironment noisy = started(seed, UNIFORM);
      for (String m : List.of("rock", "paper", "scissors")) {
        clean.step(act(m));
        assertThat(noisy.step("<action>spock</action>").actionValid()).isFalse();
        assertThat(noisy.step("no tags at all").actionValid()).isFalse();
        noisy.step(act(m));
        assertThat(noisy.observation()).isEqualTo(clean.observation());
      }
    }
  }

  @Test
  void theParserReadsTheFirstActionBlockInAnyCase() {
    assertThat(RpsEnvironment.parseAction("<action> PAPER </action>").action()).isEqualTo(Move.PAPER);
    assertThat(RpsEnvironment.parseAction("<action>Scissors</action>").text()).isEqualTo("scissors");
    assertThat(RpsEnvironment.parseAction("<action>rock</action><action>paper</action>").action())
        .isEqualTo(Move.ROCK);
    var lizard = RpsEnvironment.parseAction("<action>lizard</action>");
    assertThat(lizard.ok()).isFalse();
    assertThat(lizard.text()).isEqualTo("lizard");
    assertThat(lizard.error()).contains("rock, paper or scissors").contains("'lizard'");
    var longText = RpsEnvironment.parseAction("<action>" + "x".repeat(10_000) + "</action>");
    assertThat(longText.ok()).isFalse();
    assertThat(longText.text()).hasSizeLessThanOrEqualTo(40).endsWith("...");
    assertThat(RpsEnvironment.parseAction("rock").error()).contains("no <action>");
  }

  @Test
  void misuseFailsWithClearMessages() {
    RpsEnvironment env = new RpsEnvironment();
    assertThatThrownBy(() -> env.step(act("rock"))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("never reset");
    assertThatThrownBy(env::restart).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(env::observation).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> env.reset(1, null, Seat.FIRST)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs an opponent");
    Opponent alien = () -> "mcts-100";
    assertThatThrownBy(() -> env.reset(1, alien, Seat.FIRST)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'mcts-100'").hasMessageContaining(RpsOpponent.class.getName());

    env.reset(1, ROCK, Seat.FIRST);
    play(env, "rock", "rock", "rock");
    assertThatThrownBy(() -> env.step(act("rock"))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("over").hasMessageContaining("restart()");
  }

  @Test
  void anOpponentThatReturnsNoMoveIsNamed() {
    RpsOpponent broken = new RpsOpponent() {
      @Override
      public String id() {
        return "broken";
      }

      @Override
      public Move play(State state, Random random) {
        return null;
      }
    };
    RpsEnvironment env = started(1, broken);
    assertThatThrownBy(() -> env.step(act("rock"))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'broken'").hasMessageContaining("round 1");
  }

  @Test
  void restartReturnsToTheExactStartingState() {
    RpsEnvironment env = new RpsEnvironment();
    String start = env.reset(11, UNIFORM, Seat.FIRST);
    AnchorKey startAnchor = env.anchor();
    play(env, "rock", "paper");
    assertThat(env.restart()).isEqualTo(start);
    assertThat(env.observation()).isEqualTo(start);
    assertThat(env.anchor()).isEqualTo(startAnchor);
    assertThat(env.state().played()).isEmpty();
    assertThat(env.isDone()).isFalse();
    play(env, "rock", "paper", "scissors");
    assertThat(env.isDone()).isTrue();
    assertThat(env.restart()).isEqualTo(start);
    assertThat(env.isDone()).isFalse();
  }

  @Test
  void theSameSeedAndMovesReproduceAWholeMetaEpisode() {
    List<String> moves = List.of("rock", "paper", "paper", "scissors", "rock", "rock", "paper", "paper", "rock");
    for (RpsOpponent opponent : RpsOpponent.Builtin.values()) {
      assertThat(transcript(21, opponent, moves)).isEqualTo(transcript(21, opponent, moves));
    }
    // the uniform opponent really depends on the seed
    List<List<String>> bySeed = new ArrayList<>();
    for (long seed = 0; seed < 6; seed++) {
      bySeed.add(transcript(seed, UNIFORM, moves));
    }
    assertThat(bySeed.stream().distinct().count()).isGreaterThan(1);
  }

  /** Three episodes of one meta-episode: reset, then restart after each finished match. */
  private static List<String> transcript(long seed, RpsOpponent opponent, List<String> moves) {
    RpsEnvironment env = new RpsEnvironment();
    List<String> out = new ArrayList<>();
    out.add(env.reset(seed, opponent, Seat.FIRST));
    for (String m : moves) {
      if (env.isDone()) {
        out.add(env.restart());
      }
      out.add(env.step(act(m)).observation());
    }
    return out;
  }

  @Test
  void theSeatIsIgnored() {
    List<String> moves = List.of("rock", "paper", "scissors");
    RpsEnvironment first = new RpsEnvironment();
    RpsEnvironment second = new RpsEnvironment();
    assertThat(first.reset(4, UNIFORM, Seat.FIRST)).isEqualTo(second.reset(4, UNIFORM, Seat.SECOND));
    for (String m : moves) {
      assertThat(first.step(act(m))).isEqualTo(second.step(act(m)));
    }
    RpsEnvironment noSeat = new RpsEnvironment();
    assertThat(noSeat.reset(4, UNIFORM, null)).isEqualTo(first.restart());
  }
}
