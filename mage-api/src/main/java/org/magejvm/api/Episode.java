package org.magejvm.api;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * One episode of a meta-episode: its play turns in order and how it ended.
 *
 * @param index the 0-based index of the episode inside its meta-episode
 * @param turns the play turns of the episode (reflection turns live in {@link MetaEpisode#turns()})
 * @param outcome how the episode ended
 * @param totalReward the sum of the raw rewards of the play turns, {@code R_n}
 * @param score the environment's score at the end of the episode (0 when truncated)
 */
@Api(status = Api.Status.STABLE)
public record Episode(int index, List<Turn> turns, Outcome outcome, double totalReward, double score) {

  /**
   * Validates and copies.
   *
   * @param index the episode index
   * @param turns the play turns
   * @param outcome how it ended
   * @param totalReward the sum of raw rewards
   * @param score the final score
   */
  public Episode {
    if (index < 0) {
      throw new IllegalArgumentException("episode index must be >= 0, got " + index);
    }
    Objects.requireNonNull(outcome, "outcome");
    turns = ImmutableList.copyOf(turns);
    for (Turn t : turns) {
      if (t.phase() != Phase.PLAY || t.episodeIndex() != index) {
        throw new IllegalArgumentException("episode " + index + " may hold only its own play turns, got " + t);
      }
    }
  }

  /** @return whether the agent won this episode */
  public boolean won() {
    return outcome == Outcome.WON;
  }

  /** @return whether this episode was a draw */
  public boolean draw() {
    return outcome == Outcome.DRAW;
  }

  /** @return the number of play turns */
  public int length() {
    return turns.size();
  }
}
