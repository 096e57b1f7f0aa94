package org.magejvm.impl.llm.generate;

import ai.djl.ndarray.NDArray;
import java.util.Optional;

/**
 * Teacher-forced per-token scores of a batch of responses, as arrays of shape (B, R) where R is the longest
 * response: log-probabilities, a mask that is 1 on real response tokens and 0 on padding, and optionally entropies.
 * Padding entries of the log-probabilities and entropies are 0. The arrays belong to the manager the scores were
 * computed in; when gradients were being recorded they are connected to the model's parameters.
 */
public final class TokenScores implements AutoCloseable {
  private final NDArray logProbs;
  private final NDArray mask;
  private final NDArray entropy;
  private final int[] lengths;

  TokenScores(NDArray logProbs, NDArray mask, NDArray entropy, int[] lengths) {
    this.logProbs = logProbs;
    this.mask = mask;
    this.entropy = entropy;
    this.lengths = lengths.clone();
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
    logProbs.close();
    mask.close();
    if (entropy != null) {
      entropy.close();
    }
  }
}
