package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/** Whether GiGPO step groups may pool identical states from different episodes of a meta-episode. */
@Api(status = Api.Status.STABLE)
public enum AnchorScope {
  /** The anchor has no episode index: identical states in episodes 1..N share a group (the reference default). */
  GLOBAL,
  /**
   * The episode index is part of every turn's anchor, so only states from the same episode index are pooled. (The
   * reference's {@code use_trial_norm} applied the index to the first turn of each phase only; here it applies to
   * every turn.)
   */
  PER_EPISODE,
  /**
   * The anchor is the whole prompt the policy saw (with the earlier attempts, reflections or history it shows) and
   * the episode index, instead of the environment's anchor state: only turns that acted from identical context are
   * pooled. With history in the prompt, two turns of the same board or deal but different earlier attempts are
   * different states for the policy, and this scope keeps them apart; the step-level term then compares actions
   * taken after the same history. Not in the reference (an extension of this library; see docs/gigpo.md).
   */
  PROMPT
}
