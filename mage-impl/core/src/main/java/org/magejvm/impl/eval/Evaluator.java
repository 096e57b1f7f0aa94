package org.magejvm.impl.eval;

import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutException;
import org.magejvm.impl.rollout.RolloutListener;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * Measures a policy: plays M independent meta-episodes (group size 1, one task seed each) against one opponent from
 * one seat, with N episodes and a context mode, and computes {@link EvaluationMetrics}.
 *
 * <p>Meta-episodes whose environment threw are left out of the metrics and reported in {@link
 * Evaluation#rollout()}; if every one of them failed, the first failure is thrown.
 */
@Api(status = Api.Status.STABLE)
public final class Evaluator {

  private final EnvironmentRegistry registry;
  private final RolloutListener listener;

  /** @param registry where environment ids are looked up */
  public Evaluator(EnvironmentRegistry registry) {
    this(registry, RolloutListener.NONE);
  }

  /**
   * @param registry where environment ids are looked up
   * @param listener progress hooks of the rollout
   */
  public Evaluator(EnvironmentRegistry registry, RolloutListener listener) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Evaluates a policy.
   *
   * @param config what to play
   * @param policy the policy
   * @return the metrics and what was played
   * @throws IllegalArgumentException if the opponent or seat settings do not fit the environment
   * @throws RolloutException if the policy fails or every meta-episode's environment threw
   */
  public Evaluation evaluate(EvaluationConfig config, LanguagePolicy policy) {
    EnvironmentProvider provider = registry.require(config.environmentId());
    RolloutConfig rollout = config.toRolloutConfig(provider);
    RolloutResult result = new MetaEpisodeRunner(registry, listener).run(rollout, policy);
    if (result.metaEpisodes().isEmpty()) {
      throw new RolloutException("no meta-episode completed; the first failure: "
          + result.failures().get(0).describe(), result.failures().get(0).error());
    }
    return new Evaluation(EvaluationMetrics.of(result.metaEpisodes(), result.episodes()), result, rollout);
  }
}
