package org.magejvm.impl.train.update;

import org.magejvm.api.annotation.Api;

/**
 * Where the update takes the old policy's log-probabilities (the denominators of PPO's ratio) from:
 * config key {@code update.old_log_probs}.
 *
 * <p>The generator records, for every sampled token, its log-probability under the unfiltered distribution at the
 * sampling temperature (top-k and top-p choose among tokens but do not change what is recorded). When the rollout
 * ran on the trained model itself, in float32, at temperature 1, those are the old policy's log-probabilities: the
 * same weights score the same tokens, and the only difference from a teacher-forced pass is float rounding between
 * a cached decode and a full forward pass (below 1e-5 on the tiny model, {@code OldLogProbsTest}). Under any other
 * condition (another temperature, a remote inference server whose weights may lag, half precision) they are not,
 * and the update must score the batch again.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum OldLogProbs {
  /** The recorded ones where they are exact (local rollout, float32 model, temperature 1), else recomputed. */
  AUTO,
  /** Always scored again before the update, as the reference does. */
  RECOMPUTE,
  /** Always the recorded ones, whatever the sampling (an off-policy choice; remote rollouts refuse it). */
  RECORDED;

  /**
   * Whether the update should score the old log-probabilities again.
   *
   * @param localRollout whether the rollouts run on the trained model itself (not through a remote policy)
   * @param float32 whether the trained model computes in float32
   * @param temperature the training rollout's sampling temperature
   * @return true to recompute, false to use the recorded ones
   */
  public boolean recompute(boolean localRollout, boolean float32, double temperature) {
    switch (this) {
      case RECOMPUTE:
        return true;
      case RECORDED:
        return false;
      default:
        return !(localRollout && float32 && temperature == 1.0);
    }
  }
}
