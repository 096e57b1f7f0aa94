package org.magejvm.api;

/**
 * A critic-free policy optimizer such as GiGPO or GRPO. Instances come from a {@link PolicyOptimizerProvider}.
 *
 * <p>This version computes advantages; the policy-gradient loss is added by the training module.
 */
public interface PolicyOptimizer {

  /** @return the id of the provider that created this optimizer, for example {@code gigpo} */
  String id();

  /** @return the configuration this optimizer was created with */
  OptimizerConfig config();

  /** @return the advantage normalizer this optimizer uses */
  AdvantageNormalizer advantageNormalizer();
}
