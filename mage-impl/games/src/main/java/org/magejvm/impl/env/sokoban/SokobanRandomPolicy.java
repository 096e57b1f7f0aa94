package org.magejvm.impl.env.sokoban;

import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.ScriptedPolicy;

/**
 * Answers each Sokoban turn with a full turn of moves drawn uniformly from up, down, left and right, for example
 * {@code <action>left, up, up</action>}. The turn length is the environment's moves per turn when the request
 * carries a {@link SokobanSnapshot}, else 3. (The generic random policy would send one move per turn.)
 */
final class SokobanRandomPolicy extends ScriptedPolicy {

  private static final Move[] MOVES = {Move.UP, Move.DOWN, Move.LEFT, Move.RIGHT};

  /** @param seed the seed of the policy's generator */
  public SokobanRandomPolicy(long seed) {
    super("random", seed);
  }

  @Override
  protected String chooseAction(PolicyRequest request, Random random) {
    int n = request.state() instanceof SokobanSnapshot
        ? ((SokobanSnapshot) request.state()).movesPerTurn()
        : SokobanConfig.DEFAULT.movesPerTurn();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ", ").append(MOVES[random.nextInt(MOVES.length)].word());
    }
    return sb.toString();
  }
}
