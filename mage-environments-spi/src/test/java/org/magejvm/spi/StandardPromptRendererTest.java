package org.magejvm.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Outcome;

class StandardPromptRendererTest {

  /** A tiny game; some sentences carry stray whitespace, which the renderer strips. */
  static final GameText COIN = new GameText(
      "Coin Row",
      "You play Coin Row.\n",
      "  Pick a coin from either end of the row.",
      "Collect more than half of the value.",
      "Answer like <action>left</action>.",
      "Coin Row: take coins from either end; collect over half.",
      "Reply <action>left</action> or <action>right</action>.\n",
      "Only your own picks are listed.",
      "row",
      "You will face the same row again.",
      "Greed on the left cost me; take the larger end.");

  private static final String START = "1 5 2\n";
  private static final StandardPromptRenderer R = new StandardPromptRenderer(COIN);

  private static final PastEpisode LOST_WITH_STEPS = new PastEpisode(0, List.of(
      new HistoryStep(1, "left", true, null),
      new HistoryStep(2, "", false, null)), Outcome.LOST, "Take the 5.\n");
  private static final List<HistoryStep> CURRENT = List.of(
      new HistoryStep(1, "right", true, null),
      new HistoryStep(2, "left", true, "5"));
  private static final List<HistoryStep> FINISHED = List.of(
      new HistoryStep(1, "left", true, "5 2"),
      new HistoryStep(2, "right", true, "5"));

  private static PromptContext play(PromptStyle style, int episode, List<PastEpisode> past, List<HistoryStep> s) {
    return new PromptContext(style, START, episode, past, s, null);
  }

  private static PromptContext reflect(PromptStyle style, int episode, List<HistoryStep> s, Outcome outcome) {
    return new PromptContext(style, START, episode, List.of(), s, outcome);
  }

  private static final String VERBOSE_HEADER = "You play Coin Row.\n\n"
      + "# Rules\nPick a coin from either end of the row.\n\n"
      + "# Goal\nCollect more than half of the value.\n\n";

  @Test
  void gameTextIsKept() {
    assertThat(R.gameText()).isSameAs(COIN);
  }

  @Test
  void compactPlayPrompt() {
    String prompt = R.renderPlay(play(PromptStyle.COMPACT, 1, List.of(LOST_WITH_STEPS), CURRENT));
    assertThat(prompt).isEqualTo(""
        + "Coin Row: take coins from either end; collect over half.\n"
        + "Start:\n"
        + "1 5 2\n"
        + "Try 1 lost: left, (no action found), but it is invalid\n"
        + "Lesson: Take the 5.\n"
        + "Try 2 now.\n"
        + "Moves:\n"
        + "1. right\n"
        + "2. left\n"
        + "5\n"
        + "Reply <action>left</action> or <action>right</action>.");
  }

  @Test
  void compactFirstPlayPromptIsRulesStartAndFormat() {
    assertThat(R.renderPlay(play(PromptStyle.COMPACT, 0, List.of(), List.of()))).isEqualTo(""
        + "Coin Row: take coins from either end; collect over half.\n"
        + "Start:\n"
        + "1 5 2\n"
        + "Reply <action>left</action> or <action>right</action>.");
  }

  @Test
  void compactPastEpisodesWithoutStepsOrReflections() {
    List<PastEpisode> past = List.of(
        new PastEpisode(0, List.of(), Outcome.DRAW, ""),
        new PastEpisode(1, List.of(), Outcome.TRUNCATED, "Be quicker."),
        new PastEpisode(2, List.of(new HistoryStep(1, "left", true, "obs not shown")), Outcome.WON, null));
    assertThat(R.renderPlay(play(PromptStyle.COMPACT, 3, past, List.of()))).isEqualTo(""
        + "Coin Row: take coins from either end; collect over half.\n"
        + "Start:\n"
        + "1 5 2\n"
        + "Try 1 draw\n"
        + "Try 2 truncated\n"
        + "Lesson: Be quicker.\n"
        + "Try 3 won: left\n"
        + "Try 4 now.\n"
        + "Reply <action>left</action> or <action>right</action>.");
  }

  @Test
  void compactReflectPrompt() {
    assertThat(R.renderReflect(reflect(PromptStyle.COMPACT, 0, FINISHED, Outcome.LOST))).isEqualTo(""
        + "Coin Row: take coins from either end; collect over half.\n"
        + "Start:\n"
        + "1 5 2\n"
        + "Try 1 lost:\n"
        + "1. left\n"
        + "5 2\n"
        + "2. right\n"
        + "5\n"
        + "Write a short lesson for the next try inside <remark></remark>.");
  }

