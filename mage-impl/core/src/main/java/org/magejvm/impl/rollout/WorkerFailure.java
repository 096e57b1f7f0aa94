package org.magejvm.impl.rollout;

import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Phase;

/**
 * A meta-episode that stopped because its environment threw. The rest of the batch went on; everything this worker
 * recorded before the error is kept in {@link #partial()}.
 *
 * @param environmentId the environment's id
 * @param workerKey the meta-episode's key ({@code groupId/indexInGroup})
 * @param seed the task seed
 * @param opponentId the opponent's id, empty for single-player environments
 * @param episodeIndex the episode in progress when the error happened
 * @param turnIndex the turn in progress (0 for reset, restart and reflection)
 * @param stage what the engine was doing: {@code reset}, {@code restart}, {@code prompt}, {@code step} or
 *     {@code reflect}
 * @param phase the phase in progress
 * @param error the exception the environment threw
 * @param partial the meta-episode so far: every recorded turn (including those of the unfinished episode), the
 *     finished episodes and the reflections
 */
@Api(status = Api.Status.STABLE)
public record WorkerFailure(
    String environmentId,
    String workerKey,
    long seed,
    String opponentId,
    int episodeIndex,
    int turnIndex,
    String stage,
    Phase phase,
    RuntimeException error,
    MetaEpisode partial) {

  /**
   * Validates.
   *
   * @param environmentId environment id
   * @param workerKey worker key
   * @param seed task seed
   * @param opponentId opponent id
   * @param episodeIndex episode index
   * @param turnIndex turn index
   * @param stage stage
   * @param phase phase
   * @param error the error
   * @param partial the partial meta-episode
   */
  public WorkerFailure {
    Objects.requireNonNull(environmentId, "environmentId");
    Objects.requireNonNull(workerKey, "workerKey");
    Objects.requireNonNull(opponentId, "opponentId");
    Objects.requireNonNull(stage, "stage");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(partial, "partial");
  }

  /** @return a one-line description naming the environment, worker, seed, episode, turn and the error */
  public String describe() {
    return "environment '" + environmentId + "' failed in meta-episode " + workerKey + " (seed " + seed
        + (opponentId.isEmpty() ? "" : ", opponent '" + opponentId + "'") + ") during " + stage + " at episode "
        + episodeIndex + ", turn " + turnIndex + ": " + error;
  }
}
