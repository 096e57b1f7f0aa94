package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EpisodeTest {

  static Turn play(int episode, int t) {
    return Turn.builder().setEpisodeIndex(episode).setTurnIndex(t).setPrompt("p").setResponse("r")
        .setAnchor(new AnchorKey("s" + t, "")).build();
  }

  static Turn against(String opponent, Turn t) {
    return t.toBuilder().optOpponentId(opponent).setAnchor(new AnchorKey(t.anchor().state(), opponent)).build();
  }

  static Turn reflect(int episode) {
    return Turn.builder().setPhase(Phase.REFLECT).setEpisodeIndex(episode).setPrompt("p").setResponse("r")
        .setAnchor(AnchorKey.reflection("")).build();
  }

  @Test
  void holdsItsPlayTurnsInOrder() {
    Episode e = new Episode(1, List.of(play(1, 0), play(1, 1)), Outcome.WON, 1.0, 1.0);
    assertThat(e.length()).isEqualTo(2);
    assertThat(e.turns()).extracting(Turn::turnIndex).containsExactly(0, 1);
    assertThat(e.won()).isTrue();
    assertThat(e.draw()).isFalse();
  }

  @Test
  void outcomeQueries() {
    assertThat(new Episode(0, List.of(), Outcome.DRAW, 0, 0).draw()).isTrue();
    assertThat(new Episode(0, List.of(), Outcome.DRAW, 0, 0).won()).isFalse();
    assertThat(new Episode(0, List.of(), Outcome.LOST, 0, 0).won()).isFalse();
    assertThat(new Episode(0, List.of(), Outcome.TRUNCATED, 0, 0).draw()).isFalse();
  }

  @Test
  void copiesTheTurnList() {
    List<Turn> turns = new ArrayList<>(List.of(play(0, 0)));
    Episode e = new Episode(0, turns, Outcome.LOST, 0, -1);
    turns.add(play(0, 1));
    assertThat(e.length()).isEqualTo(1);
    assertThatThrownBy(() -> e.turns().add(play(0, 2))).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void rejectsReflectionTurns() {
    Turn r = reflect(0);
    assertThatThrownBy(() -> new Episode(0, List.of(play(0, 0), r), Outcome.LOST, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("episode 0 may hold only its own play turns, got " + r);
  }

  @Test
  void rejectsTurnsOfAnotherEpisode() {
    assertThatThrownBy(() -> new Episode(1, List.of(play(1, 0), play(2, 1)), Outcome.LOST, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("episode 1 may hold only its own play turns, got Turn[PLAY ep=2 t=1");
  }

  @Test
  void rejectsNegativeIndexAndNullOutcome() {
    assertThatThrownBy(() -> new Episode(-1, List.of(), Outcome.LOST, 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("episode index must be >= 0, got -1");
    assertThatThrownBy(() -> new Episode(0, List.of(), null, 0, 0))
        .isInstanceOf(NullPointerException.class).hasMessage("outcome");
  }

  private static MetaEpisode meta(Episode... episodes) {
    return new MetaEpisode("env", "g", 0, 7L, "", Seat.FIRST, List.of(), List.of(episodes),
        ReflectionMemory.empty());
  }

  @Test
  void wonWithinCountsEpisodesUpToTheIndex() {
    MetaEpisode m = meta(
        new Episode(0, List.of(), Outcome.LOST, 0, 0),
        new Episode(1, List.of(), Outcome.DRAW, 0, 0),
        new Episode(2, List.of(), Outcome.WON, 1, 1));
    assertThat(m.won()).isTrue();
    assertThat(m.wonWithin(-1)).isFalse();
    assertThat(m.wonWithin(0)).isFalse();
    assertThat(m.wonWithin(1)).isFalse();
    assertThat(m.wonWithin(2)).isTrue();
    assertThat(m.wonWithin(10)).isTrue();
  }

  @Test
  void wonWithinAfterAnEarlyWin() {
    MetaEpisode m = meta(new Episode(0, List.of(), Outcome.WON, 1, 1));
    assertThat(m.wonWithin(0)).isTrue();
    assertThat(m.wonWithin(3)).isTrue();
    MetaEpisode none = meta();
    assertThat(none.won()).isFalse();
    assertThat(none.wonWithin(5)).isFalse();
  }

  @Test
  void metaEpisodeCopiesAndValidates() {
    Turn p0 = against("mcts-100", play(0, 0));
    Turn p1 = against("mcts-100", play(1, 0));
    List<Turn> turns = new ArrayList<>(List.of(p0, against("mcts-100", reflect(1)), p1));
    List<Episode> episodes = new ArrayList<>(List.of(
        new Episode(0, List.of(p0), Outcome.LOST, 0, -1),
        new Episode(1, List.of(p1), Outcome.WON, 1, 1)));
    ReflectionMemory mem = ReflectionMemory.of(List.of("block the diagonal"));
    MetaEpisode m =
        new MetaEpisode("mage-tictactoe", "g-3", 2, 42L, "mcts-100", Seat.SECOND, turns, episodes, mem);
    turns.clear();
    episodes.clear();
    assertThat(m.turns()).hasSize(3);
    assertThat(m.episodes()).hasSize(2);
    assertThat(m.reflections().get(0)).isEqualTo("block the diagonal");
    assertThat(m.environmentId()).isEqualTo("mage-tictactoe");
    assertThat(m.groupId()).isEqualTo("g-3");
    assertThat(m.indexInGroup()).isEqualTo(2);
    assertThat(m.seed()).isEqualTo(42L);
    assertThat(m.opponentId()).isEqualTo("mcts-100");
    assertThat(m.seat()).isEqualTo(Seat.SECOND);
    assertThatThrownBy(() -> new MetaEpisode(null, "g", 0, 0, "", Seat.FIRST, List.of(), List.of(),
        ReflectionMemory.empty())).isInstanceOf(NullPointerException.class).hasMessage("environmentId");
    assertThatThrownBy(() -> new MetaEpisode("e", "g", 0, 0, "", null, List.of(), List.of(),
        ReflectionMemory.empty())).isInstanceOf(NullPointerException.class).hasMessage("seat");
    assertThatThrownBy(() -> new MetaEpisode("e", "g", 0, 0, "", Seat.FIRST, List.of(), List.of(), null))
        .isInstanceOf(NullPointerException.class).hasMessage("reflections");
  }
}
