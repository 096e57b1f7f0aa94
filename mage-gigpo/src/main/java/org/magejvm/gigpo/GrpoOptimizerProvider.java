package org.magejvm.gigpo;

import java.util.Objects;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;

/**
 * The {@code grpo} optimizer provider: episode-level advantages only ({@link GrpoAdvantageNormalizer}). Registered
 * in {@code META-INF/services/org.magejvm.api.PolicyOptimizerProvider}.
 */
public final class GrpoOptimizerProvider implements PolicyOptimizerProvider {

  /** The provider id. */
  public static final String ID = "grpo";

  /** The provider version. */
  public static final String VERSION = "0.1.0";

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public GrpoOptimizerProvider() {}

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
    return "GRPO: episode-group advantages only, no critic";
  }

  /**
   * Creates a GRPO optimizer.
   *
   * @param config the configuration
   * @return an optimizer whose normalizer is a {@link GrpoAdvantageNormalizer}
   */
  @Override
  public PolicyOptimizer create(OptimizerConfig config) {
    Objects.requireNonNull(config, "config");
    return new GroupRelativeOptimizer(ID, config, new GrpoAdvantageNormalizer(config));
  }
}
