package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/**
 * The policy-gradient loss of a {@link PolicyOptimizer}: a pure function of arrays, with no state between calls.
 *
 * <p><b>Micro-batches.</b> To accumulate gradients over the micro-batches of one minibatch, call {@link #compute}
 * once per micro-batch with the <em>minibatch's</em> normalizer ({@link LossInput#normalizer()}, the sum of
 * {@link LossAggregation#units} over its micro-batches) and call {@code backward} on each loss. The accumulated
 * gradient, the sum of the losses and the sum of the diagnostics ({@link LossDiagnostics#plus}) then equal those of a
 * single call on the whole minibatch.
 *
 * <p>Implementations are thread-safe; gradient recording is the caller's business (DJL's grad mode is per thread).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public interface PolicyLoss {

  /** @return how this loss aggregates tokens, which decides what {@link LossInput#normalizer()} counts */
  LossAggregation aggregation();

  /**
   * Computes the loss of one micro-batch.
   *
   * @param input the arrays and the minibatch normalizer
   * @return the scalar loss (attached to the manager of {@code input.logProbs()}) and its diagnostics
   * @throws IllegalArgumentException if the input does not suit this loss, for example no reference log-probabilities
   *     with a KL coefficient above 0, a mask value other than 0 and 1, or a normalizer smaller than this
   *     micro-batch's own count
   */
  LossResult compute(LossInput input);
}
