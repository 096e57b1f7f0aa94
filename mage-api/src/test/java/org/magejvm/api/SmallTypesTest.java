package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** AnchorKey, Seat, ContextMode, Advantages, ScoredTurn and the interface defaults. */
class SmallTypesTest {

  @Test
  void anchorKeyEquality() {
    AnchorKey a = new AnchorKey("X . .", "random");
    assertThat(a).isEqualTo(new AnchorKey("X . .", "random")).hasSameHashCodeAs(new AnchorKey("X . .", "random"));
    assertThat(a).isNotEqualTo(new AnchorKey("X . .", "mcts-100"));
    assertThat(a).isNotEqualTo(new AnchorKey("X . . ", "random"));
    assertThat(a.isReflection()).isFalse();
    assertThatThrownBy(() -> new AnchorKey(null, "")).isInstanceOf(NullPointerException.class).hasMessage("state");
    assertThatThrownBy(() -> new AnchorKey("s", null)).isInstanceOf(NullPointerException.class)
        .hasMessage("opponentId");
  }

  @Test
  void reflectionAnchor() {
    AnchorKey r = AnchorKey.reflection("cfr");
    assertThat(r.isReflection()).isTrue();
    assertThat(r.state()).isEqualTo(AnchorKey.REFLECTION_STATE).isEqualTo("\u0000reflection");
    assertThat(r.opponentId()).isEqualTo("cfr");
    assertThat(r).isEqualTo(AnchorKey.reflection("cfr")).isNotEqualTo(AnchorKey.reflection("random"));
    // a board that happens to read "reflection" is not a reflection anchor
    assertThat(new AnchorKey("reflection", "cfr").isReflection()).isFalse();
    assertThat(new AnchorKey(AnchorKey.REFLECTION_STATE, "").isReflection()).isTrue();
  }

  @Test
  void seatParse() {
    assertThat(Seat.parse("first")).isEqualTo(Seat.FIRST);
    assertThat(Seat.parse("SECOND")).isEqualTo(Seat.SECOND);
    assertThat(Seat.parse("  First \n")).isEqualTo(Seat.FIRST);
    assertThatThrownBy(() -> Seat.parse("third")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown seat 'third': expected 'first' or 'second'");
    assertThatThrownBy(() -> Seat.parse("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown seat '': expected 'first' or 'second'");
    assertThatThrownBy(() -> Seat.parse(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown seat 'null': expected 'first' or 'second'");
    for (Seat s : Seat.values()) {
      assertThat(Seat.parse(s.label())).isEqualTo(s);
    }
    assertThat(Seat.FIRST.label()).isEqualTo("first");
    assertThat(Seat.SECOND.label()).isEqualTo("second");
  }

  @Test
  void contextModes() {
    assertThat(ContextMode.REFLECTION_ONLY.reflects()).isTrue();
    assertThat(ContextMode.REFLECTION_ONLY.showsHistory()).isFalse();
    assertThat(ContextMode.HISTORY_AND_REFLECTION.reflects()).isTrue();
    assertThat(ContextMode.HISTORY_AND_REFLECTION.showsHistory()).isTrue();
    assertThat(ContextMode.HISTORY_ONLY.reflects()).isFalse();
    assertThat(ContextMode.HISTORY_ONLY.showsHistory()).isTrue();
    assertThat(ContextMode.NONE.reflects()).isFalse();
    assertThat(ContextMode.NONE.showsHistory()).isFalse();
    assertThat(ContextMode.values()).hasSize(4);
  }

  @Test
  void advantagesCheckLengths() {
    Advantages a = new Advantages(new double[] {1, 2}, new double[] {1, 1}, new double[] {0, 1}, 1, 2.0);
    assertThat(a.size()).isEqualTo(2);
    // printed and compared by content, not by the arrays' identities
    assertThat(a).hasToString("Advantages[values=[1.0, 2.0], episodeTerm=[1.0, 1.0], stepTerm=[0.0, 1.0],"
        + " stepGroupCount=1, meanStepGroupSize=2.0]");
    Advantages same = new Advantages(new double[] {1, 2}, new double[] {1, 1}, new double[] {0, 1}, 1, 2.0);
    assertThat(a).isEqualTo(same).hasSameHashCodeAs(same)
        .isNotEqualTo(new Advantages(new double[] {1, 3}, new double[] {1, 1}, new double[] {0, 1}, 1, 2.0));
    assertThatThrownBy(() -> new Advantages(new double[2], new double[3], new double[2], 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("advantage arrays differ in length: 2, 3, 2");
    assertThatThrownBy(() -> new Advantages(new double[2], new double[2], new double[1], 0, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("advantage arrays differ in length: 2, 2, 1");
  }

  @Test
  void scoredTurnValidates() {
    Turn t = TurnTest.full();
    ScoredTurn s = new ScoredTurn(t, "g", Seat.FIRST, 0.9, 1.0);
    assertThat(s.turn()).isSameAs(t);
    assertThatThrownBy(() -> new ScoredTurn(t, "g", Seat.FIRST, Double.NaN, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("stepReturn and episodeScore must be finite, got NaN and 0.0");
    assertThatThrownBy(() -> new ScoredTurn(t, "g", Seat.FIRST, 0, Double.NEGATIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-Infinity");
    assertThatThrownBy(() -> new ScoredTurn(null, "g", Seat.FIRST, 0, 0))
        .isInstanceOf(NullPointerException.class).hasMessage("turn");
    assertThatThrownBy(() -> new ScoredTurn(t, null, Seat.FIRST, 0, 0))
        .isInstanceOf(NullPointerException.class).hasMessage("groupId");
    assertThatThrownBy(() -> new ScoredTurn(t, "g", null, 0, 0))
        .isInstanceOf(NullPointerException.class).hasMessage("seat");
  }

  @Test
  void interfaceDefaults() {
    Opponent o = () -> "greedy";
    assertThat(o.description()).isEqualTo("greedy");
    LanguagePolicy p = new LanguagePolicy() {
      @Override
      public String name() {
        return "echo";
      }

      @Override
      public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
        return requests.stream().map(r -> Generation.ofText(r.prompt())).toList();
      }
    };
    try (p) {
      assertThat(p.generate(List.of(PolicyRequest.of("a"), PolicyRequest.of("b")), SamplingConfig.training(4)))
          .extracting(Generation::text).containsExactly("a", "b");
    }
  }
}
