package org.magejvm.impl.env.sokoban;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * What {@link SokobanEnvironment#state()} returns for scripted policies: the current position plus the turn
 * budget. Immutable.
 *
 * @param position the current position
 * @param movesPerTurn the most moves one turn may hold
 * @param movesUsed the primitive moves already made in this episode
 * @param moveCap the most primitive moves of an episode
 */
@Api(status = Api.Status.INTERNAL)
public record SokobanSnapshot(SokobanState position, int movesPerTurn, int movesUsed, int moveCap) {

  /**
   * Validates.
   *
   * @param position position
   * @param movesPerTurn moves per turn
   * @param movesUsed moves used
   * @param moveCap move cap
   */
  public SokobanSnapshot {
    Objects.requireNonNull(position, "position");
    if (movesPerTurn < 1 || movesUsed < 0 || moveCap < 1) {
      throw new IllegalArgumentException("invalid turn budget: movesPerTurn " + movesPerTurn + ", movesUsed "
          + movesUsed + ", moveCap " + moveCap);
    }
  }

  /** @return the primitive moves left before the cap */
  public int movesLeft() {
    return Math.max(0, moveCap - movesUsed);
  }
}
