package org.magejvm.spi;

/** Renders the text of play and reflect prompts for one environment. */
public interface PromptRenderer {

  /**
   * Renders the prompt asking for the next action.
   *
   * @param context what to show
   * @return the prompt text
   */
  String renderPlay(PromptContext context);

  /**
   * Renders the prompt asking for a reflection on the episode just finished.
   *
   * @param context what to show; {@link PromptContext#outcome()} is set
   * @return the prompt text
   */
  String renderReflect(PromptContext context);
}
