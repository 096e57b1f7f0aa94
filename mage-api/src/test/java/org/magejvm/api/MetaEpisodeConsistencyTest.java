package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** MetaEpisode checks that its opponent, turns, episodes and reflections agree. */
class MetaEpisodeConsistencyTest {

  private static final String OPP = "mcts-100";

  private static Turn play(int episode, int turn) {
    return Turn.builder().setEpisodeIndex(episode).setTurnIndex(turn).setPrompt("p").setResponse("r")
        .setAnchor(new AnchorKey("s" + episode + turn, OPP)).optOpponentId(OPP).build();
  }

  private static Turn reflect(int episode) {
    return Turn.builder().setPhase(Phase.REFLECT).setEpisodeIndex(episode).setPrompt("p").setResponse("r")
        .setAnchor(AnchorKey.reflection(OPP)).optOpponentId(OPP).build();
  }

  private static Episode episode(int index, Turn... turns) {
    return new Episode(index, List.of(turns), Outcome.LOST, 0, 0);
  }

  private static MetaEpisode meta(List<Turn> turns, List<Episode> episodes, int reflections) {
    return new MetaEpisode("env", "g7", 3, 1, OPP, Seat.FIRST, turns, episodes,
        ReflectionMemory.of(java.util.Collections.nCopies(reflections, "r")));
  }

  @Test
  void acceptsWhatTheRolloutEngineRecords() {
    Turn a = play(0, 0);
    Turn b = play(0, 1);
    Turn c = play(1, 0);
    MetaEpisode m = meta(List.of(a, b, reflect(1), c), List.of(episode(0, a, b), episode(1, c)), 1);
    assertThat(m.turns()).hasSize(4);
    // a failed worker's record: the episode in progress has play turns but no Episode yet
    assertThat(meta(List.of(a, b, reflect(1), c), List.of(episode(0, a, b)), 1).episodes()).hasSize(1);
    // ... or only the reflection that prepares it
    assertThat(meta(List.of(a, b, reflect(1)), List.of(episode(0, a, b)), 1).turns()).hasSize(3);
    // no context: no reflections
    assertThat(meta(List.of(a, c), List.of(episode(0, a), episode(1, c)), 0).reflections().isEmpty()).isTrue();
  }

  @Test
  void turnsMustRecordTheMetaEpisodesOpponent() {
    Turn stranger = play(0, 0).toBuilder().optOpponentId("random").build();
    assertThatThrownBy(() -> meta(List.of(stranger), List.of(episode(0, stranger)), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("meta-episode g7/3: it plays opponent 'mcts-100', but turn 0 (PLAY, episode 0, turn 0) records"
            + " opponent 'random'");
    Turn anchored = play(0, 0).toBuilder().setAnchor(new AnchorKey("s", "")).build();
    assertThatThrownBy(() -> meta(List.of(anchored), List.of(episode(0, anchored)), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("meta-episode g7/3: it plays opponent 'mcts-100', but the anchor of turn 0 (PLAY, episode 0,"
            + " turn 0) names opponent ''");
    Turn reflection = reflect(1).toBuilder().setAnchor(AnchorKey.reflection("cfr")).build();
    assertThatThrownBy(() -> meta(List.of(play(0, 0), reflection), List.of(episode(0, play(0, 0))), 1))
        .hasMessageContaining("the anchor of turn 1 (REFLECT, episode 1, turn 0) names opponent 'cfr'");
  }

  @Test
  void episodesMustBeListedInOrderAndHoldExactlyTheirPlayTurns() {
    Turn a = play(0, 0);
    Turn c = play(1, 0);
    assertThatThrownBy(() -> meta(List.of(a, c), List.of(episode(1, c), episode(0, a)), 0))
        .hasMessage("meta-episode g7/3: the episode at position 0 has index 1; episodes must be listed as 0, 1, 2,"
            + " ... in order");
    assertThatThrownBy(() -> meta(List.of(a, c), List.of(episode(0, a), episode(1, play(1, 0).toBuilder()
        .optReward(1).build())), 0))
        .hasMessage("meta-episode g7/3: turn 1 (PLAY, episode 1, turn 0) is not play turn 0 of episode 1 as listed"
            + " in its Episode (1 turns)");
    assertThatThrownBy(() -> meta(List.of(a), List.of(episode(0, a, play(0, 1))), 0))
        .hasMessage("meta-episode g7/3: episode 0 lists 2 play turns, but the meta-episode's turns hold 1 of them");
    assertThatThrownBy(() -> meta(List.of(a, play(0, 1)), List.of(episode(0, a)), 0))
        .hasMessageContaining("turn 1 (PLAY, episode 0, turn 1) is not play turn 1 of episode 0");
    assertThatThrownBy(() -> meta(List.of(a, play(2, 0)), List.of(episode(0, a)), 0))
        .hasMessage("meta-episode g7/3: turn 1 (PLAY, episode 2, turn 0) belongs to episode 2, but only 1 episodes"
            + " are listed (and at most the next one may be in progress)");
  }

  @Test
  void turnsMustComeInPlayingOrder() {
    Turn a = play(0, 0);
    Turn c = play(1, 0);
    assertThatThrownBy(() -> meta(List.of(c, a), List.of(episode(0, a), episode(1, c)), 0))
        .hasMessage("meta-episode g7/3: turn 1 (PLAY, episode 0, turn 0) comes after turns of episode 1; episode"
            + " indices must not decrease");
    Turn skipped = play(0, 1);
    assertThatThrownBy(() -> meta(List.of(skipped), List.of(episode(0, skipped)), 0))
        .hasMessage("meta-episode g7/3: turn 0 (PLAY, episode 0, turn 1) should have turn index 0; the play turns of"
            + " an episode are numbered 0, 1, 2, ...");
    assertThatThrownBy(() -> meta(List.of(a, c, reflect(1)), List.of(episode(0, a), episode(1, c)), 1))
        .hasMessageContaining("turn 2 (REFLECT, episode 1, turn 0) is a reflection for episode 1, which already has"
            + " a reflection or play turns before it");
    assertThatThrownBy(() -> meta(List.of(a, reflect(1), reflect(1), c), List.of(episode(0, a), episode(1, c)), 2))
        .hasMessageContaining("turn 2 (REFLECT, episode 1, turn 0) is a reflection for episode 1");
    assertThatThrownBy(() -> meta(List.of(reflect(0), a), List.of(episode(0, a)), 1))
        .hasMessageContaining("its episode index must be >= 1 and its turn index 0");
    assertThatThrownBy(() -> meta(List.of(a, reflect(2)), List.of(episode(0, a)), 1))
        .hasMessage("meta-episode g7/3: turn 1 (REFLECT, episode 2, turn 0) is a reflection written after episode 1,"
            + " which is not among the 1 episodes listed");
  }

  @Test
  void oneReflectionPerReflectionTurn() {
    Turn a = play(0, 0);
    Turn c = play(1, 0);
    assertThatThrownBy(() -> meta(List.of(a, reflect(1), c), List.of(episode(0, a), episode(1, c)), 0))
        .hasMessage("meta-episode g7/3: it has 1 reflection turns but 0 reflections; the memory holds one per"
            + " reflection turn");
    assertThatThrownBy(() -> meta(List.of(a, c), List.of(episode(0, a), episode(1, c)), 1))
        .hasMessageContaining("it has 0 reflection turns but 1 reflections");
  }
}
