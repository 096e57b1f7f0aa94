package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.magejvm.impl.env.tictactoe.TicTacToeTesting.act;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.StepResult;

class TicTacToeEnvironmentTest {

  @Test
  void agentWinsOnEveryLine() {
    for (int[] line : TicTacToeTesting.lines()) {
      TicTacToeEnvironment env = new TicTacToeEnvironment();
      env.reset(1, TicTacToeTesting.scripted("away", TicTacToeTesting.complement(line)), Seat.FIRST);
      StepResult first = env.step(act(line[0]));
      StepResult second = env.step(act(line[1]));
      StepResult third = env.step(act(line[2]));
      assertThat(first.reward()).isZero();
      assertThat(first.done()).isFalse();
      assertThat(second.done()).isFalse();
      assertThat(third.reward()).as("line %s", java.util.Arrays.toString(line)).isEqualTo(10.0);
      assertThat(third.done()).isTrue();
      assertThat(third.won()).isTrue();
      assertThat(third.draw()).isFalse();
      assertThat(third.score()).isEqualTo(1.0);
      assertThat(Board.parse(third.observation()).count(Mark.O)).isEqualTo(2);
      assertThat(env.state().winner()).isEqualTo(Mark.X);
      assertThat(env.state().outcome()).contains(Outcome.WON);
      assertThat(env.isDone()).isTrue();
    }
  }

  @Test
  void opponentWinsOnEveryLineFromBothSeats() {
    for (Seat seat : Seat.values()) {
      for (int[] line : TicTacToeTesting.lines()) {
        int[] agentCells = nonLineTriple(TicTacToeTesting.complement(line));
        TicTacToeEnvironment env = new TicTacToeEnvironment();
        env.reset(2, TicTacToeTesting.scripted("liner", line), seat);
        int steps = seat == Seat.FIRST ? 3 : 2;
        StepResult last = null;
        for (int i = 0; i < steps; i++) {
          last = env.step(act(agentCells[i]));
          if (i < steps - 1) {
            assertThat(last.done()).isFalse();
            assertThat(last.reward()).isZero();
            assertThat(last.score()).isZero();
          }
        }
        assertThat(last.reward()).isEqualTo(-10.0);
        assertThat(last.done()).isTrue();
        assertThat(last.won()).isFalse();
        assertThat(last.draw()).isFalse();
        assertThat(last.actionValid()).isTrue();
        assertThat(last.score()).isEqualTo(-1.0);
        assertThat(env.state().outcome()).contains(Outcome.LOST);
        assertThat(Board.parse(last.observation()).winner()).isEqualTo(Mark.O);
      }
    }
  }

  /** The first three cells (in combination order) that do not form a line. */
  private static int[] nonLineTriple(int[] cells) {
    for (int a = 0; a < cells.length; a++) {
      for (int b = a + 1; b < cells.length; b++) {
        for (int c = b + 1; c < cells.length; c++) {
          int mask = (1 << cells[a]) | (1 << cells[b]) | (1 << cells[c]);
          if (!Board.hasLine(mask)) {
            return new int[] {cells[a], cells[b], cells[c]};
          }
        }
      }
    }
    throw new AssertionError("no triple");
  }

  @Test
  void drawOnTheAgentsLastMove() {
    // final board  X O X / X O O / O X X
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(3, TicTacToeTesting.scripted("drawer", 4, 1, 6, 5), Seat.FIRST);
    int[][] moves = {{1, 1}, {1, 3}, {2, 1}, {3, 2}};
    for (int[] m : moves) {
      StepResult r = env.step(act(m[0], m[1]));
      assertThat(r.done()).isFalse();
    }
    StepResult last = env.step(act(3, 3));
    assertThat(last.done()).isTrue();
    assertThat(last.draw()).isTrue();
    assertThat(last.won()).isFalse();
    assertThat(last.reward()).isZero();
    assertThat(last.score()).isZero();
    assertThat(last.observation()).isEqualTo("X O X\nX O O\nO X X");
    assertThat(env.state().outcome()).contains(Outcome.DRAW);
    assertThat(env.legalActions()).isEmpty();
  }

