package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.TinyCheckpoint;

/**
 * A prompt beyond the model's context ({@code max_position_embeddings}) is refused with one line naming its length and
 * the context, before the weights are read: the checkpoint here has no weight file at all, so an error about the
 * weights would mean they were being loaded.
 */
class PromptContextTest {

  @TempDir static Path tmp;
  static Path noWeights;
  static final String CONTEXT = "more than the model's context of " + TinyCheckpoint.MAX_POSITION_EMBEDDINGS
      + " tokens (max_position_embeddings in config.json)";

  @BeforeAll
  static void writeTiny() throws IOException {
    noWeights = tmp.resolve("tiny");
    TinyCheckpoint.write(noWeights, TinyCheckpoint.Spec.small("<action>(1, 1)</action> PASS BET", 3));
    try (var files = Files.list(noWeights)) {
      for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".safetensors")).toList()) {
        Files.delete(f);
      }
    }
  }

  @Test
  void generateRefusesARawOrChatPromptBeyondTheContextBeforeLoadingWeights() {
    // "PASS " is one or two tokens of the tiny tokenizer: 10,000 of them are beyond the context of 8192
    for (boolean chat : new boolean[] {false, true}) {
      CliRun r = chat
          ? CliRun.of("generate", "--model", noWeights.toString(), "--prompt", "PASS ".repeat(10_000), "--chat")
          : CliRun.of("generate", "--model", noWeights.toString(), "--prompt", "PASS ".repeat(10_000));
      assertThat(r.code()).as(r.err()).isNotZero();
      assertThat(r.err()).as(r.err())
          .matches("(?s)error: the prompt is (\\d+ tokens|at least \\d+ tokens \\(\\d+ characters\\)), "
              + java.util.regex.Pattern.quote(CONTEXT) + "\\R")
          .doesNotContain("safetensors");
    }
    // a megabyte is refused by its length in characters alone
    CliRun huge = CliRun.of("generate", "--model", noWeights.toString(), "--prompt", "x".repeat(1 << 20));
    assertThat(huge.err()).containsPattern("the prompt is at least \\d+ tokens \\(1048576 characters\\), ")
        .contains(CONTEXT).hasLineCount(1);
  }

  @Test
  void logitsRefuseIdsBeyondTheContextBeforeLoadingWeights() {
    CliRun r = CliRun.of("logits", "--model", noWeights.toString(), "--ids",
        "1,".repeat(TinyCheckpoint.MAX_POSITION_EMBEDDINGS) + "1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: --ids: the prompt is " + (TinyCheckpoint.MAX_POSITION_EMBEDDINGS + 1) + " tokens, "
        + CONTEXT).hasLineCount(1);
  }
}
