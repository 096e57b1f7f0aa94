package org.magejvm.impl.llm.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.training.GradientCollector;
import java.util.Optional;

/**
 * Teacher-forced per-token scores of a batch of responses, as arrays of shape (B, R) where R is the longest
 * response: log-probabilities, a mask that is 1 on real response tokens and 0 on padding, and optionally entropies.
 * Padding entries of the log-probabilities and entropies are 0. The arrays belong to the manager the scores were
 * computed in; when gradients were being recorded they are connected to the model's parameters.
 *
 * <p>Scores computed with recomputation ({@link Recompute}) are connected to the parameters only through a second
 * stage: after a backward pass from a function of them, {@link #completeBackward} carries the gradient on (a
 * training loop calls it after every backward pass; it does nothing for scores that need no second stage).
 */
public final class TokenScores implements AutoCloseable {
  private final NDArray logProbs;
  private final NDArray mask;
  private final NDArray entropy;
  private final int[] lengths;
  private Pending pending;

  /** The second stage of a backward pass through recomputed activations. */
  interface Pending extends AutoCloseable {
    /** @param collector the active collector, after the caller's backward pass */
    void backward(GradientCollector collector);

    @Override
    void close();
  }

  TokenScores(NDArray logProbs, NDArray mask, NDArray entropy, int[] lengths) {
    this(logProbs, mask, entropy, lengths, null);
  }

  TokenScores(NDArray logProbs, NDArray mask, NDArray entropy, int[] lengths, Pending pending) {
    this.logProbs = logProbs;
    this.mask = mask;
    this.entropy = entropy;
    this.lengths = lengths.clone();
    this.pending = pending;
  }

  /** @return the second stage, which these scores no longer own, or null */
  Pending takePending() {
    Pending p = pending;
    pending = null;
    return p;
  }

  /**
   * Carries the gradient of the backward pass just run from a function of these scores on to the parameters, where
   * they were computed with recomputation ({@link Recompute}); does nothing otherwise. Call it once, inside the same
   * gradient collector, after {@code collector.backward(loss)}; a second call does nothing.
   *
   * @param collector the active gradient collector
   */
  public void completeBackward(GradientCollector collector) {
    Pending p = takePending();
    if (p != null) {
      try (p) {
        p.backward(collector);
      }
    }
  }

  /** @return (B, R) log-probabilities of the response tokens (0 on padding) */
  public NDArray logProbs() {
    return logProbs;
  }

  /** @return (B, R) 1 on response tokens, 0 on padding, in the log-probabilities' type */
  public NDArray mask() {
    return mask;
  }

  /** @return (B, R) entropies of the predicted distributions (0 on padding), if they were asked for */
  public Optional<NDArray> entropy() {
    return Optional.ofNullable(entropy);
  }

  /** @return the length of each response */
  public int[] lengths() {
    return lengths.clone();
  }

  /** Closes the arrays (those of the autograd graph stay alive until the graph is released). */
  @Override
  public void close() {
    Pending p = takePending();
    if (p != null) {
      p.close();
    }
    logProbs.close();
    mask.close();
    if (entropy != null) {
      entropy.close();
    }
  }
}
