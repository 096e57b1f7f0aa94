package org.magejvm.gigpo;

import java.util.Objects;
import java.util.function.Function;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;

/**
 * What the {@code gigpo} and {@code grpo} providers share: an id, the module version, a description, and the
 * advantage normalizer each builds from a configuration. Both use the same policy loss, {@link PpoLoss}.
 */
public abstract class GroupRelativeOptimizerProvider implements PolicyOptimizerProvider {

  /** The version of this module's providers. */
  public static final String VERSION = "0.1.0";

  private final String id;
  private final String description;
  private final Function<OptimizerConfig, AdvantageNormalizer> normalizer;

  /**
   * @param id the provider id
   * @param description the one-line description
   * @param normalizer builds the advantage normalizer from a configuration
   */
  protected GroupRelativeOptimizerProvider(
      String id, String description, Function<OptimizerConfig, AdvantageNormalizer> normalizer) {
    this.id = id;
    this.description = description;
    this.normalizer = normalizer;
  }

  @Override
  public final String id() {
    return id;
  }

  @Override
  public final String version() {
    return VERSION;
  }

  @Override
  public final String description() {
    return description;
  }

  /**
   * Creates an optimizer.
   *
   * @param config the configuration
   * @return a {@link GroupRelativeOptimizer} with this provider's id and normalizer, and a {@link PpoLoss}
   */
  @Override
  public final PolicyOptimizer create(OptimizerConfig config) {
    Objects.requireNonNull(config, "config");
    return new GroupRelativeOptimizer(id, config, normalizer.apply(config), new PpoLoss(config));
  }
}
