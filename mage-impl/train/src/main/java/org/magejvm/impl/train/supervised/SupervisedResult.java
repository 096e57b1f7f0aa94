package org.magejvm.impl.train.supervised;

import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * What a {@link SupervisedTrainer#train} call did.
 *
 * @param examples the number of examples trained on (one per assistant turn that fits the length limit)
 * @param droppedExamples the number of assistant turns left out because they exceed the length limit
 * @param steps every step, in order
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record SupervisedResult(int examples, int droppedExamples, List<SupervisedStep> steps) {

  /**
   * Validates and copies.
   *
   * @param examples examples used
   * @param droppedExamples examples dropped
   * @param steps the steps
   */
  public SupervisedResult {
    Objects.requireNonNull(steps, "steps");
    steps = List.copyOf(steps);
  }

  /** @return the loss of the first step (NaN when there was none) */
  public double firstLoss() {
    return steps.isEmpty() ? Double.NaN : steps.get(0).loss();
  }

  /** @return the loss of the last step (NaN when there was none) */
  public double lastLoss() {
    return steps.isEmpty() ? Double.NaN : steps.get(steps.size() - 1).loss();
  }
}