  @Test
  void drawOnTheOpponentsLastMove() {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    String start = env.reset(4, TicTacToeTesting.scripted("drawer", 0, 2, 3, 7, 8), Seat.SECOND);
    assertThat(start).isEqualTo("O . .\n. . .\n. . .");
    int[][] moves = {{2, 2}, {1, 2}, {3, 1}};
    for (int[] m : moves) {
      assertThat(env.step(act(m[0], m[1])).done()).isFalse();
    }
    StepResult last = env.step(act(2, 3));
    assertThat(last.observation()).isEqualTo("O X O\nO X X\nX O O");
    assertThat(last.done()).isTrue();
    assertThat(last.draw()).isTrue();
    assertThat(last.reward()).isZero();
    assertThat(last.score()).isZero();
  }

  @Test
  void invalidMovesAreNoOpsAndTheOpponentDoesNotMove() {
    TicTacToeTesting.Counting opp = new TicTacToeTesting.Counting(TicTacToeTesting.scripted("corner", 8, 6));
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(5, opp, Seat.FIRST);
    StepResult ok = env.step(act(1, 1));
    assertThat(ok.observation()).isEqualTo("X . .\n. . .\n. . O");
    assertThat(opp.calls.get()).isEqualTo(1);
    String board = ok.observation();

    List<StepResult> invalid = new ArrayList<>();
    invalid.add(env.step(act(1, 1)));
    invalid.add(env.step(act(3, 3)));
    invalid.add(env.step(act(4, 1)));
    invalid.add(env.step(act(1, 0)));
    invalid.add(env.step("I move to the center"));
    invalid.add(env.step("<action>center</action>"));
    for (StepResult r : invalid) {
      assertThat(r.actionValid()).isFalse();
      assertThat(r.reward()).isZero();
      assertThat(r.done()).isFalse();
      assertThat(r.won()).isFalse();
      assertThat(r.score()).isZero();
      assertThat(r.observation()).isEqualTo(board);
      assertThat(r.anchor()).isEqualTo(new AnchorKey(board, "corner"));
      assertThat(r.message()).isNotEmpty();
    }
    assertThat(invalid.get(0).action()).isEqualTo("(1, 1)");
    assertThat(invalid.get(0).message()).contains("(1, 1)").contains("taken by X");
    assertThat(invalid.get(1).message()).contains("(3, 3)").contains("taken by O");
    assertThat(invalid.get(2).action()).isEqualTo("(4, 1)");
    assertThat(invalid.get(2).message()).contains("row").contains("1..3");
    assertThat(invalid.get(3).message()).contains("column");
    assertThat(invalid.get(4).action()).isEmpty();
    assertThat(invalid.get(4).message()).contains("<action>");
    assertThat(invalid.get(5).action()).isEmpty();
    assertThat(opp.calls.get()).isEqualTo(1);
    assertThat(env.observation()).isEqualTo(board);
    assertThat(env.isDone()).isFalse();

    StepResult next = env.step(act(1, 2));
    assertThat(next.actionValid()).isTrue();
    assertThat(next.action()).isEqualTo("(1, 2)");
    assertThat(opp.calls.get()).isEqualTo(2);
    assertThat(next.observation()).isEqualTo("X X .\n. . .\nO . O");
  }

