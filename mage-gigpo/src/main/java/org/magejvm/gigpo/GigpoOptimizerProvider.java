package org.magejvm.gigpo;

import java.util.Objects;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;

/**
 * The {@code gigpo} optimizer provider: episode-level plus anchor-state step-level advantages
 * ({@link GigpoAdvantageNormalizer}). Registered in {@code META-INF/services/org.magejvm.api.PolicyOptimizerProvider}.
 */
public final class GigpoOptimizerProvider implements PolicyOptimizerProvider {

  /** The provider id. */
  public static final String ID = "gigpo";

  /** The provider version. */
  public static final String VERSION = "0.1.0";

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public GigpoOptimizerProvider() {}

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public String description() {
    return "GiGPO: episode-group plus anchor-state step-group advantages, no critic";
  }

  /**
   * Creates a GiGPO optimizer.
   *
   * @param config the configuration
   * @return an optimizer whose normalizer is a {@link GigpoAdvantageNormalizer}
   */
  @Override
  public PolicyOptimizer create(OptimizerConfig config) {
    Objects.requireNonNull(config, "config");
    return new GroupRelativeOptimizer(ID, config, new GigpoAdvantageNormalizer(config));
  }
}
