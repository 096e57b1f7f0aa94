package org.magejvm.impl.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Episode;
import org.magejvm.api.FinishReason;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Outcome;
import org.magejvm.api.Phase;
import org.magejvm.api.ReflectionMemory;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.junit.jupiter.api.Test;

class EvaluationMetricsTest {

  private int counter;

  /** A meta-episode with one play turn per episode and a reflection before each later one. */
  private MetaEpisode meta(String opponent, Outcome[] outcomes, double[] scores, boolean tokens) {
    List<Turn> turns = new ArrayList<>();
    List<Episode> episodes = new ArrayList<>();
    for (int k = 0; k < outcomes.length; k++) {
      if (k > 0) {
        turns.add(Turn.builder().setPhase(Phase.REFLECT).setEpisodeIndex(k).setPrompt("p").setResponse("rr")
            .optValid(k % 2 == 0).setAnchor(AnchorKey.reflection(opponent)).optOpponentId(opponent).build());
      }
      Turn play = Turn.builder().setEpisodeIndex(k).setPrompt("p").setResponse("abcd")
          .optValid(k != 1).optResponseTokenIds(tokens ? new int[] {1, 2, 3, 4, 5, 6} : null)
          .optResponseTruncated(tokens && k == 0)
          .setAnchor(new AnchorKey("s", opponent)).optOpponentId(opponent).optDone(true)
          .optWon(outcomes[k] == Outcome.WON).optDraw(outcomes[k] == Outcome.DRAW).build();
      turns.add(play);
      episodes.add(new Episode(k, List.of(play), outcomes[k], 0, scores[k]));
    }
    List<String> reflections = new ArrayList<>();
    for (int k = 1; k < outcomes.length; k++) {
      reflections.add(k % 2 == 0 ? "remark " + k : "");
    }
    return new MetaEpisode("toy", "g" + counter, 0, counter++, opponent, Seat.FIRST, turns, episodes,
        ReflectionMemory.of(reflections));
  }

  private static Outcome[] o(Outcome... outcomes) {
    return outcomes;
  }

  private List<MetaEpisode> sample(boolean tokens) {
    return List.of(
        meta("x", o(Outcome.LOST, Outcome.LOST, Outcome.WON), new double[] {-1, -1, 1}, tokens),
        meta("x", o(Outcome.WON), new double[] {2}, tokens),
        meta("y", o(Outcome.DRAW, Outcome.LOST, Outcome.DRAW), new double[] {0, -2, 0}, tokens),
        meta("y", o(Outcome.LOST, Outcome.DRAW, Outcome.TRUNCATED), new double[] {-1, 0, 0}, tokens));
  }

  private static void assertList(List<Double> actual, double... expected) {
    assertThat(actual).hasSize(expected.length);
    for (int i = 0; i < expected.length; i++) {
      assertThat(actual.get(i)).as("entry %d", i).isCloseTo(expected[i], within(1e-12));
    }
  }

  @Test
  void computesCumulativeFirstWinAndScoreRates() {
    EvaluationMetrics m = EvaluationMetrics.of(sample(false), 3);
    OutcomeRates r = m.overall();
    assertThat(r.metaEpisodes()).isEqualTo(4);
    assertList(r.successRate(), 0.25, 0.25, 0.5);
    assertList(r.drawRate(), 0.25, 0.5, 0.5);
    assertList(r.successAndDrawRate(), 0.5, 0.75, 1.0);
    assertList(r.independentSuccessRate(), 0.25, 0, 0.25);
    assertList(r.independentDrawRate(), 0.25, 0.25, 0.25);
    // best score so far: x1 -1,-1,1; x2 2,2,2; y1 0,0,0; y2 -1,0,0
    assertList(r.score(), 0, 0.25, 0.75);
    // per attempt, among the meta-episodes that reached it: x2 stopped after its first-attempt win
    assertList(r.reached(), 1, 0.75, 0.75);
    assertList(r.perAttemptSuccess(), 0.25, 0, 1 / 3.0);
    assertList(r.perAttemptScore(), 0, -1, 1 / 3.0);
    assertList(m.byOpponent().get("x").perAttemptSuccess(), 0.5, 0, 1);
    assertThat(m.byOpponent()).containsOnlyKeys("x", "y");
    assertList(m.byOpponent().get("x").successRate(), 0.5, 0.5, 1.0);
    assertList(m.byOpponent().get("y").successRate(), 0, 0, 0);
    assertList(m.byOpponent().get("y").successAndDrawRate(), 0.5, 1.0, 1.0);
    // 10 play turns (the three in episode 1 invalid), 6 reflections (the three before episode 1 invalid)
    assertThat(m.playTurns()).isEqualTo(10);
    assertThat(m.reflectionTurns()).isEqualTo(6);
    assertThat(m.invalidActionRate()).isCloseTo(3 / 10.0, within(1e-12));
    assertThat(m.reflectionInvalidRate()).isCloseTo(3 / 6.0, within(1e-12));
    assertThat(m.meanResponseChars()).isCloseTo((10 * 4 + 6 * 2) / 16.0, within(1e-12));
    assertThat(m.meanResponseTokens()).isEmpty();
    assertThat(m.truncatedResponseRate()).isZero();
  }

