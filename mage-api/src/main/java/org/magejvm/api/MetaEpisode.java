package org.magejvm.api;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * A complete meta-episode: the same task (seed) played several times in a row against the same opponent from the
 * same seat, with reflection turns between the episodes.
 *
 * <p>The constructor checks that the parts agree, so that every consumer (credit assignment, the optimizers'
 * opponent-stationary groups, the metrics) can rely on it:
 *
 * <ul>
 *   <li>the opponent: every turn's {@link Turn#opponentId()} and the opponent id of its {@link Turn#anchor()} equal
 *       {@link #opponentId()} (the empty string for single-player games);
 *   <li>the episodes: their indices are 0, 1, 2, ... in order, and the play turns of each, in {@link #turns()}, are
 *       exactly that {@link Episode}'s turns in the same order;
 *   <li>the order of the turns: episode indices never decrease; a reflection turn (index k &ge; 1, turn index 0)
 *       comes before the play turns of the episode it prepares and after episode k-1 is listed; the play turns of an
 *       episode have turn indices 0, 1, 2, ...;
 *   <li>the reflections: one per reflection turn.
 * </ul>
 *
 * <p>Play turns after the last listed episode may belong to one more episode, the one in progress: a meta-episode
 * whose environment failed keeps what it recorded (see the rollout engine's worker failures).
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
@Api(status = Api.Status.STABLE)
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
   * @throws IllegalArgumentException naming the meta-episode and the first turn or episode that disagrees with the
   *     rest (see the class description)
   */
  public MetaEpisode {
    Objects.requireNonNull(environmentId, "environmentId");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(opponentId, "opponentId");
    Objects.requireNonNull(seat, "seat");
    Objects.requireNonNull(reflections, "reflections");
    turns = ImmutableList.copyOf(turns);
    episodes = ImmutableList.copyOf(episodes);
    checkConsistent(groupId + "/" + indexInGroup, opponentId, turns, episodes, reflections);
  }

  private static void checkConsistent(String key, String opponentId, List<Turn> turns, List<Episode> episodes,
      ReflectionMemory reflections) {
    String where = "meta-episode " + key + ": ";
    for (int n = 0; n < episodes.size(); n++) {
      if (episodes.get(n).index() != n) {
        throw new IllegalArgumentException(where + "the episode at position " + n + " has index "
            + episodes.get(n).index() + "; episodes must be listed as 0, 1, 2, ... in order");
      }
    }
    int episode = 0; // the episode of the turns seen so far
    int nextTurn = 0; // the turn index the next play turn of that episode must have
    boolean reflected = false; // whether that episode already has its reflection or a play turn
    int reflectionTurns = 0;
    int[] played = new int[episodes.size() + 1]; // play turns seen per episode (the last slot: the one in progress)
    for (int i = 0; i < turns.size(); i++) {
      Turn t = turns.get(i);
      String turn = "turn " + i + " (" + t.phase() + ", episode " + t.episodeIndex() + ", turn " + t.turnIndex() + ")";
      if (!t.opponentId().equals(opponentId)) {
        throw new IllegalArgumentException(where + "it plays opponent '" + opponentId + "', but " + turn
            + " records opponent '" + t.opponentId() + "'");
      }
      if (!t.anchor().opponentId().equals(opponentId)) {
        throw new IllegalArgumentException(where + "it plays opponent '" + opponentId + "', but the anchor of " + turn
            + " names opponent '" + t.anchor().opponentId() + "'");
      }
      int k = t.episodeIndex();
      if (k < episode) {
        throw new IllegalArgumentException(where + turn + " comes after turns of episode " + episode
            + "; episode indices must not decrease");
      }
      if (k > episode) {
        episode = k;
        nextTurn = 0;
        reflected = false;
      }
      if (t.isReflection()) {
        if (k == 0 || t.turnIndex() != 0) {
          throw new IllegalArgumentException(where + turn + " is a reflection, which is written after an episode"
              + " for the next one: its episode index must be >= 1 and its turn index 0");
        }
        if (reflected || nextTurn > 0) {
          throw new IllegalArgumentException(where + turn + " is a reflection for episode " + k
              + ", which already has a reflection or play turns before it");
        }
        if (k > episodes.size()) {
          throw new IllegalArgumentException(where + turn + " is a reflection written after episode " + (k - 1)
              + ", which is not among the " + episodes.size() + " episodes listed");
        }
        reflected = true;
        reflectionTurns++;
        continue;
      }
      reflected = true;
      if (t.turnIndex() != nextTurn) {
        throw new IllegalArgumentException(where + turn + " should have turn index " + nextTurn
            + "; the play turns of an episode are numbered 0, 1, 2, ...");
      }
      nextTurn++;
      if (k > episodes.size()) {
        throw new IllegalArgumentException(where + turn + " belongs to episode " + k + ", but only "
            + episodes.size() + " episodes are listed (and at most the next one may be in progress)");
      }
      if (k < episodes.size()) {
        List<Turn> expected = episodes.get(k).turns();
        int j = played[k];
        if (j >= expected.size() || !expected.get(j).equals(t)) {
          throw new IllegalArgumentException(where + turn + " is not play turn " + j + " of episode " + k
              + " as listed in its Episode (" + expected.size() + " turns)");
        }
      }
      played[k]++;
    }
    for (int n = 0; n < episodes.size(); n++) {
      if (played[n] != episodes.get(n).length()) {
        throw new IllegalArgumentException(where + "episode " + n + " lists " + episodes.get(n).length()
            + " play turns, but the meta-episode's turns hold " + played[n] + " of them");
      }
    }
    if (reflections.size() != reflectionTurns) {
      throw new IllegalArgumentException(where + "it has " + reflectionTurns + " reflection turns but "
          + reflections.size() + " reflections; the memory holds one per reflection turn");
    }
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
