package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/** How advantage groups treat the opponent. */
@Api(status = Api.Status.STABLE)
public enum Grouping {
  /**
   * MAGE's agent-specific normalisation: every episode group and every step group holds turns against a single
   * opponent in a single seat, so advantages compare like with like. The default.
   */
  OPPONENT_STATIONARY,
  /**
   * The ablation: groups are formed by task alone and step anchors ignore the opponent, so turns against different
   * opponents are normalised together.
   */
  MIXED
}
