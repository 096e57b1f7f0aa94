package org.magejvm.impl.llm.generate;

import java.util.Arrays;
import java.util.Objects;
import org.magejvm.api.FinishReason;

/**
 * Everything sampled for one prompt, including the stop token that ended it (which {@link GeneratedSequence} leaves
 * out). Reinforcement learning usually trains on the stop token too, since emitting it is the decision to end the
 * response; this record keeps its id and log-probability for that.
 *
 * @param tokenIds the sampled tokens; when {@code finishReason} is STOP, the last one is the stop token
 * @param logProbs the log-probability of each sampled token under softmax(logits / T) of the unfiltered model
 *     distribution (T = 1 for greedy decoding)
 * @param finishReason STOP when a stop token ended the sequence, LENGTH when the token limit did
 */
public record SampledSequence(int[] tokenIds, float[] logProbs, FinishReason finishReason) {

  /**
   * Validates and copies.
   *
   * @param tokenIds tokens
   * @param logProbs log-probabilities
   * @param finishReason finish reason
   */
  public SampledSequence {
    Objects.requireNonNull(finishReason, "finishReason");
    tokenIds = tokenIds.clone();
    logProbs = logProbs.clone();
    if (tokenIds.length != logProbs.length) {
      throw new IllegalArgumentException(
          tokenIds.length + " tokens but " + logProbs.length + " log-probabilities");
    }
    if (finishReason == FinishReason.STOP && tokenIds.length == 0) {
      throw new IllegalArgumentException("a sequence that ended on a stop token holds at least that token");
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

  /** @return the number of sampled tokens, the stop token included */
  public int length() {
    return tokenIds.length;
  }

  /** @return the sum of the log-probabilities (the log-probability of the whole sequence) */
  public double totalLogProb() {
    double s = 0;
    for (float lp : logProbs) {
      s += lp;
    }
    return s;
  }

  /** @return the same tokens without the stop token, as the {@link TokenGenerator} contract returns them */
  public GeneratedSequence toGeneratedSequence() {
    int n = finishReason == FinishReason.STOP ? tokenIds.length - 1 : tokenIds.length;
    return new GeneratedSequence(
        Arrays.copyOf(tokenIds, n), Arrays.copyOf(logProbs, n), finishReason);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SampledSequence
        && Arrays.equals(((SampledSequence) o).tokenIds, tokenIds)
        && Arrays.equals(((SampledSequence) o).logProbs, logProbs)
        && ((SampledSequence) o).finishReason == finishReason;
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(tokenIds), Arrays.hashCode(logProbs), finishReason);
  }

  @Override
  public String toString() {
    return "SampledSequence" + Arrays.toString(tokenIds) + " " + finishReason;
  }
}
