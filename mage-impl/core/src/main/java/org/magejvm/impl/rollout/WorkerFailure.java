package org.magejvm.impl.rollout;

import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Phase;

/**
 * A meta-episode that stopped because its environment threw (or a call into it timed out), or because the policy
 * rejected its prompt. The rest of the batch went on; everything this worker recorded before the error is kept in
 * {@link #partial()}.
 *
 * @param environmentId the environment's id
 * @param workerKey the meta-episode's key ({@code groupId/indexInGroup})
 * @param seed the task seed
 * @param opponentId the opponent's id, empty for single-player environments
 * @param episodeIndex the episode in progress when the error happened
 * @param turnIndex the turn in progress (0 for reset, restart and reflection)
 * @param stage what the engine was doing: {@code create}, {@code reset}, {@code restart}, {@code prompt},
 *     {@code step} or {@code reflect} (calls into the environment plugin), or {@code policy} (the policy rejected
 *     this meta-episode's request with a {@link org.magejvm.api.PolicyRequestException}, for example a prompt beyond
 *     the model's context, or its batch's generate call timed out with a {@link GenerateTimeoutException})
 * @param phase the phase in progress
 * @param error what was thrown: the environment's runtime exception as it is; an {@link Error} or checked exception
 *     wrapped in a {@link PluginError} (its cause is the original); a {@link StepTimeoutException} for a call that
 *     did not return in time; the policy's {@link org.magejvm.api.PolicyRequestException}; a {@link
 *     GenerateTimeoutException}
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
    if (stage.equals("policy") && error instanceof GenerateTimeoutException) {
      return "the policy did not answer the " + (phase == Phase.REFLECT ? "reflection" : "play") + " request of"
          + " meta-episode " + workerKey + " (environment '" + environmentId + "', seed " + seed
          + (opponentId.isEmpty() ? "" : ", opponent '" + opponentId + "'") + ") at episode " + episodeIndex
          + ", turn " + turnIndex + ": " + error.getMessage();
    }
    if (stage.equals("policy")) {
      return "the policy rejected the " + (phase == Phase.REFLECT ? "reflection" : "play") + " request of"
          + " meta-episode " + workerKey + " (environment '" + environmentId + "', seed " + seed
          + (opponentId.isEmpty() ? "" : ", opponent '" + opponentId + "'") + ") at episode " + episodeIndex
          + ", turn " + turnIndex + ": " + error.getMessage();
    }
    return "environment '" + environmentId + "' failed in meta-episode " + workerKey + " (seed " + seed
        + (opponentId.isEmpty() ? "" : ", opponent '" + opponentId + "'") + ") during " + stage + " at episode "
        + episodeIndex + ", turn " + turnIndex + ": " + error;
  }
}
