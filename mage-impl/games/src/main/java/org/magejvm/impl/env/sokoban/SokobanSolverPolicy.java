package org.magejvm.impl.env.sokoban;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.ScriptedPolicy;

/**
 * Plays Sokoban perfectly: each turn it solves the current position with {@link SokobanSolver} and answers the
 * first moves of a shortest solution, as many as a turn holds. It never needs more turns than
 * {@code ceil(shortest solution / moves per turn)}. When the position has no solution (the episode is then already
 * over) it answers {@code still}.
 */
final class SokobanSolverPolicy extends ScriptedPolicy {

  private final SokobanSolver solver = new SokobanSolver();

  /** @param seed unused by the moves (they are deterministic); kept for the scripted-policy contract */
  public SokobanSolverPolicy(long seed) {
    super("solver", seed);
  }

  /**
   * @throws IllegalArgumentException if the request does not carry the Sokoban environment's state
   */
  @Override
  protected String chooseAction(PolicyRequest request, Random random) {
    if (!(request.state() instanceof SokobanSnapshot)) {
      throw new IllegalArgumentException("the Sokoban solver policy needs the environment state (a SokobanSnapshot)"
          + " in the request for worker '" + request.workerKey() + "', got "
          + (request.state() == null ? "none" : request.state().getClass().getName()));
    }
    SokobanSnapshot snapshot = (SokobanSnapshot) request.state();
    Optional<List<Move>> plan = solver.solve(snapshot.position());
    if (plan.isEmpty() || plan.get().isEmpty()) {
      return Move.STILL.word();
    }
    List<Move> moves = plan.get();
    return Move.join(moves.subList(0, Math.min(snapshot.movesPerTurn(), moves.size())));
  }
}
