package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/**
 * How rewards of a meta-episode become per-turn step returns and episode scores.
 *
 * <p>All three share the discounting shape {@code G = gammaStep^(L-1-t) * (terminal term + gammaTraj * G_next)}
 * described in {@code docs/algorithm.md}; they differ in what counts as a reward.
 */
@Api(status = Api.Status.STABLE)
public enum MetaReturn {
  /**
   * MAGE: the differential meta-reward. Episode n contributes {@code R_n - R_(n-1)} (with {@code R_(-1) = 0}) at
   * its last play turn only, so the undiscounted total equals the final played episode's reward.
   */
  DIFFERENTIAL,
  /**
   * LaMer: every raw step reward counts, and episode scores are the episode's own total reward, so the objective
   * is the discounted sum over all episodes.
   */
  CUMULATIVE,
  /** Plain GiGPO: episodes are independent; returns never cross an episode boundary. */
  SINGLE_EPISODE
}
