package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GenerationTest {

  @Test
  void ofTextHasNoTokens() {
    Generation g = Generation.ofText("<action>(1, 1)</action>");
    assertThat(g.text()).isEqualTo("<action>(1, 1)</action>");
    assertThat(g.promptTokenIds()).isEmpty();
    assertThat(g.responseTokenIds()).isEmpty();
    assertThat(g.logProbs()).isEmpty();
    assertThat(g.finishReason()).isEqualTo(FinishReason.STOP);
  }

  @Test
  void arraysAreCopiedOnTheWayIn() {
    int[] prompt = {1, 2};
    int[] response = {3, 4, 5};
    float[] lp = {-1f, -2f, -3f};
    Generation g = new Generation("t", prompt, response, lp, FinishReason.LENGTH);
    prompt[0] = 9;
    response[0] = 9;
    lp[0] = 9f;
    assertThat(g.promptTokenIds()).containsExactly(1, 2);
    assertThat(g.responseTokenIds()).containsExactly(3, 4, 5);
    assertThat(g.logProbs()).containsExactly(-1f, -2f, -3f);
    assertThat(g.finishReason()).isEqualTo(FinishReason.LENGTH);
  }

  @Test
  void rejectsLogProbsOfAnotherLength() {
    assertThatThrownBy(() -> new Generation("t", null, new int[] {1, 2}, new float[] {-1f}, FinishReason.STOP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("logProbs has 1 entries for 2 response tokens");
    assertThatThrownBy(() -> new Generation("t", null, null, new float[] {-1f}, FinishReason.STOP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("logProbs has 1 entries for 0 response tokens");
    // tokens without log-probs are fine
    assertThat(new Generation("t", null, new int[] {1}, null, FinishReason.STOP).logProbs()).isEmpty();
  }

  @Test
  void rejectsNulls() {
    assertThatThrownBy(() -> new Generation(null, null, null, null, FinishReason.STOP))
        .isInstanceOf(NullPointerException.class).hasMessage("text");
    assertThatThrownBy(() -> new Generation("t", null, null, null, null))
        .isInstanceOf(NullPointerException.class).hasMessage("finishReason");
  }

  @Test
  void policyRequestOfIsAPlainPlayRequest() {
    PolicyRequest r = PolicyRequest.of("hello");
    assertThat(r.prompt()).isEqualTo("hello");
    assertThat(r.phase()).isEqualTo(Phase.PLAY);
    assertThat(r.workerKey()).isEmpty();
    assertThat(r.episodeIndex()).isZero();
    assertThat(r.turnIndex()).isZero();
    assertThat(r.legalActions()).isEmpty();
    assertThat(r.state()).isNull();
    assertThat(r.pastEpisodes()).isEmpty();
  }

  @Test
  void policyRequestCopiesItsListsAndValidates() {
    List<String> legal = new ArrayList<>(List.of("(1, 1)", "(2, 2)"));
    List<Episode> past = new ArrayList<>(List.of(new Episode(0, List.of(), Outcome.LOST, 0, -1)));
    Object state = new int[] {0, 1};
    PolicyRequest r = new PolicyRequest("p", Phase.REFLECT, "g/1", 1, 0, legal, state, past);
    legal.clear();
    past.clear();
    assertThat(r.legalActions()).containsExactly("(1, 1)", "(2, 2)");
    assertThat(r.pastEpisodes()).hasSize(1);
    assertThat(r.state()).isSameAs(state);
    assertThatThrownBy(() -> r.legalActions().add("x")).isInstanceOf(UnsupportedOperationException.class);
    PolicyRequest nulls = new PolicyRequest("p", Phase.PLAY, "k", 0, 0, null, null, null);
    assertThat(nulls.legalActions()).isEmpty();
    assertThat(nulls.pastEpisodes()).isEmpty();
    assertThatThrownBy(() -> PolicyRequest.of(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("prompt");
    assertThatThrownBy(() -> new PolicyRequest("p", null, "k", 0, 0, null, null, null))
        .isInstanceOf(NullPointerException.class).hasMessage("phase");
    assertThatThrownBy(() -> new PolicyRequest("p", Phase.PLAY, null, 0, 0, null, null, null))
        .isInstanceOf(NullPointerException.class).hasMessage("workerKey");
  }
}
