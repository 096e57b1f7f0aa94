package org.magejvm.examples.cli;

import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.serve.CompletionServer;
import picocli.CommandLine.Option;

/**
 * The sampling options shared by the commands that run a model (picocli mixin), checked by the rules {@code mage
 * serve} applies to the same fields of a request: temperature 0 or at least {@link CompletionServer#MIN_TEMPERATURE},
 * top-p in (0, 1], top-k at least -1 (0 and -1 keep every token).
 */
final class SamplingOptions {

  @Option(names = "--max-new-tokens", paramLabel = "N", defaultValue = "256",
      description = "Most tokens per response (default: ${DEFAULT-VALUE}).")
  int maxNewTokens;

  @Option(names = "--temperature", paramLabel = "T",
      description = "Sampling temperature: 0 for greedy, else at least " + CompletionServer.MIN_TEMPERATURE
          + " (default: 0.7, the reference's evaluation setting).")
  Double temperature;

  @Option(names = "--top-p", paramLabel = "P", description = "Nucleus sampling mass in (0, 1] (default: 0.8).")
  Double topP;

  @Option(names = "--top-k", paramLabel = "K",
      description = "Keep the K most likely tokens, 0 (or -1, as in vLLM) for all (default: 20).")
  Integer topK;

  @Option(names = "--sampling-seed", paramLabel = "S",
      description = "Seed of the token sampler (default: derived from --seed).")
  Long samplingSeed;

  @Option(names = "--no-thinking", description = "Render the chat template with enable_thinking=false.")
  boolean noThinking;

  /**
   * @param defaultSeed the seed used when {@code --sampling-seed} is absent
   * @return the sampling config: the reference evaluation preset, overridden by the given options
   * @throws IllegalArgumentException naming the option when a value is out of range (a usage error)
   */
  SamplingConfig toConfig(long defaultSeed) {
    if (temperature != null && (!Double.isFinite(temperature) || temperature < 0
        || (temperature > 0 && temperature < CompletionServer.MIN_TEMPERATURE))) {
      throw new IllegalArgumentException("--temperature must be 0 (greedy) or in [" + CompletionServer.MIN_TEMPERATURE
          + ", infinity), got " + temperature + (temperature > 0 && temperature < CompletionServer.MIN_TEMPERATURE
          ? ": that small a temperature is greedy decoding in all but name, and below about 1e-38 the logits"
              + " divided by it overflow" : ""));
    }
    if (topP != null && !(topP > 0 && topP <= 1)) {
      throw new IllegalArgumentException("--top-p must be in (0, 1], got " + topP);
    }
    if (topK != null && topK < -1) {
      throw new IllegalArgumentException("--top-k must be >= -1 (0 and -1 keep every token), got " + topK);
    }
    if (maxNewTokens < 1) {
      throw new IllegalArgumentException("--max-new-tokens must be >= 1, got " + maxNewTokens);
    }
    SamplingConfig preset = SamplingConfig.evaluation(maxNewTokens);
    return SamplingConfig.builder()
        .optMaxNewTokens(maxNewTokens)
        .optMinNewTokens(Math.min(preset.minNewTokens(), maxNewTokens))
        .optTemperature(temperature != null ? temperature : preset.temperature())
        .optTopP(topP != null ? topP : preset.topP())
        .optTopK(topK != null ? topK : preset.topK())
        .optSeed(samplingSeed != null ? samplingSeed : defaultSeed)
        .build();
  }
}
