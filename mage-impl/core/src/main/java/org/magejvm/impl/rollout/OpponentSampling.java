package org.magejvm.impl.rollout;

import org.magejvm.api.annotation.Api;

/** How the rollout engine assigns opponents from the pool to the episode groups. */
@Api(status = Api.Status.STABLE)
public enum OpponentSampling {
  /**
   * One opponent per episode group, shared by its meta-episodes (MAGE's opponent-stationary groups; the default),
   * drawn independently for every group from the pool's weights.
   */
  PER_GROUP,
  /**
   * A fresh draw for every meta-episode, so one group may face several opponents (the mixed-group ablation; pair it
   * with {@link org.magejvm.api.Grouping#MIXED} in the optimizer).
   */
  PER_META_EPISODE,
  /**
   * One opponent per episode group, by fixed quotas as the reference assigns them for a whole run: each training
   * opponent gets {@link OpponentQuota#counts its share of the groups}, in contiguous blocks in the pool's order
   * ({@link OpponentQuota}). No random draw is involved, so every rollout of a run faces the same opponent in the
   * same group.
   */
  QUOTA
}
