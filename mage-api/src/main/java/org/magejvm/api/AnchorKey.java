package org.magejvm.api;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * The key GiGPO groups steps by: the environment state the agent saw before acting, plus the id of the opponent it
 * faced. Two turns share a step group only when both parts are exactly equal (and, for per-episode anchors, the
 * episode index too; see {@link AnchorScope}).
 *
 * <p>Reflection turns use {@link #reflection(String)}, a state that no environment renders.
 *
 * @param state the rendered state before the action (for example a board), never null
 * @param opponentId the opponent's id, or the empty string for single-player environments
 */
@Api(status = Api.Status.STABLE)
public record AnchorKey(String state, String opponentId) {

  /** The state text shared by all reflection turns. */
  public static final String REFLECTION_STATE = "\u0000reflection";

  /**
   * Validates the parts.
   *
   * @param state the rendered state
   * @param opponentId the opponent id, empty when there is none
   */
  public AnchorKey {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(opponentId, "opponentId");
  }

  /**
   * The anchor of a reflection turn against an opponent.
   *
   * @param opponentId the opponent id, empty when there is none
   * @return the reflection anchor
   */
  public static AnchorKey reflection(String opponentId) {
    return new AnchorKey(REFLECTION_STATE, opponentId);
  }

  /** @return whether this is the anchor of a reflection turn */
  public boolean isReflection() {
    return REFLECTION_STATE.equals(state);
  }
}