  @Test
  void stepOutsideAnEpisodeFails() {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    assertThatThrownBy(() -> env.step(act(1, 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("before reset()");
    assertThatThrownBy(env::restart).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(env::observation).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(env::state).isInstanceOf(IllegalStateException.class);
    assertThat(env.isDone()).isFalse();

    env.reset(6, TicTacToeTesting.scripted("away", 3, 4, 5, 6, 7, 8), Seat.FIRST);
    env.step(act(1, 1));
    env.step(act(1, 2));
    assertThat(env.step(act(1, 3)).won()).isTrue();
    assertThatThrownBy(() -> env.step(act(3, 3)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already over").hasMessageContaining("you won").hasMessageContaining("restart()");
    assertThat(env.restart()).isEqualTo(". . .\n. . .\n. . .");
    assertThat(env.step(act(3, 3)).actionValid()).isTrue();
  }

  @Test
  void anchorsHoldTheBoardBeforeTheActionAndTheOpponentId() {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(7, new RandomOpponent(), Seat.SECOND);
    for (int i = 0; i < 10 && !env.isDone(); i++) {
      String before = env.observation();
      assertThat(env.anchor()).isEqualTo(new AnchorKey(before, "random"));
      String move = env.legalActions().get(0);
      StepResult r = env.step("<action>" + move + "</action>");
      assertThat(r.anchor()).isEqualTo(new AnchorKey(before, "random"));
      assertThat(r.action()).isEqualTo(move);
    }
    assertThat(env.isDone()).isTrue();
  }

  @Test
  void legalActionsAndStateDescribeTheBoard() {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(8, TicTacToeTesting.scripted("c", 4), Seat.SECOND);
    assertThat(env.legalActions()).containsExactly(
        "(1, 1)", "(1, 2)", "(1, 3)", "(2, 1)", "(2, 3)", "(3, 1)", "(3, 2)", "(3, 3)");
    TicTacToeState s = env.state();
    assertThat(s.board().render()).isEqualTo(". . .\n. O .\n. . .");
    assertThat(s.agentMark()).isEqualTo(Mark.X);
    assertThat(s.opponentMark()).isEqualTo(Mark.O);
    assertThat(s.toMove()).isEqualTo(Mark.X);
    assertThat(s.done()).isFalse();
    assertThat(s.outcome()).isEmpty();
    assertThat(s.seat()).isEqualTo(Seat.SECOND);
    assertThat(s.opponentId()).isEqualTo("c");
    assertThat(s.legalCells()).hasSize(8).doesNotContain(new Cell(1, 1));
    env.step(act(1, 1));
    assertThat(s.board().render()).as("snapshots do not change").isEqualTo(". . .\n. O .\n. . .");
    assertThat(env.state().board().render()).startsWith("X");
  }

  @Test
  void rejectsOpponentsOfOtherGames() {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    Opponent poker = () -> "cfr";
    assertThatThrownBy(() -> env.reset(1, poker, Seat.FIRST))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'cfr'").hasMessageContaining("Tic-Tac-Toe")
        .hasMessageContaining("TicTacToeOpponent");
    assertThatThrownBy(() -> env.reset(1, null, Seat.FIRST))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs an opponent");
    assertThatThrownBy(() -> env.reset(1, new RandomOpponent(), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seat");
  }

  @Test
  void anOpponentPlayingATakenCellIsReported() {
    TicTacToeOpponent cheat = new TicTacToeOpponent() {
      @Override
      public String id() {
        return "cheat";
      }

      @Override
      public int chooseMove(Board board, Mark mark, Random random) {
        return 0;
      }
    };
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(1, cheat, Seat.FIRST);
    assertThatThrownBy(() -> env.step(act(1, 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'cheat'").hasMessageContaining("cell index 0");
  }

  @Test
  void boardParsesWhatItRenders() {
    Board b = Board.EMPTY.place(0, Mark.X).place(4, Mark.O).place(8, Mark.X);
    assertThat(b.render()).isEqualTo("X . .\n. O .\n. . X");
    assertThat(Board.parse(b.render())).isEqualTo(b);
    assertThat(Board.parse("XO.\n...\n..X").at(new Cell(0, 1))).isEqualTo(Mark.O);
    assertThatThrownBy(() -> Board.parse(". . .\n. . .")).hasMessageContaining("3 rows");
    assertThatThrownBy(() -> Board.parse(". . .\n. Q .\n. . .")).hasMessageContaining("'Q'");
    assertThatThrownBy(() -> b.place(4, Mark.X)).hasMessageContaining("(2, 2)");
    assertThatThrownBy(() -> b.place(9, Mark.X)).hasMessageContaining("0..8");
  }
}
