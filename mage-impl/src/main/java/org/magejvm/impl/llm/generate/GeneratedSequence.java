package org.magejvm.impl.llm.generate;

import java.util.Objects;
import org.magejvm.api.FinishReason;

/**
 * The tokens generated for one prompt.
 *
 * @param tokenIds the sampled tokens, without the stop token that ended the sequence
 * @param logProbs the log-probability of each sampled token under the model's distribution at the sampling
 *     temperature (before top-p/top-k filtering)
 * @param finishReason whether a stop token or the length limit ended the sequence
 */
public record GeneratedSequence(int[] tokenIds, float[] logProbs, FinishReason finishReason) {

  /**
   * Validates and copies.
   *
   * @param tokenIds tokens
   * @param logProbs log-probabilities
   * @param finishReason finish reason
   */
  public GeneratedSequence {
    Objects.requireNonNull(finishReason, "finishReason");
    tokenIds = tokenIds.clone();
    logProbs = logProbs.clone();
    if (tokenIds.length != logProbs.length) {
      throw new IllegalArgumentException(
          tokenIds.length + " tokens but " + logProbs.length + " log-probabilities");
    }
  }

  /** @return a copy of the token ids */
  @Override
  public int[] tokenIds() {
    return tokenIds.clone();
  }

  /** @return a copy of the log-probabilities */
  @Override
  public float[] logProbs() {
    return logProbs.clone();
  }
}
