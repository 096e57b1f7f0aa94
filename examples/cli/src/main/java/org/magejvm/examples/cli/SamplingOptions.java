package org.magejvm.examples.cli;

import org.magejvm.api.SamplingConfig;
import picocli.CommandLine.Option;

/** The sampling options shared by the commands that run a model (picocli mixin). */
final class SamplingOptions {

  @Option(names = "--max-new-tokens", paramLabel = "N", defaultValue = "256",
      description = "Most tokens per response (default: ${DEFAULT-VALUE}).")
  int maxNewTokens;

  @Option(names = "--temperature", paramLabel = "T",
      description = "Sampling temperature, 0 for greedy (default: 0.7, the reference's evaluation setting).")
  Double temperature;

  @Option(names = "--top-p", paramLabel = "P", description = "Nucleus sampling mass in (0, 1] (default: 0.8).")
  Double topP;

  @Option(names = "--top-k", paramLabel = "K", description = "Keep the K most likely tokens, 0 for all (default: 20).")
  Integer topK;

  @Option(names = "--sampling-seed", paramLabel = "S",
      description = "Seed of the token sampler (default: derived from --seed).")
  Long samplingSeed;

  @Option(names = "--no-thinking", description = "Render the chat template with enable_thinking=false.")
  boolean noThinking;

  /**
   * @param defaultSeed the seed used when {@code --sampling-seed} is absent
   * @return the sampling config: the reference evaluation preset, overridden by the given options
   */
  SamplingConfig toConfig(long defaultSeed) {
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
