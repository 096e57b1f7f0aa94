package org.magejvm.gigpo;

/**
 * The {@code grpo} optimizer provider: episode-level advantages only ({@link GrpoAdvantageNormalizer}). Registered
 * in {@code META-INF/services/org.magejvm.api.PolicyOptimizerProvider}.
 */
public final class GrpoOptimizerProvider extends GroupRelativeOptimizerProvider {

  /** The provider id. */
  public static final String ID = "grpo";

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public GrpoOptimizerProvider() {
    super(ID, "GRPO: episode-group advantages only, no critic", GrpoAdvantageNormalizer::new);
  }
}
