package org.magejvm.impl.env.tictactoe;

import java.util.Random;
import org.magejvm.api.annotation.Api;

/** Plays a uniformly random empty cell, drawn from the environment's generator. Id {@code random}. */
@Api(status = Api.Status.INTERNAL)
public final class RandomOpponent implements TicTacToeOpponent {

  /** The id. */
  public static final String ID = "random";

  /** Creates the opponent (stateless; the provider shares one instance). */
  public RandomOpponent() {}

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String description() {
    return "uniformly random empty cell";
  }

  @Override
  public int chooseMove(Board board, Mark mark, Random random) {
    TicTacToeOpponent.checkMoveArguments(board, mark, random, ID);
    return nthSetBit(board.emptyBits(), random.nextInt(board.emptyCount()));
  }

  /**
   * @param bits a mask
   * @param n which set bit, 0-based
   * @return the index of the {@code n}-th set bit from the lowest
   */
  static int nthSetBit(int bits, int n) {
    int b = bits;
    for (int i = 0; i < n; i++) {
      b &= b - 1;
    }
    return Integer.numberOfTrailingZeros(b);
  }
}