  @Test
  void flattensUnderStableKeys() {
    Map<String, Number> map = EvaluationMetrics.of(sample(true), 3).toMap();
    List<String> keys = new ArrayList<>(map.keySet());
    assertThat(keys.subList(0, 5)).containsExactly("meta_episodes", "episodes", "success_rate[0]",
        "success_rate[1]", "success_rate[2]");
    assertThat(keys).contains("draw_rate[2]", "success_and_draw_rate[0]", "independent_success_rate[1]",
        "independent_draw_rate[2]", "score[2]", "x/meta_episodes", "x/success_rate[2]", "y/score[0]",
        "y/independent_success_rate[0]", "play_turns", "reflection_turns", "invalid_action_rate",
        "reflection_invalid_rate", "response_chars_mean", "response_tokens_mean", "truncated_response_rate");
    assertThat(keys).contains("attempt_reached[1]", "per_attempt_success[2]", "per_attempt_score[0]",
        "x/per_attempt_success[1]");
    assertThat(keys).hasSize(2 + 27 + 2 * (1 + 27) + 7);
    assertThat(keys.indexOf("x/meta_episodes")).isLessThan(keys.indexOf("y/meta_episodes"));
    assertThat(map.get("meta_episodes")).isEqualTo(4);
    assertThat(map.get("x/success_rate[2]")).isEqualTo(1.0);
    assertThat(map.get("response_tokens_mean").doubleValue()).isCloseTo(10 * 6 / 16.0, within(1e-12));
    assertThat(map.get("truncated_response_rate").doubleValue()).isCloseTo(4 / 16.0, within(1e-12));
  }

  @Test
  void singlePlayerMetricsHaveNoOpponentKeys() {
    MetaEpisode solo = meta("", o(Outcome.WON), new double[] {1}, false);
    EvaluationMetrics m = EvaluationMetrics.of(List.of(solo), 2);
    assertThat(m.byOpponent()).isEmpty();
    assertList(m.overall().successRate(), 1, 1);
    assertList(m.overall().score(), 1, 1);
    assertThat(m.toMap().keySet()).noneMatch(k -> k.contains("/"));
    // the second attempt was never played: its per-attempt rates are undefined and left out of the map
    assertThat(m.overall().perAttemptSuccess().get(1)).isNaN();
    assertThat(m.toMap()).containsEntry("attempt_reached[1]", 0.0).containsEntry("per_attempt_success[0]", 1.0)
        .doesNotContainKey("per_attempt_success[1]").doesNotContainKey("per_attempt_score[1]");
  }

  @Test
  void rejectsInconsistentInput() {
    assertThatThrownBy(() -> EvaluationMetrics.of(List.of(), 3)).hasMessageContaining("no meta-episodes");
    MetaEpisode three = meta("x", o(Outcome.LOST, Outcome.LOST, Outcome.LOST), new double[] {0, 0, 0}, false);
    assertThatThrownBy(() -> EvaluationMetrics.of(List.of(three), 2))
        .hasMessageContaining("has 3 episodes").hasMessageContaining("expected 1 to 2");
  }
}
