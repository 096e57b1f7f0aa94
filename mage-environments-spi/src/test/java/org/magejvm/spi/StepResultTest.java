package org.magejvm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Outcome;

class StepResultTest {

  private static final AnchorKey ANCHOR = new AnchorKey(". . .", "random");

  private static StepResult result(double reward, boolean done, boolean won, boolean draw, boolean valid) {
    return new StepResult("obs", reward, done, won, draw, valid, 0, ANCHOR, "a", "");
  }

  @Test
  void acceptsConsistentResults() {
    StepResult win = result(1, true, true, false, true);
    assertThat(win.won()).isTrue();
    assertThat(win.done()).isTrue();
    assertThat(result(0, true, false, true, true).draw()).isTrue();
    assertThat(result(-1, true, false, false, true).done()).isTrue();
    assertThat(result(0.5, false, false, false, true).reward()).isEqualTo(0.5);
  }

  @Test
  void validBuildsALegalMove() {
    assertThat(StepResult.valid("obs", ANCHOR, "a").build())
        .isEqualTo(new StepResult("obs", 0, false, false, false, true, 0, ANCHOR, "a", ""));
    assertThat(StepResult.valid("obs", ANCHOR, "a").optReward(-0.1).build())
        .isEqualTo(new StepResult("obs", -0.1, false, false, false, true, 0, ANCHOR, "a", ""));
    assertThat(StepResult.valid("obs", ANCHOR, "a").optReward(10).optScore(1).optOutcome(Outcome.WON).build())
        .isEqualTo(new StepResult("obs", 10, true, true, false, true, 1, ANCHOR, "a", ""));
    assertThat(StepResult.valid("obs", ANCHOR, "a").optOutcome(Outcome.DRAW).build())
        .isEqualTo(new StepResult("obs", 0, true, false, true, true, 0, ANCHOR, "a", ""));
    assertThat(StepResult.valid("obs", ANCHOR, "a").optReward(-10).optScore(-1).optOutcome(Outcome.LOST).build())
        .isEqualTo(new StepResult("obs", -10, true, false, false, true, -1, ANCHOR, "a", ""));
  }

  @Test
  void validRejectsATruncationAndBadNumbers() {
    assertThatThrownBy(() -> StepResult.valid("obs", ANCHOR, "a").optOutcome(Outcome.TRUNCATED))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the engine does that at the turn limit");
    assertThatThrownBy(() -> StepResult.valid("obs", ANCHOR, "a").optOutcome(null))
        .isInstanceOf(NullPointerException.class).hasMessage("outcome");
    assertThatThrownBy(() -> StepResult.valid("obs", ANCHOR, "a").optReward(Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("reward and score must be finite, got NaN and 0.0");
    assertThatThrownBy(() -> StepResult.valid("obs", null, "a").build())
        .isInstanceOf(NullPointerException.class).hasMessage("anchor");
  }

  @Test
  void rejectsWonAndDraw() {
    assertThatThrownBy(() -> result(1, true, true, true, true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a step cannot be both a win and a draw");
  }

  @Test
  void rejectsWinOrDrawWithoutDone() {
    assertThatThrownBy(() -> result(1, false, true, false, true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a won or drawn step must end the episode");
    assertThatThrownBy(() -> result(0, false, false, true, true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a won or drawn step must end the episode");
  }

  @Test
  void rejectsAnInvalidActionThatIsNotANoOp() {
    assertThatThrownBy(() -> result(-0.1, false, false, false, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an invalid action must be a no-op (reward 0, not done)");
    assertThatThrownBy(() -> result(0, true, false, false, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an invalid action must be a no-op (reward 0, not done)");
  }

  @Test
  void rejectsNonFiniteNumbers() {
    assertThatThrownBy(() -> new StepResult("o", Double.NaN, false, false, false, true, 0, ANCHOR, "", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("reward and score must be finite, got NaN and 0.0");
    assertThatThrownBy(() -> new StepResult("o", 0, false, false, false, true, Double.POSITIVE_INFINITY, ANCHOR,
        "", "")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("reward and score must be finite, got 0.0 and Infinity");
  }

  @Test
  void rejectsNullsAndNormalisesTexts() {
    assertThatThrownBy(() -> new StepResult(null, 0, false, false, false, true, 0, ANCHOR, "", ""))
        .isInstanceOf(NullPointerException.class).hasMessage("observation");
    assertThatThrownBy(() -> new StepResult("o", 0, false, false, false, true, 0, null, "", ""))
        .isInstanceOf(NullPointerException.class).hasMessage("anchor");
    StepResult r = new StepResult("o", 0, false, false, false, true, 0, ANCHOR, null, null);
    assertThat(r.action()).isEmpty();
    assertThat(r.message()).isEmpty();
  }

  @Test
  void invalidIsANoOp() {
    StepResult r = StepResult.invalid("X . .", -1, ANCHOR, "(9, 9)", "off the board");
    assertThat(r).isEqualTo(new StepResult("X . .", 0, false, false, false, false, -1, ANCHOR, "(9, 9)",
        "off the board"));
    assertThat(r.actionValid()).isFalse();
    assertThat(r.reward()).isZero();
    assertThat(r.done()).isFalse();
    assertThat(r.won()).isFalse();
    assertThat(r.draw()).isFalse();
    assertThat(r.score()).isEqualTo(-1);
    assertThat(StepResult.invalid("o", 0, ANCHOR, null, null).action()).isEmpty();
  }

  @Test
  void parsedAction() {
    ParsedAction<Integer> ok = ParsedAction.of(7, "(2, 1)");
    assertThat(ok.ok()).isTrue();
    assertThat(ok.action()).isEqualTo(7);
    assertThat(ok.asOptional()).contains(7);
    assertThat(ok.text()).isEqualTo("(2, 1)");
    assertThat(ok.error()).isEmpty();
    ParsedAction<Integer> bad = ParsedAction.failure("(9, 9)", "outside the board");
    assertThat(bad.ok()).isFalse();
    assertThat(bad.action()).isNull();
    assertThat(bad.asOptional()).isEmpty();
    assertThat(bad.text()).isEqualTo("(9, 9)");
    assertThat(bad.error()).isEqualTo("outside the board");
    ParsedAction<String> nulls = new ParsedAction<>(null, null, null);
    assertThat(nulls.text()).isEmpty();
    assertThat(nulls.error()).isEmpty();
    assertThat(ParsedAction.<String>failure(null, "no tag").text()).isEmpty();
    ActionParser<Integer> parser = response -> Tags.first(response, "action")
        .map(String::strip)
        .filter(s -> s.matches("[0-9]"))
        .map(s -> ParsedAction.of(Integer.valueOf(s), s))
        .orElseGet(() -> ParsedAction.failure(Tags.first(response, "action").orElse(""), "expected a digit"));
    assertThat(parser.parse("<action> 4 </action>")).isEqualTo(ParsedAction.of(4, "4"));
    assertThat(parser.parse("<action>x</action>")).isEqualTo(ParsedAction.failure("x", "expected a digit"));
  }
}
