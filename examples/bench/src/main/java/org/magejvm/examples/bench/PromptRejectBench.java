package org.magejvm.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;

/**
 * Measures how long a {@link DjlLanguagePolicy} takes to reject a prompt far beyond the model's context (an
 * environment returning a huge observation): the time from {@code generate} to its {@link PolicyRequestException}.
 *
 * <p>Usage: {@code mage bench prompt-reject [model=DIR] [chars=1000000] [repeats=3]}. Without a model it writes the
 * tiny checkpoint (context 8192) to a temporary directory. The prompt is English-like text of {@code chars}
 * characters.
 */
public final class PromptRejectBench {

  private PromptRejectBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args {@code key=value} arguments
   * @throws IOException when the temporary directory cannot be written
   */
  public static void main(String[] args) throws IOException {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("model", "");
    o.put("chars", "1000000");
    o.put("repeats", "3");
    BenchArgs.apply(o, args);
    Path dir;
    if (o.get("model").isEmpty()) {
      dir = Files.createTempDirectory("prompt-reject");
      TinyCheckpoint.write(dir, TinyCheckpoint.Spec.small("the opponent bets; I pass or call. ", 1));
    } else {
      dir = Path.of(o.get("model"));
    }
    int chars = Integer.parseInt(o.get("chars"));
    String unit = "The opponent raised again, so on the next deal I will call with a king and fold a jack. ";
    String prompt = unit.repeat(chars / unit.length() + 1).substring(0, chars);
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu())) {
      System.out.printf("model %s: prompt limit %d tokens; prompt of %,d characters%n", dir, policy.promptLimit(),
          prompt.length());
      long r0 = System.nanoTime();
      String rendered = policy.renderPrompt(prompt);
      long r1 = System.nanoTime();
      int tokens = policy.tokenizer().encode(rendered).length;
      long r2 = System.nanoTime();
      System.out.printf("for reference: the chat template renders it in %.1f ms, the tokenizer encodes it to %,d"
          + " tokens in %.1f ms%n", (r1 - r0) / 1e6, tokens, (r2 - r1) / 1e6);
      int repeats = Integer.parseInt(o.get("repeats"));
      for (int i = 0; i < repeats; i++) {
        long t0 = System.nanoTime();
        String outcome;
        try {
          policy.generate(List.of(PolicyRequest.of(prompt)), SamplingConfig.evaluation(8));
          outcome = "generated (not rejected)";
        } catch (PolicyRequestException e) {
          outcome = "rejected: " + e.rejected().get(0);
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        System.out.printf("run %d: %.1f ms, %s%n", i + 1, ms, outcome.length() > 200 ? outcome.substring(0, 200)
            + "..." : outcome);
      }
    }
  }
}
