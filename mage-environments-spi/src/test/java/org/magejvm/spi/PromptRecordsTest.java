package org.magejvm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Outcome;

/** HistoryStep, PastEpisode, PromptContext, EnvironmentDefaults and GameText validation. */
class PromptRecordsTest {

  @Test
  void historyStep() {
    HistoryStep s = new HistoryStep(1, "(1, 1)", true, "X . .");
    assertThat(s.withoutObservation()).isEqualTo(new HistoryStep(1, "(1, 1)", true, null));
    HistoryStep bare = new HistoryStep(2, "", false, null);
    assertThat(bare.withoutObservation()).isSameAs(bare);
    assertThatThrownBy(() -> new HistoryStep(0, "a", true, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step numbers start at 1, got 0");
    assertThatThrownBy(() -> new HistoryStep(-2, "a", true, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step numbers start at 1, got -2");
    assertThatThrownBy(() -> new HistoryStep(1, null, true, null)).isInstanceOf(NullPointerException.class)
        .hasMessage("action");
  }

  @Test
  void pastEpisode() {
    List<HistoryStep> steps = new ArrayList<>(List.of(new HistoryStep(1, "a", true, null)));
    PastEpisode p = new PastEpisode(0, steps, Outcome.LOST, null);
    steps.clear();
    assertThat(p.steps()).hasSize(1);
    assertThat(p.reflection()).isEmpty();
    assertThatThrownBy(() -> p.steps().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> new PastEpisode(0, List.of(), null, "r")).isInstanceOf(NullPointerException.class)
        .hasMessage("outcome");
    assertThatThrownBy(() -> new PastEpisode(-1, List.of(), Outcome.LOST, "r"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("episode index must be >= 0, got -1");
    assertThatThrownBy(() -> new PastEpisode(0, null, Outcome.LOST, "r")).isInstanceOf(NullPointerException.class);
  }

  @Test
  void promptContext() {
    List<HistoryStep> steps = new ArrayList<>(List.of(new HistoryStep(1, "a", true, null)));
    List<PastEpisode> past = new ArrayList<>(List.of(new PastEpisode(0, List.of(), Outcome.DRAW, "r")));
    PromptContext c = new PromptContext(PromptStyle.COMPACT, "start", 1, past, steps, null);
    steps.clear();
    past.clear();
    assertThat(c.steps()).hasSize(1);
    assertThat(c.pastEpisodes()).hasSize(1);
    assertThat(c.outcome()).isNull();
    assertThatThrownBy(() -> c.steps().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> new PromptContext(PromptStyle.VERBOSE, "s", -1, List.of(), List.of(), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("episodeIndex must be >= 0, got -1");
    assertThatThrownBy(() -> new PromptContext(null, "s", 0, List.of(), List.of(), null))
        .isInstanceOf(NullPointerException.class).hasMessage("style");
    assertThatThrownBy(() -> new PromptContext(PromptStyle.VERBOSE, null, 0, List.of(), List.of(), null))
        .isInstanceOf(NullPointerException.class).hasMessage("initialObservation");
  }

  @Test
  void environmentDefaults() {
    EnvironmentDefaults d = EnvironmentDefaults.builder()
        .setMaxTurns(9).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
        .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(1024)
        .build();
    assertThat(d).isEqualTo(new EnvironmentDefaults(9, 3, 0.95, 0.6, 0.5, 1.0, 1024));
    assertThat(d.maxTurns()).isEqualTo(9);
    assertThat(d.episodes()).isEqualTo(3);
    assertThat(d.stepGamma()).isEqualTo(0.95);
    assertThat(d.trajGamma()).isEqualTo(0.6);
    assertThat(d.invalidPenalty()).isEqualTo(0.5);
    assertThat(d.lengthPenalty()).isEqualTo(1.0);
    assertThat(d.maxResponseTokens()).isEqualTo(1024);
    assertThat(new EnvironmentDefaults(1, 1, 0, 1, 0, 0, 1)).isNotNull();
  }

  @Test
  void environmentDefaultsBuilderNeedsEveryValueAndValidates() {
    assertThatThrownBy(() -> EnvironmentDefaults.builder().setMaxTurns(9).setTrajGamma(0.6).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("EnvironmentDefaults needs every value; not set: episodes, stepGamma, invalidPenalty,"
            + " lengthPenalty, maxResponseTokens");
    EnvironmentDefaults d = EnvironmentDefaults.builder()
        .setMaxTurns(9).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
        .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(1024)
        .build();
    assertThat(d.toBuilder().setEpisodes(1).build())
        .isEqualTo(new EnvironmentDefaults(9, 1, 0.95, 0.6, 0.5, 1.0, 1024));
    assertThat(d.toBuilder().build()).isEqualTo(d);
    assertThatThrownBy(() -> d.toBuilder().setStepGamma(1.5).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("discounts must lie in [0, 1], got 1.5, 0.6");
  }

  @Test
  void environmentDefaultsRejectsBadValues() {
    assertThatThrownBy(() -> new EnvironmentDefaults(0, 3, 0.95, 0.6, 0.5, 1, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxTurns, episodes and maxResponseTokens must be >= 1, got 0, 3 and 1024");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 0, 0.95, 0.6, 0.5, 1, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxTurns, episodes and maxResponseTokens must be >= 1, got 9, 0 and 1024");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, 0.95, 0.6, 0.5, 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxTurns, episodes and maxResponseTokens must be >= 1, got 9, 3 and 0");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, 1.01, 0.6, 0.5, 1, 1024))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("discounts must lie in [0, 1], got 1.01, 0.6");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, 0.95, -0.1, 0.5, 1, 1024))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("discounts must lie in [0, 1], got 0.95, -0.1");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, Double.NaN, 0.6, 0.5, 1, 1024))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("discounts must lie in [0, 1], got NaN, 0.6");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, 0.95, 0.6, -0.5, 1, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("penalties must be finite and >= 0, got -0.5 and 1.0");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, 0.95, 0.6, 0.5, Double.NaN, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("penalties must be finite and >= 0, got 0.5 and NaN");
    // an infinite penalty would turn every episode score into -Infinity
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, 0.95, 0.6, Double.POSITIVE_INFINITY, 1, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("penalties must be finite and >= 0, got Infinity and 1.0");
    assertThatThrownBy(() -> new EnvironmentDefaults(9, 3, 0.95, 0.6, 0.5, Double.POSITIVE_INFINITY, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("penalties must be finite and >= 0, got 0.5 and Infinity");
  }

  @Test
  void gameTextRequiresItsSentences() {
    assertThatThrownBy(() -> new GameText(null, "r", "r", "g", "a", "c", "ca", "", "board"))
        .isInstanceOf(NullPointerException.class).hasMessage("name");
    assertThatThrownBy(() -> new GameText("n", "r", "r", "g", "a", "c", null, "", "board"))
        .isInstanceOf(NullPointerException.class).hasMessage("compactActionFormat");
    assertThatThrownBy(() -> new GameText("n", "r", "r", "g", "a", "c", "ca", "", null))
        .isInstanceOf(NullPointerException.class).hasMessage("stateNoun");
  }

  @Test
  void gameTextDefaults() {
    GameText nine = new GameText("n", "r", "r", "g", "a", "c", "ca", null, "hand");
    assertThat(nine.historyNote()).isEmpty();
    assertThat(nine.replayNote()).isEqualTo("You will play again from the same starting hand.");
    assertThat(nine.reflectionExample())
        .isEqualTo("I lost because I ignored the threat on the last move; next time I will block it first.");
    GameText blank = new GameText("n", "r", "r", "g", "a", "c", "ca", "", "room", "  ", "\n");
    assertThat(blank.replayNote()).isEqualTo("You will play again from the same starting room.");
    assertThat(blank.reflectionExample()).isEqualTo(nine.reflectionExample());
    GameText own = new GameText("n", "r", "r", "g", "a", "c", "ca", "", "room", "Same room.", "Push left.");
    assertThat(own.replayNote()).isEqualTo("Same room.");
    assertThat(own.reflectionExample()).isEqualTo("Push left.");
  }
}
