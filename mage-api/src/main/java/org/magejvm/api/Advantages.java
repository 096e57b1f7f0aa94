package org.magejvm.api;

import java.util.Arrays;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * Per-turn advantages with their two GiGPO terms and step-group statistics. Arrays are indexed like the input turns;
 * treat them as read-only.
 *
 * @param values the advantage of each turn, {@code episode + omega * step}
 * @param episodeTerm the episode-level term {@code A^E} of each turn
 * @param stepTerm the step-level term {@code A^S} of each turn (0 in singleton step groups and for GRPO)
 * @param stepGroupCount the number of distinct step groups (0 for GRPO)
 * @param meanStepGroupSize the mean number of turns per step group (0 for GRPO)
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record Advantages(
    double[] values, double[] episodeTerm, double[] stepTerm, int stepGroupCount, double meanStepGroupSize) {

  /**
   * Checks the arrays agree in length.
   *
   * @param values advantages
   * @param episodeTerm episode terms
   * @param stepTerm step terms
   * @param stepGroupCount number of step groups
   * @param meanStepGroupSize mean step group size
   */
  public Advantages {
    if (values.length != episodeTerm.length || values.length != stepTerm.length) {
      throw new IllegalArgumentException("advantage arrays differ in length: " + values.length + ", "
          + episodeTerm.length + ", " + stepTerm.length);
    }
  }

  /** @return the number of turns */
  public int size() {
    return values.length;
  }

  /** @return the turns' values and terms as numbers (the record's own form would print the arrays' identities) */
  @Override
  public String toString() {
    return "Advantages[values=" + Arrays.toString(values) + ", episodeTerm="
        + Arrays.toString(episodeTerm) + ", stepTerm=" + Arrays.toString(stepTerm)
        + ", stepGroupCount=" + stepGroupCount + ", meanStepGroupSize=" + meanStepGroupSize + "]";
  }

  /**
   * @param o another object
   * @return whether it holds equal values (the arrays compared by content)
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof Advantages a && Arrays.equals(values, a.values)
        && Arrays.equals(episodeTerm, a.episodeTerm) && Arrays.equals(stepTerm, a.stepTerm)
        && stepGroupCount == a.stepGroupCount
        && Double.compare(meanStepGroupSize, a.meanStepGroupSize) == 0;
  }

  /** @return a hash of the contents */
  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(values), Arrays.hashCode(episodeTerm),
        Arrays.hashCode(stepTerm), stepGroupCount, meanStepGroupSize);
  }
}
