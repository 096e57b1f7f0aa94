package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.spi.Environment;
import org.magejvm.spi.StepResult;

class TicTacToeOpponentsTest {

  /** Game results from the agent's view. */
  private record Tally(int won, int drawn, int lost) {}

  /** Plays whole games of a scripted policy (as X) against an opponent, alternating seats. */
  private static Tally play(LanguagePolicy policy, TicTacToeOpponent opp, int games, long seed0) {
    TicTacToeProvider provider = new TicTacToeProvider();
    Environment env = provider.create(Map.of());
    int won = 0;
    int drawn = 0;
    int lost = 0;
    for (int g = 0; g < games; g++) {
      env.reset(seed0 + g, opp, g % 2 == 0 ? Seat.FIRST : Seat.SECOND);
      StepResult r = null;
      int turn = 0;
      while (!env.isDone()) {
        PolicyRequest req = new PolicyRequest(env.observation(), Phase.PLAY, "w" + g, 0, turn++,
            env.legalActions(), env.state(), List.of());
        Generation gen = policy.generate(List.of(req), SamplingConfig.training(16)).get(0);
        r = env.step(gen.text());
        assertThat(r.actionValid()).isTrue();
      }
      if (r.won()) {
        won++;
      } else if (r.draw()) {
        drawn++;
      } else {
        lost++;
      }
    }
    return new Tally(won, drawn, lost);
  }

  @Test
  void mcts1000NeverLosesToRandomIn200Games() {
    LanguagePolicy random = new TicTacToeProvider().scriptedPolicy("random", 17);
    Tally t = play(random, new MctsOpponent(1000), 200, 1000);
    assertThat(t.won()).as("games the random player won against mcts-1000: %s", t).isZero();
    assertThat(t.lost()).isGreaterThan(150);
  }

  @Test
  void mcts100WinsMostGamesAgainstRandom() {
    LanguagePolicy random = new TicTacToeProvider().scriptedPolicy("random", 23);
    Tally t = play(random, new MctsOpponent(100), 200, 5000);
    assertThat(t.lost()).as("%s", t).isGreaterThan(140);
    assertThat(t.won()).as("%s", t).isLessThan(20);
  }

  @Test
  void minimaxPolicyNeverLosesToMcts100AndBeatsRandom() {
    TicTacToeProvider provider = new TicTacToeProvider();
    Tally vsMcts = play(provider.scriptedPolicy("minimax", 3), new MctsOpponent(100), 60, 300);
    assertThat(vsMcts.lost()).as("%s", vsMcts).isZero();
    Tally vsRandom = play(provider.scriptedPolicy("minimax", 4), new RandomOpponent(), 100, 400);
    assertThat(vsRandom.lost()).isZero();
    assertThat(vsRandom.won()).as("%s", vsRandom).isGreaterThan(75);
  }

  @Test
  void preferredPlayersFollowTheirListsAsTheSpecificationWritesThem() {
    // the reference's lists, 1-indexed (row, col)
    Map<String, int[][]> lists = Map.of(
        "preferred-center-first", new int[][] {{2, 2}, {1, 1}, {1, 3}, {3, 1}, {3, 3}, {1, 2}, {2, 1}, {2, 3},
            {3, 2}},
        "preferred-corners-first", new int[][] {{1, 1}, {1, 3}, {3, 1}, {3, 3}, {2, 2}, {1, 2}, {2, 1}, {2, 3},
            {3, 2}},
        "preferred-edges-first", new int[][] {{1, 2}, {2, 1}, {2, 3}, {3, 2}, {2, 2}, {1, 1}, {1, 3}, {3, 1},
            {3, 3}},
        "preferred-main-diagonal", new int[][] {{1, 1}, {2, 2}, {3, 3}, {1, 3}, {3, 1}, {1, 2}, {2, 1}, {2, 3},
            {3, 2}},
        "preferred-anti-diagonal", new int[][] {{1, 3}, {2, 2}, {3, 1}, {1, 1}, {3, 3}, {1, 2}, {2, 1}, {2, 3},
            {3, 2}},
        "preferred-reverse", new int[][] {{3, 3}, {3, 1}, {1, 3}, {1, 1}, {2, 2}, {3, 2}, {2, 3}, {2, 1},
            {1, 2}});
    List<PreferredPositionOpponent> builtIns = PreferredPositionOpponent.builtIns();
    assertThat(builtIns).extracting(PreferredPositionOpponent::id)
        .containsExactlyInAnyOrderElementsOf(lists.keySet());
    Random boards = new Random(99);
    for (PreferredPositionOpponent p : builtIns) {
      int[][] spec = lists.get(p.id());
      List<Cell> expected = new ArrayList<>();
      for (int[] rc : spec) {
        expected.add(new Cell(rc[0] - 1, rc[1] - 1));
      }
      assertThat(p.preferences()).isEqualTo(expected);
      for (int trial = 0; trial < 300; trial++) {
        Board b = randomRunningBoard(boards);
        Cell want = expected.stream().filter(c -> b.at(c) == Mark.EMPTY).findFirst().orElseThrow();
        assertThat(p.chooseMove(b, Mark.O, new Random(trial))).as("%s on\n%s", p.id(), b).isEqualTo(want.index());
      }
    }
  }

