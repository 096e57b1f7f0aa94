package org.magejvm.spi;

import org.magejvm.api.annotation.Api;

/** Renders the text of play and reflect prompts for one environment. */
@Api(status = Api.Status.STABLE)
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
