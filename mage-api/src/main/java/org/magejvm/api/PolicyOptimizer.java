package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/**
 * A critic-free policy optimizer such as GiGPO or GRPO. Instances come from a {@link PolicyOptimizerProvider}.
 *
 * <p>An optimizer has two parts: its {@link AdvantageNormalizer} turns scored turns into advantages, and its
 * {@link PolicyLoss} turns the advantages and log-probabilities of a micro-batch into a differentiable loss. The
 * training loop owns everything else (batching, the parameter update).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public interface PolicyOptimizer {

  /** @return the id of the provider that created this optimizer, for example {@code gigpo} */
  String id();

  /** @return the configuration this optimizer was created with */
  OptimizerConfig config();

  /** @return the advantage normalizer this optimizer uses */
  AdvantageNormalizer advantageNormalizer();

  /** @return the policy loss this optimizer uses, configured from {@link #config()} */
  PolicyLoss loss();
}
