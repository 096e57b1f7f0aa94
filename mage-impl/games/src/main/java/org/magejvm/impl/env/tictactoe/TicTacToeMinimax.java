package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * Exact game values of Tic-Tac-Toe positions by negamax over the whole game tree, memoised per position (at most
 * 2 x 3^9 entries, filled on first use).
 *
 * <p>Values are from the view of the player to move and reward speed: a win scores {@code 1 + e}, where {@code e}
 * is the number of cells still empty after the winning move, a loss scores the negative of the winner's score and a
 * draw 0. So among winning moves the fastest win has the highest value, and among losing moves the slowest loss.
 * Thread-safe: concurrent callers at worst compute the same entry twice.
 */
@Api(status = Api.Status.INTERNAL)
public final class TicTacToeMinimax {

  private static final int[] POW3 = {1, 3, 9, 27, 81, 243, 729, 2187, 6561};
  private static final int POSITIONS = 19683;
  /** value + OFFSET per (position, side to move); 0 means not computed yet. */
  private static final byte[] MEMO = new byte[2 * POSITIONS];
  private static final int OFFSET = 64;

  private TicTacToeMinimax() {}

  /**
   * The value of a position for the player to move.
   *
   * @param board a board whose game is not over
   * @param toMove the mark to move
   * @return the value, see the class comment
   * @throws IllegalArgumentException if the game on the board is over or toMove is EMPTY
   */
  public static int value(Board board, Mark toMove) {
    check(board, toMove);
    return value(board.xBits(), board.oBits(), toMove == Mark.X ? 0 : 1);
  }

  /**
   * The value of one move for the player making it.
   *
   * @param board a board whose game is not over
   * @param mover the mark to move
   * @param cell an empty cell index
   * @return the value after the move, from the mover's view
   * @throws IllegalArgumentException if the game is over, the mark is EMPTY or the cell is not empty
   */
  public static int moveValue(Board board, Mark mover, int cell) {
    check(board, mover);
    if (!board.isEmpty(cell)) {
      throw new IllegalArgumentException("cell " + Cell.of(cell).text() + " is not empty on\n" + board.render());
    }
    return moveValue(board.xBits(), board.oBits(), mover == Mark.X ? 0 : 1, cell);
  }

  /**
   * Every move of the best value, ascending by cell index.
   *
   * @param board a board whose game is not over
   * @param mover the mark to move
   * @return the optimal cells (never empty)
   * @throws IllegalArgumentException if the game is over or the mark is EMPTY
   */
  public static List<Integer> bestMoves(Board board, Mark mover) {
    check(board, mover);
    int x = board.xBits();
    int o = board.oBits();
    int p = mover == Mark.X ? 0 : 1;
    int best = Integer.MIN_VALUE;
    List<Integer> moves = new ArrayList<>(Board.CELLS);
    int empty = Board.FULL & ~(x | o);
    for (int i = 0; i < Board.CELLS; i++) {
      if ((empty & (1 << i)) == 0) {
        continue;
      }
      int v = moveValue(x, o, p, i);
      if (v > best) {
        best = v;
        moves.clear();
      }
      if (v == best) {
        moves.add(i);
      }
    }
    return moves;
  }

  private static void check(Board board, Mark toMove) {
    if (board == null || toMove == null || toMove == Mark.EMPTY) {
      throw new IllegalArgumentException("minimax needs a board and the mark to move (X or O), got " + toMove);
    }
    if (board.isOver()) {
      throw new IllegalArgumentException("the game is already over on the board\n" + board.render());
    }
  }

  private static int moveValue(int x, int o, int p, int cell) {
    int bit = 1 << cell;
    int nx = p == 0 ? x | bit : x;
    int no = p == 0 ? o : o | bit;
    int empties = Board.CELLS - Integer.bitCount(nx | no);
    if (Board.hasLine(p == 0 ? nx : no)) {
      return 1 + empties;
    }
    if (empties == 0) {
      return 0;
    }
    return -value(nx, no, 1 - p);
  }

  private static int value(int x, int o, int p) {
    int key = p * POSITIONS + code(x, o);
    int memo = MEMO[key];
    if (memo != 0) {
      return memo - OFFSET;
    }
    int best = Integer.MIN_VALUE;
    int empty = Board.FULL & ~(x | o);
    for (int i = 0; i < Board.CELLS; i++) {
      if ((empty & (1 << i)) != 0) {
        best = Math.max(best, moveValue(x, o, p, i));
      }
    }
    MEMO[key] = (byte) (best + OFFSET);
    return best;
  }

  private static int code(int x, int o) {
    int c = 0;
    for (int i = 0; i < Board.CELLS; i++) {
      int bit = 1 << i;
      if ((x & bit) != 0) {
        c += POW3[i];
      } else if ((o & bit) != 0) {
        c += 2 * POW3[i];
      }
    }
    return c;
  }
}
