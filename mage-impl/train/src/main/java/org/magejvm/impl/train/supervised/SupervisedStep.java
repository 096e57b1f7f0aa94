package org.magejvm.impl.train.supervised;

import org.magejvm.impl.train.update.StepReport;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * One optimizer step of supervised training, as reported to a {@link SupervisedTrainer.Listener}.
 *
 * @param epoch the pass over the examples, counted from 1
 * @param step the step within this {@link SupervisedTrainer#train} call, counted from 1
 * @param examples the number of examples in the batch
 * @param tokens the number of response tokens the loss averages over
 * @param loss the batch's token-mean cross-entropy of the response tokens (nats per token), before the update
 * @param optimizer what the optimizer did
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record SupervisedStep(int epoch, int step, int examples, int tokens, double loss, StepReport optimizer) {

  /**
   * Validates.
   *
   * @param epoch epoch
   * @param step step
   * @param examples batch size
   * @param tokens response tokens
   * @param loss loss
   * @param optimizer optimizer report
   */
  public SupervisedStep {
    Objects.requireNonNull(optimizer, "optimizer");
  }
}
