package org.magejvm.api;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * A turn after credit assignment: its step return (what the step-level advantage compares) and its episode score
 * (what the episode-level advantage compares, penalties included), with the identity of its groups.
 *
 * @param turn the turn
 * @param groupId the episode group (meta-episodes sharing task seed, opponent and seat)
 * @param seat the agent's seat in the turn's meta-episode
 * @param stepReturn the discounted return {@code G} of the turn
 * @param episodeScore the episode-level score {@code s} of the turn, after invalid-action and length penalties
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record ScoredTurn(Turn turn, String groupId, Seat seat, double stepReturn, double episodeScore) {

  /**
   * Validates.
   *
   * @param turn the turn
   * @param groupId the group id
   * @param seat the seat
   * @param stepReturn the step return
   * @param episodeScore the episode score
   */
  public ScoredTurn {
    Objects.requireNonNull(turn, "turn");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(seat, "seat");
    if (!Double.isFinite(stepReturn) || !Double.isFinite(episodeScore)) {
      throw new IllegalArgumentException(
          "stepReturn and episodeScore must be finite, got " + stepReturn + " and " + episodeScore);
    }
  }
}
