package org.magejvm.gigpo;

/**
 * The {@code gigpo} optimizer provider: episode-group plus anchor-state step-group advantages
 * ({@link GigpoAdvantageNormalizer}). Registered in {@code META-INF/services/org.magejvm.api.PolicyOptimizerProvider}.
 */
public final class GigpoOptimizerProvider extends GroupRelativeOptimizerProvider {

  /** The provider id. */
  public static final String ID = "gigpo";

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public GigpoOptimizerProvider() {
    super(ID, "GiGPO: episode-group and anchor-state step-group advantages, no critic",
        GigpoAdvantageNormalizer::new);
  }
}
