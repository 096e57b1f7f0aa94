package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Seat;
import org.magejvm.spi.StepResult;

class TicTacToeMinimaxTest {

  @Test
  void theEmptyBoardIsADraw() {
    assertThat(TicTacToeMinimax.value(Board.EMPTY, Mark.X)).isZero();
    assertThat(TicTacToeMinimax.bestMoves(Board.EMPTY, Mark.X)).hasSize(9); // every opening holds the draw
    // after a corner opening only the center holds the draw for O
    assertThat(TicTacToeMinimax.bestMoves(Board.parse("X . .\n. . .\n. . ."), Mark.O)).containsExactly(4);
  }

  @Test
  void prefersTheFastestWin() {
    // X can win at once at (1, 3); (3, 3) would also win, but only later
    Board b = Board.parse("X X .\nO O .\n. . .");
    assertThat(TicTacToeMinimax.bestMoves(b, Mark.X)).containsExactly(2);
    assertThat(TicTacToeMinimax.value(b, Mark.X)).isEqualTo(1 + 4);
  }

  @Test
  void prefersTheSlowestLoss() {
    // O threatens (1, 1); every X move loses, but blocking loses two plies later than anything else
    Board b = Board.parse(". . .\nO . .\nO X X");
    assertThat(TicTacToeMinimax.value(b, Mark.X)).isNegative();
    assertThat(TicTacToeMinimax.bestMoves(b, Mark.X)).containsExactly(0);
    assertThat(TicTacToeMinimax.moveValue(b, Mark.X, 0)).isGreaterThan(TicTacToeMinimax.moveValue(b, Mark.X, 1));
  }

  @Test
  void neverLosesAgainstAnyMoveSequenceInEitherOrder() {
    for (Mark perfect : new Mark[] {Mark.X, Mark.O}) {
      int[] leaves = new int[1];
      explore(Board.EMPTY, Mark.X, perfect, leaves);
      assertThat(leaves[0]).as("finished games explored with minimax as %s", perfect).isGreaterThan(100);
    }
  }

  /** Branches over every optimal move of the perfect player and every move of the other one. */
  private static void explore(Board b, Mark toMove, Mark perfect, int[] leaves) {
    Mark w = b.winner();
    if (w != Mark.EMPTY || b.isFull()) {
      assertThat(w).as("minimax (%s) lost on\n%s", perfect, b).isNotEqualTo(perfect.other());
      leaves[0]++;
      return;
    }
    List<Integer> moves = toMove == perfect ? TicTacToeMinimax.bestMoves(b, toMove) : b.emptyCells();
    for (int m : moves) {
      explore(b.place(m, toMove), toMove.other(), perfect, leaves);
    }
  }

  @Test
  void theMinimaxOpponentNeverLosesInTheEnvironmentAgainstAnyAgentLine() {
    for (Seat seat : Seat.values()) {
      int[] games = new int[1];
      dfs(seat, new ArrayList<>(), games);
      assertThat(games[0]).as("games explored, agent %s", seat).isGreaterThan(50);
    }
  }

  /** Replays the agent's moves from the same seed, then tries every legal continuation. */
  private static void dfs(Seat seat, List<String> moves, int[] games) {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(2024, new MinimaxOpponent(), seat);
    StepResult last = null;
    for (String m : moves) {
      last = env.step("<action>" + m + "</action>");
    }
    if (env.isDone()) {
      assertThat(last.won()).as("agent beat minimax with %s (%s)", moves, seat).isFalse();
      games[0]++;
      return;
    }
    for (String a : env.legalActions()) {
      List<String> next = new ArrayList<>(moves);
      next.add(a);
      dfs(seat, next, games);
    }
  }

  @Test
  void theOpponentBreaksTiesWithTheGivenGenerator() {
    MinimaxOpponent m = new MinimaxOpponent();
    boolean[] seen = new boolean[9];
    Random r = new Random(1);
    for (int i = 0; i < 200; i++) {
      int move = m.chooseMove(Board.EMPTY, Mark.O, r);
      seen[move] = true;
    }
    for (boolean s : seen) {
      assertThat(s).isTrue();
    }
    Board b = Board.parse("X . .\n. . .\n. . .");
    for (int i = 0; i < 20; i++) {
      assertThat(m.chooseMove(b, Mark.O, r)).isEqualTo(4);
    }
  }
}
