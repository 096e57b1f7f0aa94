package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.PromptStyle;

/** Size properties of the prompts; their exact text is in the golden files of {@code PromptGoldenTest}. */
class TicTacToePromptTest {

  private static final String EMPTY = ". . .\n. . .\n. . .";

  @Test
  void compactPromptIsShort() {
    PromptRenderer r = TicTacToePrompts.renderer();
    String prompt = r.renderPlay(new PromptContext(PromptStyle.COMPACT, EMPTY, 0, List.of(), List.of(), null));
    String withoutBoard = prompt.replace(EMPTY, "");
    assertThat(withoutBoard.split("\\s+")).as(prompt).hasSizeLessThan(45);
    String verbose = r.renderPlay(new PromptContext(PromptStyle.VERBOSE, EMPTY, 0, List.of(), List.of(), null));
    assertThat(prompt.length() * 4).isLessThan(verbose.length());
  }
}
