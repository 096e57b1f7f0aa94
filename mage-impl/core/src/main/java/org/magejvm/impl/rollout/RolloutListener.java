package org.magejvm.impl.rollout;

import org.magejvm.api.annotation.Api;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Phase;

/**
 * Progress hooks of a {@link MetaEpisodeRunner}; every method does nothing by default. Called on the thread running
 * the rollout.
 */
@Api(status = Api.Status.STABLE)
public interface RolloutListener {

  /** A listener that ignores everything. */
  RolloutListener NONE = new RolloutListener() {};

  /**
   * After each batched policy call.
   *
   * @param phase play or reflect
   * @param episodeIndex the episode the call belongs to
   * @param turnIndex the turn inside the episode (0 for reflections)
   * @param batchSize the number of prompts answered
   * @param nanos the wall time of the call
   */
  default void onPolicyCall(Phase phase, int episodeIndex, int turnIndex, int batchSize, long nanos) {}

  /**
   * When a meta-episode is complete.
   *
   * @param metaEpisode the finished meta-episode
   */
  default void onMetaEpisode(MetaEpisode metaEpisode) {}

  /**
   * When a meta-episode stopped: its environment threw or timed out, or the policy rejected its request.
   *
   * @param failure what happened
   */
  default void onFailure(WorkerFailure failure) {}
}
