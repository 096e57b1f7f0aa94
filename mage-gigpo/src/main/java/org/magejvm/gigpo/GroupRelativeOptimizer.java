package org.magejvm.gigpo;

import java.util.Objects;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyLoss;
import org.magejvm.api.PolicyOptimizer;

/**
 * A critic-free optimizer (GiGPO or GRPO) as created by {@link GigpoOptimizerProvider} and
 * {@link GrpoOptimizerProvider}: its provider id, its configuration, its advantage normalizer and its policy loss.
 * Immutable.
 */
public final class GroupRelativeOptimizer implements PolicyOptimizer {

  private final String id;
  private final OptimizerConfig config;
  private final AdvantageNormalizer normalizer;
  private final PolicyLoss loss;

  /**
   * An optimizer.
   *
   * @param id the id of the provider that creates it
   * @param config the configuration
   * @param normalizer the advantage normalizer built from {@code config}
   * @param loss the policy loss built from {@code config}
   */
  public GroupRelativeOptimizer(
      String id, OptimizerConfig config, AdvantageNormalizer normalizer, PolicyLoss loss) {
    this.id = Objects.requireNonNull(id, "id");
    this.config = Objects.requireNonNull(config, "config");
    this.normalizer = Objects.requireNonNull(normalizer, "normalizer");
    this.loss = Objects.requireNonNull(loss, "loss");
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public OptimizerConfig config() {
    return config;
  }

  @Override
  public AdvantageNormalizer advantageNormalizer() {
    return normalizer;
  }

  @Override
  public PolicyLoss loss() {
    return loss;
  }

  @Override
  public String toString() {
    return "GroupRelativeOptimizer[" + id + ", " + normalizer + ", " + loss + "]";
  }
}
