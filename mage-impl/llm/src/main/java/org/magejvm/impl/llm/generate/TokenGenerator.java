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
}
