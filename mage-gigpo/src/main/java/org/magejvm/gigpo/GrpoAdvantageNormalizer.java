package org.magejvm.gigpo;

import java.util.List;
import java.util.Objects;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.Advantages;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.ScoredTurn;

/**
 * GRPO advantages: GiGPO's episode-level term alone, without step groups.
 *
 * <pre>
 *   A_i = s_i - mean(s over E(i))                                   MEAN_NORM
 *       = (s_i - mean(s over E(i))) / (std(s over E(i)) + eps)      MEAN_STD_NORM
 * </pre>
 *
 * <p>The episode group {@code E(i)}, the per-turn mean, the unbiased standard deviation and the one-turn rule (mean
 * 0, standard deviation 1) are exactly those of {@link GigpoAdvantageNormalizer}. The step term of the result is all
 * zeros, its step-group count and mean step-group size are 0; the step weight and anchor scope of the configuration
 * are not used. Instances are immutable and thread-safe.
 */
public final class GrpoAdvantageNormalizer implements AdvantageNormalizer {

  private final GigpoAdvantageNormalizer gigpo;
  private final String description;

  /**
   * A normalizer using the normalization, grouping and epsilon of a configuration.
   *
   * @param config the configuration
   */
  public GrpoAdvantageNormalizer(OptimizerConfig config) {
    Objects.requireNonNull(config, "config");
    this.gigpo = new GigpoAdvantageNormalizer(config);
    this.description = "GrpoAdvantageNormalizer[" + config.normalization() + ", " + config.grouping() + ", epsilon="
        + config.epsilon() + "]";
  }

  /**
   * Computes GRPO advantages.
   *
   * @param turns the turns of one training batch, in any order
   * @return advantages indexed like {@code turns}; empty for an empty list
   * @throws NullPointerException if the list or one of its elements is null
   * @throws ArithmeticException if scores are so large that an advantage overflows
   */
  @Override
  public Advantages compute(List<ScoredTurn> turns) {
    TurnGroups.requireTurns(turns);
    int n = turns.size();
    if (n == 0) {
      return new Advantages(new double[0], new double[0], new double[0], 0, 0.0);
    }
    double[] episodeTerm = gigpo.episodeTerm(turns);
    return new Advantages(episodeTerm.clone(), episodeTerm, new double[n], 0, 0.0);
  }

  @Override
  public String toString() {
    return description;
  }
}
