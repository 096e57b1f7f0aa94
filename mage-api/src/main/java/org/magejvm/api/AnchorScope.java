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
  PER_EPISODE
}
