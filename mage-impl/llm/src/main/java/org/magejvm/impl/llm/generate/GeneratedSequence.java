package org.magejvm.impl.llm.generate;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.FinishReason;

/**
 * The tokens generated for one prompt.
 *
 * <p>When a stop token ended the sequence it is the last token, with its log-probability: emitting it is the
 * policy's decision to end the response, so reinforcement learning trains on it like on any other token. Text
 * decoding leaves it out.
 *
 * @param tokenIds the sampled tokens; when {@code finishReason} is STOP, the last one is the stop token
 * @param logProbs the log-probability of each sampled token under softmax(logits / T) of the unfiltered model
 *     distribution (before top-p/top-k filtering; T = 1 for greedy decoding)
 * @param finishReason whether a stop token or the length limit ended the sequence
 * @param topLogProbs empty unless the call asked for alternatives; else one entry per sampled token: the most likely
 *     tokens of that step's distribution (the one {@code logProbs} are taken from)
 */
public record GeneratedSequence(int[] tokenIds, float[] logProbs, FinishReason finishReason,
    List<TopLogProbs> topLogProbs) {

  /**
   * Validates and copies.
   *
   * @param tokenIds tokens
   * @param logProbs log-probabilities
   * @param finishReason finish reason
   * @param topLogProbs empty, or one entry per token
   */
  public GeneratedSequence {
    Objects.requireNonNull(finishReason, "finishReason");
    tokenIds = tokenIds.clone();
    logProbs = logProbs.clone();
    topLogProbs = List.copyOf(topLogProbs);
    if (tokenIds.length != logProbs.length) {
      throw new IllegalArgumentException(
          tokenIds.length + " tokens but " + logProbs.length + " log-probabilities");
    }
    if (!topLogProbs.isEmpty() && topLogProbs.size() != tokenIds.length) {
      throw new IllegalArgumentException(
          tokenIds.length + " tokens but " + topLogProbs.size() + " sets of alternatives");
    }
  }

  /**
   * A sequence without alternatives.
   *
   * @param tokenIds tokens
   * @param logProbs log-probabilities
   * @param finishReason finish reason
   */
  public GeneratedSequence(int[] tokenIds, float[] logProbs, FinishReason finishReason) {
    this(tokenIds, logProbs, finishReason, List.of());
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

  /** @return the tokens without the stop token that ended the sequence (the tokens that carry text) */
  public int[] contentTokenIds() {
    int n = finishReason == FinishReason.STOP && tokenIds.length > 0 ? tokenIds.length - 1 : tokenIds.length;
    return Arrays.copyOf(tokenIds, n);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GeneratedSequence
        && Arrays.equals(((GeneratedSequence) o).tokenIds, tokenIds)
        && Arrays.equals(((GeneratedSequence) o).logProbs, logProbs)
        && ((GeneratedSequence) o).finishReason == finishReason
        && ((GeneratedSequence) o).topLogProbs.equals(topLogProbs);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * (31 * Arrays.hashCode(tokenIds) + Arrays.hashCode(logProbs))
        + finishReason.hashCode()) + topLogProbs.hashCode();
  }

  @Override
  public String toString() {
    return "GeneratedSequence" + Arrays.toString(tokenIds) + " " + finishReason;
  }

  /** @return the sum of the log-probabilities (the log-probability of the whole sequence) */
  public double totalLogProb() {
    double sum = 0;
    for (float lp : logProbs) {
      sum += lp;
    }
    return sum;
  }
}
