package org.magejvm.api;

import ai.djl.ndarray.NDArray;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * The result of one {@link PolicyLoss#compute(LossInput)} call.
 *
 * <p>{@code loss} is a scalar attached to the manager of {@link LossInput#logProbs()}; it is differentiable with
 * respect to the log-probabilities (and the entropies, if given). Closing the result closes the loss array; close
 * it after {@code backward}.
 *
 * @param loss the scalar loss of this micro-batch, ready for {@code backward}
 * @param diagnostics the same loss and its parts as plain numbers
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record LossResult(NDArray loss, LossDiagnostics diagnostics) implements AutoCloseable {

  /**
   * Checks both parts are present.
   *
   * @param loss scalar loss
   * @param diagnostics diagnostics
   */
  public LossResult {
    Objects.requireNonNull(loss, "loss");
    Objects.requireNonNull(diagnostics, "diagnostics");
  }

  /** Closes the loss array. */
  @Override
  public void close() {
    loss.close();
  }
}