  @Test
  void aPartialPreferenceListFallsBackToRandomEmptyCells() {
    PreferredPositionOpponent p = TicTacToeTesting.scripted("only-center", 4);
    Board b = Board.EMPTY.place(4, Mark.X);
    int[] counts = new int[9];
    Random r = new Random(5);
    for (int i = 0; i < 800; i++) {
      counts[p.chooseMove(b, Mark.O, r)]++;
    }
    assertThat(counts[4]).isZero();
    for (int c = 0; c < 9; c++) {
      if (c != 4) {
        assertThat(counts[c]).as("cell %d", c).isBetween(60, 140);
      }
    }
    assertThatThrownBy(() -> TicTacToeTesting.scripted("dup", 1, 1)).hasMessageContaining("twice");
  }

  @Test
  void randomOpponentIsUniformOverEmptyCellsAndSeeded() {
    Board b = Board.parse("X O X\n. O .\n. X .");
    RandomOpponent opp = new RandomOpponent();
    int[] counts = new int[9];
    Random r = new Random(8);
    for (int i = 0; i < 4000; i++) {
      counts[opp.chooseMove(b, Mark.O, r)]++;
    }
    for (int c = 0; c < 9; c++) {
      if (b.isEmpty(c)) {
        assertThat(counts[c]).as("cell %d", c).isBetween(850, 1150);
      } else {
        assertThat(counts[c]).isZero();
      }
    }
    List<Integer> a = new ArrayList<>();
    List<Integer> a2 = new ArrayList<>();
    Random r1 = new Random(3);
    Random r2 = new Random(3);
    for (int i = 0; i < 50; i++) {
      a.add(opp.chooseMove(Board.EMPTY, Mark.O, r1));
      a2.add(opp.chooseMove(Board.EMPTY, Mark.O, r2));
    }
    assertThat(a).isEqualTo(a2);
  }

  @Test
  void opponentsRejectFinishedBoards() {
    Board won = Board.parse("X X X\nO O .\n. . .");
    for (TicTacToeOpponent o : List.of(new RandomOpponent(), new MinimaxOpponent(), new MctsOpponent(10),
        PreferredPositionOpponent.centerFirst())) {
      assertThatThrownBy(() -> o.chooseMove(won, Mark.O, new Random(1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("finished board")
          .hasMessageContaining(o.id());
      assertThatThrownBy(() -> o.chooseMove(Board.EMPTY, Mark.EMPTY, new Random(1)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void opponentsAreFoundById() {
    assertThat(TicTacToeOpponents.byId("mcts-100")).isInstanceOf(MctsOpponent.class);
    assertThat(((MctsOpponent) TicTacToeOpponents.byId("mcts-2500")).simulations()).isEqualTo(2500);
    assertThat(TicTacToeOpponents.byId("minimax").id()).isEqualTo("minimax");
    assertThat(TicTacToeOpponents.byId("random").id()).isEqualTo("random");
    for (PreferredPositionOpponent p : PreferredPositionOpponent.builtIns()) {
      assertThat(TicTacToeOpponents.byId(p.id()).id()).isEqualTo(p.id());
    }
    for (String bad : new String[] {"mcts-0", "mcts-", "mcts-01", "MCTS-100", "preferred", "cfr"}) {
      assertThatThrownBy(() -> TicTacToeOpponents.byId(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad + "'").hasMessageContaining("preferred-center-first");
    }
    assertThatThrownBy(() -> new MctsOpponent(0)).hasMessageContaining("at least 1");
  }

  /** A board with 0 to 8 marks in alternating order that is not yet decided. */
  static Board randomRunningBoard(Random random) {
    while (true) {
      Board b = Board.EMPTY;
      int marks = random.nextInt(9);
      Mark m = random.nextBoolean() ? Mark.X : Mark.O;
      for (int i = 0; i < marks; i++) {
        List<Integer> empty = b.emptyCells();
        b = b.place(empty.get(random.nextInt(empty.size())), m);
        m = m.other();
      }
      if (!b.isOver()) {
        return b;
      }
    }
  }
}
