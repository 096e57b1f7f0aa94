package org.magejvm.examples.cli;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code mage generate}: samples a continuation of a prompt from a checkpoint. */
@Command(name = "generate", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Generate text from a Qwen3 checkpoint directory, raw or as a chat reply (--chat).")
final class GenerateCommand implements Callable<Integer>, Limits.OptionPhase {

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "Hugging Face checkpoint directory (config, safetensors, tokenizer).")
  Path model;

  @Option(names = "--prompt", required = true, paramLabel = "TEXT", description = "The prompt text.")
  String prompt;

  @Option(names = "--chat", description = "Wrap the prompt as one user message with the checkpoint's chat template.")
  boolean chat;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Sampling seed (default: 0).")
  long seed;

  @Option(names = "--json", description = "Print JSON with token ids, log-probabilities and timing.")
  boolean json;

  @Mixin SamplingOptions sampling;

  @Mixin ModelOptions modelOptions;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    Limits.maxNewTokens(spec, sampling.maxNewTokens, model);
    SamplingConfig config = sampling.toConfig(seed);
    Limits.endOfOptions();
    int[] promptIds;
    int[] responseIds;
    float[] logProbs;
    FinishReason finish;
    String text;
    long start;
    long elapsed;
    // tokenized and checked against the context before the weights load (a prompt too long costs no allocation)
    int[] rawIds = Qwen3Checkpoint.encodePrompt(model, prompt, chat, !sampling.noThinking);
    if (!chat && rawIds.length == 0) {
      throw new IllegalArgumentException("the prompt encodes to no tokens; give some text or use --chat");
    }
    try (DjlLanguagePolicy policy =
        Qwen3Checkpoint.loadPolicy(model, modelOptions.toOptions(seed, !sampling.noThinking))) {
      if (chat) {
        start = System.nanoTime();
        Generation g = policy.generate(List.of(PolicyRequest.of(prompt)), config).get(0);
        elapsed = System.nanoTime() - start;
        promptIds = g.promptTokenIds();
        responseIds = g.responseTokenIds();
        logProbs = g.logProbs();
        finish = g.finishReason();
        text = g.text();
      } else {
        promptIds = rawIds;
        start = System.nanoTime();
        GeneratedSequence s =
            policy.generator().generate(List.of(promptIds), config, policy.stopTokenIds()).get(0);
        elapsed = System.nanoTime() - start;
        responseIds = s.tokenIds();
        logProbs = s.logProbs();
        finish = s.finishReason();
        text = policy.tokenizer().decodeGenerated(s.contentTokenIds(), true);
      }
    }
    double ms = elapsed / 1e6;
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("model", model.toString());
      root.put("chat", chat);
      root.put("text", text);
      root.put("finish_reason", finish.name().toLowerCase(Locale.ROOT));
      root.put("prompt_ids", promptIds);
      root.put("response_ids", responseIds);
      root.put("log_probs", logProbs);
      root.put("generation_ms", ms);
      root.put("tokens_per_second", responseIds.length / Math.max(ms / 1000, 1e-9));
      out.println(new GsonBuilder().setPrettyPrinting().create().toJson(root));
    } else {
      out.println(text);
      spec.commandLine().getErr().printf(Locale.ROOT, "%d prompt tokens, %d new tokens in %.0f ms (%.1f tokens/s),"
          + " finished by %s%n", promptIds.length, responseIds.length, ms, responseIds.length / Math.max(ms / 1000,
          1e-9), finish.name().toLowerCase(Locale.ROOT));
    }
    out.flush();
    return 0;
  }
}
