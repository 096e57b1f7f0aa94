package org.magejvm.api;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * How a {@link PolicyLoss} turns a per-token loss matrix into a scalar. Both modes divide by a normalizer that the
 * caller passes in {@link LossInput#normalizer()}: the count of the mode's units (tokens or sequences) over the whole
 * minibatch, so that micro-batches of one minibatch add up to the minibatch's value.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum LossAggregation {

  /**
   * The sum over every response token of the minibatch divided by the minibatch's number of response tokens
   * (the reference's {@code token-mean}, the default). Every token weighs the same.
   */
  TOKEN_MEAN,

  /**
   * The mean over the response tokens of each sequence, then the mean of those over the minibatch's sequences
   * (the reference's {@code seq-mean-token-mean}). Every sequence weighs the same, whatever its length. A sequence
   * without response tokens contributes nothing.
   */
  SEQ_MEAN_TOKEN_MEAN;

  /**
   * Counts this mode's units in one mask: the response tokens ({@link #TOKEN_MEAN}) or the sequences with at least
   * one response token ({@link #SEQ_MEAN_TOKEN_MEAN}). The sum of this count over the micro-batches of a minibatch
   * is the {@link LossInput#normalizer()} to pass with each of them.
   *
   * @param mask a {@code (B, T)} mask, nonzero for response tokens
   * @return the number of units in {@code mask}
   */
  public long units(NDArray mask) {
    Objects.requireNonNull(mask, "mask");
    if (mask.getShape().dimension() != 2) {
      throw new IllegalArgumentException("mask must have shape (B, T), got " + mask.getShape());
    }
    try (NDArray nonzero = mask.neq(0); NDArray ones = nonzero.toType(DataType.INT64, false)) {
      if (this == TOKEN_MEAN) {
        try (NDArray count = ones.sum()) {
          return count.getLong();
        }
      }
      try (NDArray perRow = ones.sum(new int[] {1}); NDArray nonEmpty = perRow.gt(0);
          NDArray rows = nonEmpty.toType(DataType.INT64, false); NDArray count = rows.sum()) {
        return count.getLong();
      }
    }
  }
}
