package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared helpers of the Tic-Tac-Toe tests. */
final class TicTacToeTesting {

  private TicTacToeTesting() {}

  /** @return a response holding the 1-indexed move (row, col) */
  static String act(int row, int col) {
    return "<action>(" + row + ", " + col + ")</action>";
  }

  /** @return a response holding the 0-based cell index as a move */
  static String act(int index) {
    return "<action>" + Cell.of(index).text() + "</action>";
  }

  /** @return an opponent that plays the first empty cell of the given 0-based indices */
  static PreferredPositionOpponent scripted(String id, int... indices) {
    List<Cell> cells = new ArrayList<>();
    for (int i : indices) {
      cells.add(Cell.of(i));
    }
    return new PreferredPositionOpponent(id, id, cells);
  }

  /** An opponent that delegates and counts its moves. */
  static final class Counting implements TicTacToeOpponent {
    final TicTacToeOpponent inner;
    final AtomicInteger calls = new AtomicInteger();

    Counting(TicTacToeOpponent inner) {
      this.inner = inner;
    }

    @Override
    public String id() {
      return inner.id();
    }

    @Override
    public int chooseMove(Board board, Mark mark, Random random) {
      calls.incrementAndGet();
      return inner.chooseMove(board, mark, random);
    }
  }

  /** @return the eight lines as lists of 0-based cell indices */
  static List<int[]> lines() {
    List<int[]> out = new ArrayList<>();
    for (int line : Board.LINES) {
      int[] cells = new int[3];
      int k = 0;
      for (int i = 0; i < 9; i++) {
        if ((line & (1 << i)) != 0) {
          cells[k++] = i;
        }
      }
      out.add(cells);
    }
    return out;
  }

  /** @return the 0-based cells not in the given ones, ascending */
  static int[] complement(int[] cells) {
    int mask = 0;
    for (int c : cells) {
      mask |= 1 << c;
    }
    int[] out = new int[9 - cells.length];
    int k = 0;
    for (int i = 0; i < 9; i++) {
      if ((mask & (1 << i)) == 0) {
        out[k++] = i;
      }
    }
    return out;
  }
}
