package org.magejvm.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.spi.EnvironmentRegistry;

class QuickStartTest {

  @Test
  void runsTheWholePipelineOnASmallBatch(@TempDir Path dir) {
    StringWriter text = new StringWriter();
    QuickStart.Report report = new QuickStart(EnvironmentRegistry.discover(), new PrintWriter(text, true))
        .run(new QuickStart.Settings(dir, 1, 2, 4, 1));
    assertThat(report.checkpoint().resolve("model.safetensors")).exists();
    assertThat(report.checkpoint().resolve("tokenizer.json")).exists();
    assertThat(report.parameters()).isPositive();
    assertThat(report.metrics()).containsOnlyKeys("tiny-qwen3", "random", "minimax");
    assertThat(report.metrics().get("minimax").toMap().get("meta_episodes").intValue()).isEqualTo(2);
    // every turn of the tiny model's batch got an advantage; its actions are noise, so all are invalid
    assertThat(report.turns()).isPositive();
    assertThat(report.metrics().get("tiny-qwen3").toMap().get("invalid_action_rate").doubleValue())
        .isGreaterThan(0.5);
    assertThat(text.toString()).contains("GiGPO").contains("minimax").contains(report.checkpoint().toString());
  }
}