  @Test
  void compactOutcomeWords() {
    assertThat(R.renderReflect(reflect(PromptStyle.COMPACT, 2, List.of(), Outcome.DRAW)))
        .contains("\nTry 3 draw:\n");
    assertThat(R.renderReflect(reflect(PromptStyle.COMPACT, 0, List.of(), Outcome.WON)))
        .contains("\nTry 1 won:\n");
    assertThat(R.renderReflect(reflect(PromptStyle.COMPACT, 0, List.of(), Outcome.TRUNCATED)))
        .contains("\nTry 1 truncated:\n");
    assertThat(R.renderReflect(reflect(PromptStyle.COMPACT, 0, List.of(), null))).contains("\nTry 1 failed:\n");
  }

  @Test
  void verbosePlayPrompt() {
    String prompt = R.renderPlay(play(PromptStyle.VERBOSE, 1, List.of(LOST_WITH_STEPS), CURRENT));
    assertThat(prompt).isEqualTo(VERBOSE_HEADER
        + "# Observation\n"
        + "The row at the start of every attempt:\n"
        + "1 5 2\n"
        + "\n"
        + "# Earlier attempts\n"
        + "Attempt #1 ended without success. Your moves:\n"
        + "Step 1 - Action: left\n"
        + "Step 2 - Action: (no action found), but it is invalid\n"
        + "The lesson you wrote after it:\n"
        + "Take the 5.\n"
        + "\n"
        + "# Current attempt\n"
        + "This is attempt #2. Moves so far:\n"
        + "Step 1 - Action: right\n"
        + "Step 2 - Action: left\n"
        + "Observation:\n"
        + "5\n"
        + "\n"
        + "Only your own picks are listed.\n"
        + "\n"
        + "# Your answer\n"
        + "Think step by step about the current row and what you have learned, then give your action."
        + " Answer like <action>left</action>.");
  }

  @Test
  void verboseFirstPlayPromptHasNoContextBlocks() {
    String prompt = R.renderPlay(play(PromptStyle.VERBOSE, 0, List.of(), List.of()));
    assertThat(prompt).isEqualTo(VERBOSE_HEADER
        + "# Observation\n"
        + "The row at the start of every attempt:\n"
        + "1 5 2\n"
        + "\n"
        + "# Your answer\n"
        + "Think step by step about the current row and what you have learned, then give your action."
        + " Answer like <action>left</action>.");
    assertThat(prompt).doesNotContain("Current attempt").doesNotContain("Earlier attempts")
        .doesNotContain("Only your own picks");
  }

  @Test
  void verboseSectionsComeInOrder() {
    String prompt = R.renderPlay(play(PromptStyle.VERBOSE, 1, List.of(LOST_WITH_STEPS), CURRENT));
    assertThat(prompt).startsWith("You play Coin Row.\n\n# Rules\n");
    assertThat(prompt.indexOf("# Rules")).isLessThan(prompt.indexOf("# Goal"));
    assertThat(prompt.indexOf("# Goal")).isLessThan(prompt.indexOf("# Observation"));
    assertThat(prompt.indexOf("# Observation")).isLessThan(prompt.indexOf("# Earlier attempts"));
    assertThat(prompt.indexOf("# Earlier attempts")).isLessThan(prompt.indexOf("# Current attempt"));
    assertThat(prompt.indexOf("# Current attempt")).isLessThan(prompt.indexOf("Only your own picks"));
    assertThat(prompt.indexOf("Only your own picks")).isLessThan(prompt.indexOf("# Your answer"));
    String reflectPrompt = R.renderReflect(reflect(PromptStyle.VERBOSE, 0, FINISHED, Outcome.LOST));
    assertThat(reflectPrompt.indexOf("# Rules")).isLessThan(reflectPrompt.indexOf("# Goal"));
    assertThat(reflectPrompt.indexOf("# Goal")).isLessThan(reflectPrompt.indexOf("# Task"));
    assertThat(reflectPrompt.indexOf("# Task")).isLessThan(reflectPrompt.indexOf("# Past experience"));
    assertThat(reflectPrompt.indexOf("# Past experience")).isLessThan(reflectPrompt.indexOf("# Your answer"));
  }

  @Test
  void onlyTheGivenStepsAppear() {
    List<HistoryStep> window = List.of(new HistoryStep(3, "left", true, null), new HistoryStep(4, "right", true,
        "2"));
    String verbose = R.renderPlay(play(PromptStyle.VERBOSE, 0, List.of(), window));
    assertThat(verbose)
        .contains("# Moves so far\nStep 3 - Action: left\nStep 4 - Action: right\nObservation:\n2\n\n")
        .doesNotContain("Step 1").doesNotContain("Step 2").doesNotContain("# Current attempt");
    String compact = R.renderPlay(play(PromptStyle.COMPACT, 0, List.of(), window));
    assertThat(compact).contains("Moves:\n3. left\n4. right\n2\n").doesNotContain("1. ").doesNotContain("Try");
  }

