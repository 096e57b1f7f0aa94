package org.magejvm.impl.llm.generate;

import java.util.Arrays;

/**
 * The most likely tokens of one generation step and their log-probabilities, most likely first: the top K of the
 * same distribution a {@link GeneratedSequence} reports the sampled token's log-probability under (log-softmax of the
 * logits divided by the temperature, before top-k, top-p and stop-token masking; temperature 1 when greedy). The
 * sampled token's log-probability is therefore equal to its entry here whenever it is among the K.
 *
 * @param tokenIds the K token ids, by decreasing log-probability (ties in the engine's order)
 * @param logProbs their log-probabilities, non-increasing
 */
public record TopLogProbs(int[] tokenIds, float[] logProbs) {

  /**
   * Validates and copies.
   *
   * @param tokenIds token ids
   * @param logProbs log-probabilities
   */
  public TopLogProbs {
    tokenIds = tokenIds.clone();
    logProbs = logProbs.clone();
    if (tokenIds.length != logProbs.length) {
      throw new IllegalArgumentException(tokenIds.length + " tokens but " + logProbs.length + " log-probabilities");
    }
  }

  /** @return a copy of the token ids, most likely first */
  @Override
  public int[] tokenIds() {
    return tokenIds.clone();
  }

  /** @return a copy of the log-probabilities, largest first */
  @Override
  public float[] logProbs() {
    return logProbs.clone();
  }

  /** @return K, the number of alternatives */
  public int size() {
    return tokenIds.length;
  }

  /**
   * @param k at most this many
   * @return the first {@code min(k, size())} alternatives
   */
  public TopLogProbs first(int k) {
    return k >= tokenIds.length ? this
        : new TopLogProbs(Arrays.copyOf(tokenIds, k), Arrays.copyOf(logProbs, k));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TopLogProbs && Arrays.equals(((TopLogProbs) o).tokenIds, tokenIds)
        && Arrays.equals(((TopLogProbs) o).logProbs, logProbs);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(tokenIds) + Arrays.hashCode(logProbs);
  }

  @Override
  public String toString() {
    return "TopLogProbs" + Arrays.toString(tokenIds) + Arrays.toString(logProbs);
  }
}
