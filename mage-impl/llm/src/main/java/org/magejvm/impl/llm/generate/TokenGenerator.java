package org.magejvm.impl.llm.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.magejvm.api.SamplingConfig;

/** Generates token sequences for a batch of tokenised prompts. */
public interface TokenGenerator {

  /**
   * Generates one continuation per prompt, batched.
   *
   * @param prompts the prompt token ids, one array per sequence (lengths may differ)
   * @param sampling temperature, top-p, top-k, token limits and seed
   * @param stopTokenIds tokens that end a sequence (kept as the last token of a sequence they end)
   * @return one sequence per prompt, in order
   */
  List<GeneratedSequence> generate(List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds);

  /**
   * Generates one continuation per prompt with a seed per row: row {@code i} comes out as a one-row call of {@link
   * #generate(List, SamplingConfig, Set)} with {@code sampling.withSeed(seeds[i])} would make it (up to the
   * rounding differences batching brings). A server batches requests that carry their own seeds this way. The
   * default runs the rows one at a time; {@link Qwen3Generator} batches them.
   *
   * @param prompts the prompt token ids, one array per sequence
   * @param sampling temperature, filters and token limits; its seed is ignored
   * @param stopTokenIds tokens that end a sequence
   * @param seeds one sampling seed per prompt
   * @return one sequence per prompt, in order
   * @throws IllegalArgumentException when the number of seeds is not the number of prompts
   */
  default List<GeneratedSequence> generate(
      List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds, long[] seeds) {
    if (seeds.length != prompts.size()) {
      throw new IllegalArgumentException(seeds.length + " seeds for " + prompts.size() + " prompts");
    }
    List<GeneratedSequence> out = new ArrayList<>(prompts.size());
    for (int i = 0; i < prompts.size(); i++) {
      out.add(generate(List.of(prompts.get(i)), sampling.withSeed(seeds[i]), stopTokenIds).get(0));
    }
    return out;
  }

  /**
   * Sees each token as it is sampled, on the generating thread, and may end its row early (a server streaming
   * tokens, cutting at a stop string, or dropping a row whose client went away).
   */
  @FunctionalInterface
  interface TokenListener {
    /**
     * Called once per sampled token, rows of one step in row order, steps in order. A row ended by a stop token or
     * the token limit is not called again whatever this returns.
     *
     * @param row the row in the call's prompt list
     * @param token the sampled token (a stop token included)
     * @param logProb its log-probability, as {@link GeneratedSequence#logProbs} reports it
     * @return whether the row goes on; false ends it after this token
     */
    boolean onToken(int row, int token, float logProb);

    /**
     * Called instead of {@link #onToken(int, int, float)} by a generator computing alternatives; the default
     * ignores them.
     *
     * @param row the row in the call's prompt list
     * @param token the sampled token (a stop token included)
     * @param logProb its log-probability, as {@link GeneratedSequence#logProbs} reports it
     * @param top the step's most likely tokens, or null when the call asked for none
     * @return whether the row goes on; false ends it after this token
     */
    default boolean onToken(int row, int token, float logProb, TopLogProbs top) {
      return onToken(row, token, logProb);
    }
  }

  /**
   * Generates as {@link #generate(List, SamplingConfig, Set, long[], TokenListener)} (or without a listener) and
   * also reports, for every sampled token, the {@code topLogProbs} most likely tokens of its step ({@link
   * GeneratedSequence#topLogProbs}, and to the listener). The default supports only {@code topLogProbs == 0};
   * {@link Qwen3Generator} computes them.
   *
   * @param prompts the prompt token ids, one array per sequence
   * @param sampling temperature, filters and token limits; its seed is ignored
   * @param stopTokenIds tokens that end a sequence
   * @param seeds one sampling seed per prompt
   * @param listener sees each token and may end its row, or null
   * @param topLogProbs how many alternatives per token, 0 for none (at most the vocabulary size)
   * @return one sequence per prompt, in order
   * @throws IllegalArgumentException when the number of seeds is not the number of prompts or {@code topLogProbs}
   *     is negative
   * @throws UnsupportedOperationException when alternatives are asked of a generator that cannot compute them
   */
  default List<GeneratedSequence> generate(List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds,
      long[] seeds, TokenListener listener, int topLogProbs) {
    if (topLogProbs < 0) {
      throw new IllegalArgumentException("topLogProbs must be >= 0, got " + topLogProbs);
    }
    if (topLogProbs > 0) {
      throw new UnsupportedOperationException(getClass().getName() + " computes no alternative tokens");
    }
    return listener == null ? generate(prompts, sampling, stopTokenIds, seeds)
        : generate(prompts, sampling, stopTokenIds, seeds, listener);
  }

  /**
   * Generates as {@link #generate(List, SamplingConfig, Set, long[])}, telling {@code listener} each sampled token.
   * A row the listener ends comes back with the tokens sampled so far and {@link
   * org.magejvm.api.FinishReason#LENGTH} (no stop token ended it; the listener knows why it did). A generator that
   * overrides this method calls the listener as each step is sampled and drops a row it ends from the batch;
   * this default generates first and then tells the listener every token of each row in turn, so its rows cannot end
   * early and a streaming caller sees each row's tokens only at the end (after a stop, it keeps the tokens up to
   * the one the listener ended the row at).
   *
   * @param prompts the prompt token ids, one array per sequence
   * @param sampling temperature, filters and token limits; its seed is ignored
   * @param stopTokenIds tokens that end a sequence
   * @param seeds one sampling seed per prompt
   * @param listener sees each token and may end its row
   * @return one sequence per prompt, in order
   * @throws IllegalArgumentException when the number of seeds is not the number of prompts
   */
  default List<GeneratedSequence> generate(List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds,
      long[] seeds, TokenListener listener) {
    List<GeneratedSequence> all = generate(prompts, sampling, stopTokenIds, seeds);
    List<GeneratedSequence> out = new ArrayList<>(all.size());
    for (int row = 0; row < all.size(); row++) {
      GeneratedSequence s = all.get(row);
      int[] ids = s.tokenIds();
      float[] lps = s.logProbs();
      List<TopLogProbs> tops = s.topLogProbs();
      int kept = ids.length;
      for (int j = 0; j < ids.length; j++) {
        if (!listener.onToken(row, ids[j], lps[j], tops.isEmpty() ? null : tops.get(j)) && j + 1 < ids.length) {
          kept = j + 1;
          break;
        }
      }
      out.add(kept == ids.length ? s : new GeneratedSequence(java.util.Arrays.copyOf(ids, kept),
          java.util.Arrays.copyOf(lps, kept), org.magejvm.api.FinishReason.LENGTH,
          tops.isEmpty() ? tops : tops.subList(0, kept)));
    }
    return out;
  }
}
