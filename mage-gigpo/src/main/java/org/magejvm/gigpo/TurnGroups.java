package org.magejvm.gigpo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.Grouping;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;

/**
 * Assigns turns to GiGPO's episode groups and step groups, as dense ids numbered in order of first appearance.
 *
 * <ul>
 *   <li>Episode group: {@code (groupId, opponentId, seat)} with {@link Grouping#OPPONENT_STATIONARY}, {@code groupId}
 *       alone with {@link Grouping#MIXED}.
 *   <li>Step group: the episode group, the anchor state, the anchor's opponent (except with {@link Grouping#MIXED})
 *       and, with {@link AnchorScope#PER_EPISODE}, the turn's episode index; with {@link AnchorScope#PROMPT} the
 *       turn's whole prompt replaces the anchor state, and the episode index is part of the key too.
 * </ul>
 */
final class TurnGroups {

  /**
   * Dense group ids.
   *
   * @param groupOf the group id of each turn, indexed like the input
   * @param groupCount the number of distinct groups; ids run from 0 to groupCount-1
   */
  record Assignment(int[] groupOf, int groupCount) {}

  /** Episode-group key; {@code opponentId} is empty and {@code seat} null when groups are mixed. */
  private record EpisodeKey(String groupId, String opponentId, Seat seat) {}

  /**
   * Step-group key; {@code opponentId} is empty when groups are mixed, {@code episodeIndex} is -1 for global anchors.
   */
  private record StepKey(int episodeGroup, String state, String opponentId, int episodeIndex) {}

  private TurnGroups() {}

  /**
   * Rejects a null list or a null element, naming its index.
   *
   * @param turns the turns to check
   */
  static void requireTurns(List<ScoredTurn> turns) {
    Objects.requireNonNull(turns, "turns");
    for (int i = 0, n = turns.size(); i < n; i++) {
      if (turns.get(i) == null) {
        throw new NullPointerException("turns[" + i + "] is null");
      }
    }
  }

  /**
   * Assigns episode groups.
   *
   * @param turns the turns
   * @param grouping opponent-stationary or mixed
   * @return the assignment
   */
  static Assignment episodeGroups(List<ScoredTurn> turns, Grouping grouping) {
    boolean mixed = grouping == Grouping.MIXED;
    int n = turns.size();
    int[] groupOf = new int[n];
    Map<EpisodeKey, Integer> ids = new HashMap<>();
    for (int i = 0; i < n; i++) {
      ScoredTurn t = turns.get(i);
      EpisodeKey key = mixed
          ? new EpisodeKey(t.groupId(), "", null)
          : new EpisodeKey(t.groupId(), t.turn().opponentId(), t.seat());
      groupOf[i] = idOf(ids, key);
    }
    return new Assignment(groupOf, ids.size());
  }

  /**
   * Assigns step groups, nested inside the given episode groups.
   *
   * @param turns the turns
   * @param episodeGroups the turns' episode groups (from {@link #episodeGroups})
   * @param grouping opponent-stationary or mixed
   * @param scope global or per-episode anchors
   * @return the assignment
   */
  static Assignment stepGroups(
      List<ScoredTurn> turns, Assignment episodeGroups, Grouping grouping, AnchorScope scope) {
    boolean mixed = grouping == Grouping.MIXED;
    boolean prompt = scope == AnchorScope.PROMPT;
    boolean perEpisode = scope == AnchorScope.PER_EPISODE || prompt;
    int n = turns.size();
    int[] groupOf = new int[n];
    Map<StepKey, Integer> ids = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Turn turn = turns.get(i).turn();
      StepKey key = new StepKey(
          episodeGroups.groupOf()[i],
          prompt ? turn.prompt() : turn.anchor().state(),
          mixed ? "" : turn.anchor().opponentId(),
          perEpisode ? turn.episodeIndex() : -1);
      groupOf[i] = idOf(ids, key);
    }
    return new Assignment(groupOf, ids.size());
  }

  private static <K> int idOf(Map<K, Integer> ids, K key) {
    Integer id = ids.get(key);
    if (id == null) {
      id = ids.size();
      ids.put(key, id);
    }
    return id;
  }
}