  @Test
  void invalidAndEmptyActions() {
    List<HistoryStep> steps = List.of(
        new HistoryStep(1, "middle", false, null),
        new HistoryStep(2, "", true, null),
        new HistoryStep(3, "", false, null));
    String verbose = R.renderPlay(play(PromptStyle.VERBOSE, 0, List.of(), steps));
    assertThat(verbose).contains("Step 1 - Action: middle, but it is invalid\n"
        + "Step 2 - Action: (no action found)\n"
        + "Step 3 - Action: (no action found), but it is invalid\n");
    String compact = R.renderPlay(play(PromptStyle.COMPACT, 0, List.of(), steps));
    assertThat(compact).contains("1. middle, but it is invalid\n2. (no action found)\n"
        + "3. (no action found), but it is invalid\n");
  }

  @Test
  void trialNumbering() {
    String first = R.renderPlay(play(PromptStyle.VERBOSE, 0, List.of(), List.of()));
    assertThat(first).doesNotContain("# Current attempt").doesNotContain("attempt #");
    String third = R.renderPlay(play(PromptStyle.VERBOSE, 2, List.of(), List.of()));
    assertThat(third).contains("# Current attempt\nThis is attempt #3. The row is back at its initial state.\n\n"
        + "# Your answer\n");
    assertThat(R.renderPlay(play(PromptStyle.COMPACT, 2, List.of(), List.of()))).contains("\nTry 3 now.\n");
    assertThat(R.renderPlay(play(PromptStyle.COMPACT, 0, List.of(), List.of()))).doesNotContain("Try");
    assertThat(R.renderReflect(reflect(PromptStyle.VERBOSE, 2, FINISHED, Outcome.LOST)))
        .contains("You just finished attempt #3 and it ended without success.");
  }

  @Test
  void verbosePastEpisodesWithAndWithoutStepsAndReflections() {
    List<PastEpisode> past = List.of(
        new PastEpisode(0, List.of(), Outcome.DRAW, ""),
        new PastEpisode(1, List.of(), Outcome.LOST, "Start from the right."),
        new PastEpisode(2, List.of(new HistoryStep(1, "right", true, "1 5")), Outcome.TRUNCATED, null));
    String prompt = R.renderPlay(play(PromptStyle.VERBOSE, 3, past, List.of()));
    assertThat(prompt).contains("# Earlier attempts\n"
        + "Attempt #1 ended in a draw.\n"
        + "\n"
        + "Attempt #2 ended without success.\n"
        + "The lesson you wrote after it:\n"
        + "Start from the right.\n"
        + "\n"
        + "Attempt #3 ended unfinished when the move limit was reached. Your moves:\n"
        + "Step 1 - Action: right\n"
        + "Observation:\n"
        + "1 5\n"
        + "\n"
        + "# Current attempt\n"
        + "This is attempt #4. The row is back at its initial state.\n\n");
    // a past episode's steps do not trigger the history note; only the current attempt's do
    assertThat(prompt).doesNotContain("Only your own picks");
  }

  @Test
  void verboseReflectPrompt() {
    String prompt = R.renderReflect(reflect(PromptStyle.VERBOSE, 0, FINISHED, Outcome.LOST));
    assertThat(prompt).isEqualTo(VERBOSE_HEADER
        + "# Task\n"
        + "You just finished attempt #1 and it ended without success. You will face the same row again."
        + " Review the attempt, find the mistakes, and devise a short, concrete plan for the next attempt.\n"
        + "\n"
        + "# Past experience\n"
        + "The row at the start:\n"
        + "1 5 2\n"
        + "\n"
        + "Your moves, each with the row after it:\n"
        + "Step 1 - Action: left\n"
        + "Observation:\n"
        + "5 2\n"
        + "Step 2 - Action: right\n"
        + "Observation:\n"
        + "5\n"
        + "The attempt ended without success.\n"
        + "\n"
        + "# Your answer\n"
        + "Reason about what went wrong, then write your reflection and plan inside <remark> </remark>,"
        + " for example <remark>Greed on the left cost me; take the larger end.</remark>");
  }

  @Test
  void verboseReflectWithoutMoves() {
    String prompt = R.renderReflect(reflect(PromptStyle.VERBOSE, 1, List.of(), Outcome.TRUNCATED));
    assertThat(prompt).contains("# Past experience\nThe row at the start:\n1 5 2\n\nNo move was made.\n"
        + "The attempt ended unfinished when the move limit was reached.\n\n# Your answer\n");
  }

