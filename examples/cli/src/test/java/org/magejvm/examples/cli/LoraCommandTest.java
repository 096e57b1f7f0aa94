package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * {@code mage lora}, the real-checkpoint example, on a tiny checkpoint written in Hugging Face layout (it goes
 * through the loader a downloaded Qwen3 uses), warm-started with {@code mage sft} so that it writes some valid
 * actions and its turns get advantages: one tiny MAGE iteration with a LoRA adapter, then an evaluation of the
 * saved adapter.
 */
class LoraCommandTest {

  @TempDir Path tmp;

  @Test
  void trainsAnAdapterForOneIterationAndEvaluatesItAgain() throws Exception {
    Path data = tmp.resolve("kuhn.jsonl");
    assertThat(CliRun.of("transcripts", "--env", "mage-kuhn-poker", "--policy", "fixed-line,random",
        "--meta-episodes", "16", "--prompt-style", "compact", "--seed", "2", "--out", data.toString()).code())
        .isZero();
    Path tiny = tmp.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small(Files.readString(data, StandardCharsets.UTF_8), 5));
    Path warm = tmp.resolve("warm");
    CliRun sft = CliRun.of("sft", "--model", tiny.toString(), "--data", data.toString(), "--out", warm.toString(),
        "--steps", "30", "--batch-size", "4", "--lr", "3e-3", "--warmup", "5", "--no-thinking", "--threads", "1");
    assertThat(sft.code()).as(sft.err()).isZero();

    Path adapter = tmp.resolve("adapter");
    CliRun r = CliRun.of("lora", "--model", warm.toString(), "--env", "mage-kuhn-poker", "--iterations", "1",
        "--tasks", "2", "--group-size", "2", "--eval-meta-episodes", "2", "--max-new-tokens", "8", "--lora-rank",
        "2", "--lr", "1e-2", "--prompt-style", "compact", "--device", "auto", "--threads", "1", "--out",
        adapter.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("on the CPU (float32)", "LoRA r=2 alpha=4 on 7 projections",
        "before training (2 meta-episodes)", "training: mage-reference preset, 2 x 2 meta-episodes of 3 episodes",
        "KL 0.1 to the base weights (adapter off)",
        "after 1 iteration(s) (2 meta-episodes)", "saved the adapter");
    Matcher steps = Pattern.compile("iteration 0: .* optimizer steps (\\d+)").matcher(r.out());
    assertThat(steps.find()).as(r.out()).isTrue();
    assertThat(Integer.parseInt(steps.group(1))).as(r.out()).isPositive();

    // B starts at zero; after an applied step the saved adapter has moved
    try (Qwen3Model base = Qwen3Checkpoint.loadModel(warm, Device.cpu(), DataType.FLOAT32);
        LoraAdapter saved = PeftAdapters.load(adapter, base)) {
      assertThat(saved.config().rank()).isEqualTo(2);
      assertThat(saved.loraB(0, Projection.Q_PROJ).abs().sum().getFloat()).isPositive();
    }
    try (DjlLanguagePolicy p = Qwen3Checkpoint.loadPolicy(warm, Qwen3Checkpoint.Options.cpu(), adapter)) {
      assertThat(p.name()).isEqualTo("warm");
    }

    CliRun eval = CliRun.of("lora", "--model", warm.toString(), "--env", "mage-kuhn-poker", "--adapter",
        adapter.toString(), "--iterations", "0", "--eval-meta-episodes", "2", "--max-new-tokens", "8",
        "--prompt-style", "compact", "--threads", "1");
    assertThat(eval.code()).as(eval.err()).isZero();
    assertThat(eval.out()).contains("(from " + adapter + ")", "before training").doesNotContain("after");

    CliRun env = CliRun.of("lora", "--model", warm.toString(), "--env", "chess");
    assertThat(env.code()).isEqualTo(2);
    assertThat(env.err().strip()).doesNotContain("\n").contains("chess");
    CliRun missing = CliRun.of("lora", "--model", tmp.resolve("none").toString(), "--env", "mage-kuhn-poker");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err().strip()).doesNotContain("\n").contains("none", "does not exist");
  }
}
