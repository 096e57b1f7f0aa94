package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;

/**
 * An immutable snapshot of a Tic-Tac-Toe environment, for scripted policies ({@code Environment.state()}).
 *
 * @param board the board now
 * @param agentMark the agent's mark (always X in this environment)
 * @param toMove whose mark goes next: the agent's while the episode runs, EMPTY once it is over
 * @param done whether the episode is over
 * @param winner the mark with three in a line, EMPTY for none (a draw when done, or a running game)
 * @param seat whether the agent moved first or the opponent opened
 * @param opponentId the id of the opponent
 */
@Api(status = Api.Status.INTERNAL)
public record TicTacToeState(
    Board board, Mark agentMark, Mark toMove, boolean done, Mark winner, Seat seat, String opponentId) {

  /**
   * Validates.
   *
   * @param board board
   * @param agentMark agent's mark
   * @param toMove mark to move
   * @param done whether over
   * @param winner winner
   * @param seat agent's seat
   * @param opponentId opponent id
   */
  public TicTacToeState {
    Objects.requireNonNull(board, "board");
    Objects.requireNonNull(agentMark, "agentMark").requirePlayer();
    Objects.requireNonNull(toMove, "toMove");
    Objects.requireNonNull(winner, "winner");
    Objects.requireNonNull(seat, "seat");
    Objects.requireNonNull(opponentId, "opponentId");
    if (done != (toMove == Mark.EMPTY)) {
      throw new IllegalArgumentException("toMove must be EMPTY exactly when the episode is over, got toMove="
          + toMove + ", done=" + done);
    }
  }

  /** @return the opponent's mark */
  public Mark opponentMark() {
    return agentMark.other();
  }

  /** @return the empty cells (the legal moves while the episode runs; none once it is over), in reading order */
  public List<Cell> legalCells() {
    if (done) {
      return List.of();
    }
    List<Integer> empty = board.emptyCells();
    List<Cell> out = new ArrayList<>(empty.size());
    for (int i : empty) {
      out.add(Cell.of(i));
    }
    return List.copyOf(out);
  }

  /** @return how the episode ended, or empty while it runs */
  public Optional<Outcome> outcome() {
    if (!done) {
      return Optional.empty();
    }
    if (winner == Mark.EMPTY) {
      return Optional.of(Outcome.DRAW);
    }
    return Optional.of(winner == agentMark ? Outcome.WON : Outcome.LOST);
  }
}
