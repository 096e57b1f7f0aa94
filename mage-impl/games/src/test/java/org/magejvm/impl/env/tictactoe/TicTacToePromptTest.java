package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;

class TicTacToePromptTest {

  private static final String EMPTY = ". . .\n. . .\n. . .";

  @Test
  void verbosePlayPromptHasRulesBoardHistoryAndFormat() {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(1, TicTacToeTesting.scripted("corner", 8, 6), Seat.FIRST);
    StepResult s1 = env.step("<action>(1, 1)</action>");
    StepResult s2 = env.step("<action>(1, 1)</action>");
    List<HistoryStep> steps = List.of(
        new HistoryStep(1, s1.action(), s1.actionValid(), s1.observation()),
        new HistoryStep(2, s2.action(), s2.actionValid(), s2.observation()));
    PromptRenderer r = env.promptRenderer();
    String prompt = r.renderPlay(new PromptContext(PromptStyle.VERBOSE, EMPTY, 0, List.of(), steps, null));
    assertThat(prompt)
        .contains("Tic-Tac-Toe").contains("X").contains("'O'").contains("'.'")
        .contains("3x3").contains("three").contains("draw").contains("invalid")
        .contains(EMPTY)
        .contains("Step 1 - Action: (1, 1)\nObservation:\nX . .\n. . .\n. . O")
        .contains("Step 2 - Action: (1, 1), but it is invalid")
        .contains("Only your own moves are listed")
        .contains("<action>").contains("</action>").contains("(row, column)").contains("<action>(2, 3)</action>");
    // the first turn has no history and so no history note
    String first = r.renderPlay(new PromptContext(PromptStyle.VERBOSE, EMPTY, 0, List.of(), List.of(), null));
    assertThat(first).doesNotContain("Only your own moves").contains(EMPTY).contains("<action>");
  }

  @Test
  void laterAttemptsShowTheReflections() {
    String start = ". . .\n. O .\n. . .";
    PastEpisode p = new PastEpisode(0, List.of(), Outcome.LOST, "Take a corner first; it opens the center.");
    String prompt = TicTacToePrompts.renderer().renderPlay(
        new PromptContext(PromptStyle.VERBOSE, start, 1, List.of(p), List.of(), null));
    assertThat(prompt).contains(start).contains("Take a corner first").contains("attempt #2");
  }

  @Test
  void compactPromptIsShortAndComplete() {
    PromptRenderer r = TicTacToePrompts.renderer();
    String prompt = r.renderPlay(new PromptContext(PromptStyle.COMPACT, EMPTY, 0, List.of(), List.of(), null));
    assertThat(prompt).contains(EMPTY).contains("<action>(row, col)</action>").contains("X").contains("O");
    String withoutBoard = prompt.replace(EMPTY, "");
    assertThat(withoutBoard.split("\\s+")).as(prompt).hasSizeLessThan(45);
    String verbose = r.renderPlay(new PromptContext(PromptStyle.VERBOSE, EMPTY, 0, List.of(), List.of(), null));
    assertThat(prompt.length() * 4).isLessThan(verbose.length());
  }

  @Test
  void reflectPromptsAskForARemark() {
    List<HistoryStep> steps = List.of(new HistoryStep(1, "(2, 2)", true, "O . .\n. X .\n. . ."));
    for (PromptStyle style : PromptStyle.values()) {
      String prompt = TicTacToePrompts.renderer().renderReflect(
          new PromptContext(style, EMPTY, 0, List.of(), steps, Outcome.DRAW));
      assertThat(prompt).as("%s", style).contains("<remark>").contains(EMPTY).contains("(2, 2)");
    }
  }
}
