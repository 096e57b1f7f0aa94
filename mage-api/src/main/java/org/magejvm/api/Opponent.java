package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/**
 * A non-learning player the agent faces in a two-player environment.
 *
 * <p>This interface holds only the identity; each environment defines a sub-interface with the method that chooses
 * a move (for example {@code TicTacToeOpponent}), and rejects opponents of another game with a clear error.
 * Opponents must be stateless: the environment passes them its seeded random generator, so one instance can serve
 * many environments at once and a seed reproduces a game.
 */
@Api(status = Api.Status.STABLE)
public interface Opponent {

  /**
   * The id used in anchors, metrics and on the command line (for example {@code mcts-100}). Ids are compared
   * exactly; two different strategies must never share one.
   *
   * @return the id
   */
  String id();

  /** @return a one-line description for listings; the id by default */
  default String description() {
    return id();
  }
}
