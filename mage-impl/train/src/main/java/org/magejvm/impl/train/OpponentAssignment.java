package org.magejvm.impl.train;

import org.magejvm.api.annotation.Api;
import org.magejvm.impl.rollout.OpponentQuota;
import org.magejvm.impl.rollout.OpponentSampling;

/**
 * How a training run gives its episode groups their opponents ({@code rollout.opponent_assignment}); either way one
 * opponent plays every meta-episode of a group.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum OpponentAssignment {
  /**
   * Every iteration draws each group's opponent independently from the pool's weights, seeded by the iteration
   * ({@link OpponentSampling#PER_GROUP}); the {@code mage} preset's, and every config written before the key existed.
   */
  SAMPLED,
  /**
   * Fixed quotas for the whole run, as the reference assigns them: each opponent gets its share of the groups from
   * the pool's weights, rounded as the reference rounds ({@link OpponentQuota}; Kuhn Poker 5 / 5 / 6 of 16 groups,
   * Tic-Tac-Toe 7 {@code mcts-100}, 6 preferred-position, 3 {@code random}); the reference presets'.
   */
  QUOTA;

  /** @return the rollout engine's mode for this assignment */
  public OpponentSampling sampling() {
    return this == QUOTA ? OpponentSampling.QUOTA : OpponentSampling.PER_GROUP;
  }
}
