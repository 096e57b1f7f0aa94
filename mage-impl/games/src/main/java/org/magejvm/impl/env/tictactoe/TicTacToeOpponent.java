package org.magejvm.impl.env.tictactoe;

import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Opponent;

/**
 * An opponent for the Tic-Tac-Toe environment. Implementations are stateless: every random choice must come from
 * the generator passed in (the environment's, seeded at reset), so one instance can serve many environments and a
 * seed reproduces a game.
 */
@Api(status = Api.Status.INTERNAL)
public interface TicTacToeOpponent extends Opponent {

  /**
   * Chooses a move.
   *
   * @param board the board now; the game on it is not over and it has at least one empty cell
   * @param mark the mark this opponent places (O in the environment; X or O in general)
   * @param random the generator to draw every random choice from
   * @return the index {@code row * 3 + col} (0 to 8) of an empty cell
   */
  int chooseMove(Board board, Mark mark, Random random);

  /**
   * Checks the arguments of {@link #chooseMove}; helper for implementations.
   *
   * @param board the board
   * @param mark the mark to place
   * @param random the generator
   * @param who the opponent id, for messages
   * @throws IllegalArgumentException if the board is finished, the mark is EMPTY or an argument is null
   */
  static void checkMoveArguments(Board board, Mark mark, Random random, String who) {
    if (board == null || mark == null || random == null) {
      throw new IllegalArgumentException("opponent '" + who + "' needs a board, a mark and a random generator");
    }
    if (mark == Mark.EMPTY) {
      throw new IllegalArgumentException("opponent '" + who + "' must place X or O, not EMPTY");
    }
    if (board.isOver()) {
      throw new IllegalArgumentException(
          "opponent '" + who + "' was asked to move on a finished board:\n" + board.render());
    }
  }
}
