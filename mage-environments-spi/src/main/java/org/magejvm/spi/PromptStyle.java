package org.magejvm.spi;

import org.magejvm.api.annotation.Api;

/** How verbose prompts are. */
@Api(status = Api.Status.STABLE)
public enum PromptStyle {
  /** The paper's prompt structure: role, rules, goal, observation, context, instruction. For capable models. */
  VERBOSE,
  /** The same information in a few dozen tokens, for small models and fast CPU experiments. */
  COMPACT
}
