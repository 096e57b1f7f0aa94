package org.magejvm.impl.env.tictactoe;

import java.util.List;
import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.ScriptedPolicy;

/**
 * A scripted Tic-Tac-Toe policy (name {@code minimax}) that plays perfectly from the request's
 * {@link TicTacToeState}: the fastest win, else a draw, else the slowest loss; ties are broken with the policy's own
 * generator. Its reflections are a short fixed remark.
 */
final class MinimaxPolicy extends ScriptedPolicy {

  /** The policy name. */
  public static final String NAME = "minimax";

  /** @param seed the seed of the tie-breaking generator */
  public MinimaxPolicy(long seed) {
    super(NAME, seed);
  }

  @Override
  protected String chooseAction(PolicyRequest request, Random random) {
    Object s = request.state();
    if (!(s instanceof TicTacToeState)) {
      throw new IllegalArgumentException("the minimax policy needs the Tic-Tac-Toe state object, but the request"
          + " for worker '" + request.workerKey() + "' (episode " + request.episodeIndex() + ", turn "
          + request.turnIndex() + ") carries " + (s == null ? "none" : s.getClass().getName()));
    }
    TicTacToeState state = (TicTacToeState) s;
    if (state.done()) {
      throw new IllegalArgumentException("the minimax policy was asked to move in a finished game (worker '"
          + request.workerKey() + "'):\n" + state.board().render());
    }
    List<Integer> best = TicTacToeMinimax.bestMoves(state.board(), state.agentMark());
    int cell = best.size() == 1 ? best.get(0) : best.get(random.nextInt(best.size()));
    return Cell.of(cell).text();
  }

  @Override
  protected String reflect(PolicyRequest request, Random random) {
    return "I already play every position perfectly, so the result depended on the opponent; I will keep taking"
        + " wins when offered and blocking its lines.";
  }
}
