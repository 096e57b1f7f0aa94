package org.magejvm.impl.rollout;

import org.magejvm.api.annotation.Api;

/**
 * What the later attempts of a meta-episode are shown of the reflections written before them: the evaluation
 * controls that tell whether a trained agent's gain comes from what its reflections say. The reflections are
 * written (and recorded as turns) the same way in every mode; only the memory that later play prompts show changes,
 * so a control costs the same policy calls as the real run. It matters only in a context mode that {@linkplain
 * org.magejvm.api.ContextMode#reflects() reflects}.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum ReflectionControl {

  /** The meta-episode's own reflections (training, and the evaluation of a trained agent). */
  OWN,

  /** No reflection at all: each later attempt's prompt lists the earlier attempts without their reflections. */
  REMOVED,

  /**
   * Another meta-episode's reflections: at each reflection phase the reflections written by the meta-episodes still
   * playing are handed on by a seeded random cyclic
   * permutation, so no meta-episode is shown its own (a lone meta-episode
   * in a phase is shown none). On a set whose tasks are drawn independently of one another, what the shown
   * reflection says is then independent of the task.
   */
  SHUFFLED
}
