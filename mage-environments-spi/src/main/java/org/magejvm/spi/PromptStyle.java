package org.magejvm.spi;

/** How verbose prompts are. */
public enum PromptStyle {
  /** The paper's prompt structure: role, rules, goal, observation, context, instruction. For capable models. */
  VERBOSE,
  /** The same information in a few dozen tokens, for small models and fast CPU experiments. */
  COMPACT
}
