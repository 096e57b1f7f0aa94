package org.magejvm.api;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Objects;

/**
 * A complete meta-episode: the same task (seed) played several times in a row against the same opponent from the
 * same seat, with reflection turns between the episodes.
 *
 * @param environmentId the id of the environment provider
 * @param groupId the episode group: meta-episodes with the same group id share seed, opponent and seat
 * @param indexInGroup the 0-based index of this meta-episode inside its group
 * @param seed the task seed (the board, deal or room)
 * @param opponentId the opponent's id, empty for single-player environments
 * @param seat the agent's seat
 * @param turns every policy call in order: play turns of episode 0, the reflection before episode 1, ...
 * @param episodes the episodes actually played (fewer than configured after an early stop)
 * @param reflections the reflections written, one per reflection turn
 */
public record MetaEpisode(
    String environmentId,
    String groupId,
    int indexInGroup,
    long seed,
    String opponentId,
    Seat seat,
    List<Turn> turns,
    List<Episode> episodes,
    ReflectionMemory reflections) {

  /**
   * Validates and copies.
   *
   * @param environmentId environment id
   * @param groupId group id
   * @param indexInGroup index in group
   * @param seed task seed
   * @param opponentId opponent id
   * @param seat agent seat
   * @param turns all turns
   * @param episodes the episodes
   * @param reflections the reflections
   */
  public MetaEpisode {
    Objects.requireNonNull(environmentId, "environmentId");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(opponentId, "opponentId");
    Objects.requireNonNull(seat, "seat");
    Objects.requireNonNull(reflections, "reflections");
    turns = ImmutableList.copyOf(turns);
    episodes = ImmutableList.copyOf(episodes);
  }

  /** @return whether any episode was won */
  public boolean won() {
    return episodes.stream().anyMatch(Episode::won);
  }

  /**
   * @param k an episode index
   * @return whether some episode with index at most k was won
   */
  public boolean wonWithin(int k) {
    for (Episode e : episodes) {
      if (e.index() <= k && e.won()) {
        return true;
      }
    }
    return false;
  }
}
