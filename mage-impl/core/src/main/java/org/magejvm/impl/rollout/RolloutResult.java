package org.magejvm.impl.rollout;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.MetaEpisode;

/**
 * What a rollout produced.
 *
 * @param metaEpisodes the completed meta-episodes, in worker order (group by group)
 * @param failures the meta-episodes whose environment threw or timed out or whose request the policy rejected, with
 *     what they recorded; empty when all went well
 * @param episodes N, the episodes per meta-episode the run used (after applying the provider's default)
 * @param maxTurns the play-turn limit per episode the run used
 * @param policyCalls the number of batched policy calls made
 */
@Api(status = Api.Status.STABLE)
public record RolloutResult(
    List<MetaEpisode> metaEpisodes, List<WorkerFailure> failures, int episodes, int maxTurns, int policyCalls) {

  /**
   * Copies.
   *
   * @param metaEpisodes completed meta-episodes
   * @param failures failures
   * @param episodes episodes per meta-episode
   * @param maxTurns turn limit
   * @param policyCalls policy calls
   */
  public RolloutResult {
    metaEpisodes = ImmutableList.copyOf(metaEpisodes);
    failures = ImmutableList.copyOf(failures);
  }

  /** @return whether every meta-episode completed */
  public boolean complete() {
    return failures.isEmpty();
  }
}