  @Test
  void outcomePhrases() {
    assertThat(R.outcomePhrase(Outcome.WON)).isEqualTo("in a win");
    assertThat(R.outcomePhrase(Outcome.DRAW)).isEqualTo("in a draw");
    assertThat(R.outcomePhrase(Outcome.LOST)).isEqualTo("without success");
    assertThat(R.outcomePhrase(Outcome.TRUNCATED)).isEqualTo("unfinished when the move limit was reached");
    assertThat(R.outcomePhrase(null)).isEqualTo("without success");
    assertThat(R.renderReflect(reflect(PromptStyle.VERBOSE, 0, FINISHED, Outcome.WON)))
        .contains("attempt #1 and it ended in a win.").contains("The attempt ended in a win.\n");
    assertThat(R.renderReflect(reflect(PromptStyle.VERBOSE, 0, FINISHED, null)))
        .contains("attempt #1 and it ended without success.");
  }

  @Test
  void nineArgumentGameTextUsesTheGenericReplayNoteAndExample() {
    GameText plain = new GameText("Coin Row", "You play Coin Row.", "Rules.", "Goal.", "Answer.", "Compact.",
        "Reply.", "", "row");
    String prompt = new StandardPromptRenderer(plain)
        .renderReflect(reflect(PromptStyle.VERBOSE, 0, FINISHED, Outcome.DRAW));
    assertThat(prompt)
        .contains("You just finished attempt #1 and it ended in a draw. You will play again from the same starting"
            + " row. Review the attempt")
        .endsWith("for example <remark>I lost because I ignored the threat on the last move; next time I will"
            + " block it first.</remark>");
  }

  @Test
  void emptyHistoryNoteAddsNothing() {
    GameText noNote = new GameText("Coin Row", "Role.", "Rules.", "Goal.", "Answer.", "Compact.", "Reply.", "",
        "row");
    String prompt =
        new StandardPromptRenderer(noNote).renderPlay(play(PromptStyle.VERBOSE, 0, List.of(), CURRENT));
    assertThat(prompt).endsWith("Step 2 - Action: left\nObservation:\n5\n\n# Your answer\n"
        + "Think step by step about the current row and what you have learned, then give your action. Answer.");
  }

  @Test
  void aSubclassCanChangeHistoryLines() {
    StandardPromptRenderer custom = new StandardPromptRenderer(COIN) {
      @Override
      protected String formatStep(HistoryStep step, PromptStyle style) {
        return (style == PromptStyle.COMPACT ? "c" : "v") + step.number() + "=" + formatAction(step);
      }
    };
    String verbose = custom.renderPlay(play(PromptStyle.VERBOSE, 1, List.of(LOST_WITH_STEPS), CURRENT));
    assertThat(verbose)
        .contains("Attempt #1 ended without success. Your moves:\nv1=left\n"
            + "v2=(no action found), but it is invalid\n")
        .contains("This is attempt #2. Moves so far:\nv1=right\nv2=left\n\n")
        .doesNotContain("Step 1 - Action").doesNotContain("Observation:\n5");
    String compact = custom.renderPlay(play(PromptStyle.COMPACT, 0, List.of(), CURRENT));
    assertThat(compact).contains("Moves:\nc1=right\nc2=left\nReply");
    String reflectPrompt = custom.renderReflect(reflect(PromptStyle.VERBOSE, 0, FINISHED, Outcome.LOST));
    assertThat(reflectPrompt).contains("Your moves, each with the row after it:\nv1=left\nv2=right\nThe attempt");
    // the default renderer is unaffected
    assertThat(R.renderPlay(play(PromptStyle.COMPACT, 0, List.of(), CURRENT))).contains("Moves:\n1. right\n");
  }

  @Test
  void formatStepAndFormatActionDirectly() {
    HistoryStep withObs = new HistoryStep(3, "left", true, "  5 2 \n");
    assertThat(R.formatStep(withObs, PromptStyle.VERBOSE)).isEqualTo("Step 3 - Action: left\nObservation:\n5 2");
    assertThat(R.formatStep(withObs, PromptStyle.COMPACT)).isEqualTo("3. left\n5 2");
    assertThat(R.formatStep(withObs.withoutObservation(), PromptStyle.VERBOSE)).isEqualTo("Step 3 - Action: left");
    assertThat(R.formatAction(new HistoryStep(1, "x", false, null))).isEqualTo("x, but it is invalid");
    assertThat(R.formatAction(new HistoryStep(1, "", true, null))).isEqualTo("(no action found)");
  }
}
