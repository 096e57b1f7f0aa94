package org.magejvm.impl.env.tictactoe;

import java.util.List;
import java.util.Random;
import org.magejvm.api.annotation.Api;

/**
 * A perfect player (id {@code minimax}): it never loses, takes the fastest win available and, when lost, the
 * slowest loss. Ties between equally good moves are broken uniformly with the environment's generator, so it does
 * not always play the same game.
 */
@Api(status = Api.Status.INTERNAL)
public final class MinimaxOpponent implements TicTacToeOpponent {

  /** The id. */
  public static final String ID = "minimax";

  /** Creates the opponent (stateless). */
  public MinimaxOpponent() {}

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String description() {
    return "perfect play (exhaustive minimax), random among equally good moves";
  }

  @Override
  public int chooseMove(Board board, Mark mark, Random random) {
    TicTacToeOpponent.checkMoveArguments(board, mark, random, ID);
    List<Integer> best = TicTacToeMinimax.bestMoves(board, mark);
    return best.size() == 1 ? best.get(0) : best.get(random.nextInt(best.size()));
  }
}
