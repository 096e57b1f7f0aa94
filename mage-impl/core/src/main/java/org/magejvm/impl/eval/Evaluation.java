package org.magejvm.impl.eval;

import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;

/**
 * The result of an {@link Evaluator} run.
 *
 * @param metrics the metrics over the completed meta-episodes
 * @param rollout what was played, including failures (meta-episodes whose environment threw are not in the
 *     metrics)
 * @param rolloutConfig the rollout that was run, with the provider's defaults filled in
 */
@Api(status = Api.Status.STABLE)
public record Evaluation(EvaluationMetrics metrics, RolloutResult rollout, RolloutConfig rolloutConfig) {

  /**
   * Validates.
   *
   * @param metrics metrics
   * @param rollout rollout result
   * @param rolloutConfig rollout config
   */
  public Evaluation {
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(rollout, "rollout");
    Objects.requireNonNull(rolloutConfig, "rolloutConfig");
  }
}
