package org.magejvm.impl.rollout;

import org.magejvm.api.annotation.Api;

/** How often the rollout engine draws an opponent from the pool. */
@Api(status = Api.Status.STABLE)
public enum OpponentSampling {
  /**
   * One opponent per episode group, shared by its meta-episodes (MAGE's opponent-stationary groups; the default).
   */
  PER_GROUP,
  /**
   * A fresh draw for every meta-episode, so one group may face several opponents (the mixed-group ablation; pair it
   * with {@link org.magejvm.api.Grouping#MIXED} in the optimizer).
   */
  PER_META_EPISODE
}
