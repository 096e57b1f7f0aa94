package org.magejvm.impl.llm.generate;

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
}
