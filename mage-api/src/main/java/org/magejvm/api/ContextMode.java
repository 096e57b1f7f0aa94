package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/** What the play prompt of episode k shows about episodes 0..k-1 of the same meta-episode. */
@Api(status = Api.Status.STABLE)
public enum ContextMode {
  /** Only the reflection written after each earlier episode (the reference default). */
  REFLECTION_ONLY,
  /** Each earlier episode's actions and outcome, followed by its reflection. */
  HISTORY_AND_REFLECTION,
  /** Each earlier episode's actions and outcome; no reflections are generated. */
  HISTORY_ONLY,
  /** Nothing: every episode starts from a blank context (single-episode baselines); no reflections. */
  NONE;

  /** @return whether reflection turns are generated between episodes in this mode */
  public boolean reflects() {
    return this == REFLECTION_ONLY || this == HISTORY_AND_REFLECTION;
  }

  /** @return whether earlier episodes' action histories appear in play prompts */
  public boolean showsHistory() {
    return this == HISTORY_AND_REFLECTION || this == HISTORY_ONLY;
  }
}
