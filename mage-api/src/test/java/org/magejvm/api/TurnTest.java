package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class TurnTest {

  /** A turn with every field set to a non-default value. */
  static Turn full() {
    return Turn.builder()
        .setPhase(Phase.PLAY)
        .setEpisodeIndex(2)
        .setTurnIndex(3)
        .setPrompt("the prompt")
        .setResponse("<action>(1, 2)</action>")
        .optPromptTokenIds(new int[] {1, 2, 3})
        .optResponseTokenIds(new int[] {7, 8})
        .optLogProbs(new float[] {-0.5f, -1.25f})
        .optAction("(1, 2)")
        .optReward(0.5)
        .optValid(true)
        .setAnchor(new AnchorKey("X . .", "mcts-100"))
        .optOpponentId("mcts-100")
        .optDone(true)
        .optWon(true)
        .optDraw(false)
        .optScore(1.0)
        .optResponseTruncated(true)
        .build();
  }

  private static Turn.Builder minimal() {
    return Turn.builder().setPrompt("p").setResponse("r").setAnchor(new AnchorKey("s", ""));
  }

  @Test
  void builderDefaultsArePlayPhaseIndicesZeroAndEmptyArrays() {
    Turn t = minimal().build();
    assertThat(t.phase()).isEqualTo(Phase.PLAY);
    assertThat(t.isReflection()).isFalse();
    assertThat(t.episodeIndex()).isZero();
    assertThat(t.turnIndex()).isZero();
    assertThat(t.promptTokenIds()).isEmpty();
    assertThat(t.responseTokenIds()).isEmpty();
    assertThat(t.logProbs()).isEmpty();
    assertThat(t.responseLength()).isZero();
    assertThat(t.action()).isEmpty();
    assertThat(t.reward()).isZero();
    assertThat(t.valid()).isTrue();
    assertThat(t.opponentId()).isEmpty();
    assertThat(t.done()).isFalse();
    assertThat(t.won()).isFalse();
    assertThat(t.draw()).isFalse();
    assertThat(t.score()).isZero();
    assertThat(t.responseTruncated()).isFalse();
  }

  @Test
  void nullActionBecomesEmpty() {
    assertThat(minimal().optAction(null).build().action()).isEmpty();
  }

  @Test
  void requiredPartsMustBeSet() {
    assertThatThrownBy(() -> Turn.builder().setResponse("r").setAnchor(new AnchorKey("s", "")).build())
        .isInstanceOf(NullPointerException.class).hasMessage("prompt");
    assertThatThrownBy(() -> Turn.builder().setPrompt("p").setAnchor(new AnchorKey("s", "")).build())
        .isInstanceOf(NullPointerException.class).hasMessage("response");
    assertThatThrownBy(() -> Turn.builder().setPrompt("p").setResponse("r").build())
        .isInstanceOf(NullPointerException.class).hasMessage("anchor");
    assertThatThrownBy(() -> minimal().setPhase(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("phase");
    assertThatThrownBy(() -> minimal().optOpponentId(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("opponentId");
  }

  @Test
  void rejectsNegativeIndices() {
    assertThatThrownBy(() -> minimal().setEpisodeIndex(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("episodeIndex and turnIndex must be >= 0, got -1 and 0");
    assertThatThrownBy(() -> minimal().setTurnIndex(-4).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("episodeIndex and turnIndex must be >= 0, got 0 and -4");
  }

  @Test
  void rejectsLogProbsOfAnotherLength() {
    assertThatThrownBy(() -> minimal().optResponseTokenIds(new int[] {1, 2, 3}).optLogProbs(new float[] {-1f})
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("logProbs has 1 entries but the response has 3 tokens");
    // log-probs without tokens are as wrong as too few
    assertThatThrownBy(() -> minimal().optLogProbs(new float[] {-1f}).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the response has 0 tokens");
    // tokens without log-probs are allowed (log-probs unknown)
    assertThat(minimal().optResponseTokenIds(new int[] {4, 5}).build().responseLength()).isEqualTo(2);
  }

  @Test
  void rejectsNonFiniteReward() {
    for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      assertThatThrownBy(() -> minimal().optReward(bad).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("reward must be finite, got " + bad);
    }
  }

  @Test
  void arraysAreCopiedOnTheWayIn() {
    int[] prompt = {1, 2, 3};
    int[] response = {7, 8};
    float[] lp = {-0.5f, -1.25f};
    Turn t = minimal().optPromptTokenIds(prompt).optResponseTokenIds(response).optLogProbs(lp).build();
    prompt[0] = 99;
    response[0] = 99;
    lp[0] = 99f;
    assertThat(t.promptTokenIds()).containsExactly(1, 2, 3);
    assertThat(t.responseTokenIds()).containsExactly(7, 8);
    assertThat(t.logProbs()).containsExactly(-0.5f, -1.25f);
  }

  @Test
  void arraysAreCopiedOnTheWayOut() {
    Turn t = full();
    t.promptTokenIds()[0] = 99;
    t.responseTokenIds()[0] = 99;
    t.logProbs()[0] = 99f;
    assertThat(t.promptTokenIds()).containsExactly(1, 2, 3);
    assertThat(t.responseTokenIds()).containsExactly(7, 8);
    assertThat(t.logProbs()).containsExactly(-0.5f, -1.25f);
    assertThat(t.promptTokenIds()).isNotSameAs(t.promptTokenIds());
  }

  @Test
  void equalsAndHashCodeCompareArrayContents() {
    Turn a = full();
    Turn b = full();
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isEqualTo(a).isNotEqualTo(null).isNotEqualTo("a turn");
  }

  @Test
  void everyFieldTakesPartInEquality() {
    Turn base = full();
    List<UnaryOperator<Turn.Builder>> changes = List.of(
        b -> b.setPhase(Phase.REFLECT),
        b -> b.setEpisodeIndex(5),
        b -> b.setTurnIndex(0),
        b -> b.setPrompt("other prompt"),
        b -> b.setResponse("other response"),
        b -> b.optPromptTokenIds(new int[] {1, 2, 4}),
        b -> b.optResponseTokenIds(new int[] {7, 9}),
        b -> b.optLogProbs(new float[] {-0.5f, -1.5f}),
        b -> b.optAction("(2, 2)"),
        b -> b.optReward(-0.5),
        b -> b.optValid(false),
        b -> b.setAnchor(new AnchorKey("X . O", "mcts-100")),
        b -> b.optOpponentId("random"),
        b -> b.optDone(false),
        b -> b.optWon(false),
        b -> b.optDraw(true),
        b -> b.optScore(-1.0),
        b -> b.optResponseTruncated(false));
    for (int i = 0; i < changes.size(); i++) {
      Turn changed = changes.get(i).apply(base.toBuilder()).build();
      assertThat(changed).as("change %d", i).isNotEqualTo(base);
      assertThat(base).as("change %d", i).isNotEqualTo(changed);
      assertThat(changed.hashCode()).as("change %d", i).isNotEqualTo(base.hashCode());
    }
  }

  @Test
  void toBuilderRoundTripsEveryField() {
    Turn t = full();
    Turn copy = t.toBuilder().build();
    assertThat(copy).isEqualTo(t).isNotSameAs(t);
    assertThat(copy.phase()).isEqualTo(Phase.PLAY);
    assertThat(copy.episodeIndex()).isEqualTo(2);
    assertThat(copy.turnIndex()).isEqualTo(3);
    assertThat(copy.prompt()).isEqualTo("the prompt");
    assertThat(copy.response()).isEqualTo("<action>(1, 2)</action>");
    assertThat(copy.promptTokenIds()).containsExactly(1, 2, 3);
    assertThat(copy.responseTokenIds()).containsExactly(7, 8);
    assertThat(copy.logProbs()).containsExactly(-0.5f, -1.25f);
    assertThat(copy.action()).isEqualTo("(1, 2)");
    assertThat(copy.reward()).isEqualTo(0.5);
    assertThat(copy.valid()).isTrue();
    assertThat(copy.anchor()).isEqualTo(new AnchorKey("X . .", "mcts-100"));
    assertThat(copy.opponentId()).isEqualTo("mcts-100");
    assertThat(copy.done()).isTrue();
    assertThat(copy.won()).isTrue();
    assertThat(copy.draw()).isFalse();
    assertThat(copy.score()).isEqualTo(1.0);
    assertThat(copy.responseTruncated()).isTrue();
    assertThat(copy.responseLength()).isEqualTo(2);
    // a change through the builder leaves the original alone
    Turn changed = t.toBuilder().optReward(-1).build();
    assertThat(changed.reward()).isEqualTo(-1);
    assertThat(t.reward()).isEqualTo(0.5);
  }

  @Test
  void reflectionTurn() {
    Turn r = minimal().setPhase(Phase.REFLECT).setEpisodeIndex(1).setAnchor(AnchorKey.reflection("cfr")).build();
    assertThat(r.isReflection()).isTrue();
    assertThat(r.anchor().isReflection()).isTrue();
  }

  @Test
  void toStringNamesTheEssentials() {
    assertThat(full().toString()).isEqualTo("Turn[PLAY ep=2 t=3 action='(1, 2)' reward=0.5 valid=true done=true"
        + " won=true draw=false opponent=mcts-100 responseTokens=2]");
  }

  @Test
  void nonFiniteScoreIsRejected() {
    assertThatThrownBy(() -> Turn.builder().setPrompt("p").setResponse("r")
        .setAnchor(new AnchorKey("s", "")).optScore(Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("score must be finite");
  }
}
