package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mage train} on a tiny model, {@code mage train --resume} and {@code mage report}. */
class TrainCommandTest {

  @Test
  void evaluationOnlyPresetsAreRefused(@TempDir Path tmp) {
    CliRun r = CliRun.of("train", "--preset", "reflexion", "--env", "mage-kuhn-poker", "--tiny", "--out",
        tmp.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("evaluation-only").contains("mage play --preset reflexion");
  }

  @Test
  void trainsATinyModelResumesAndReports(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("run");
    // cli-guess (test sources): 3 turns of short prompts; its evaluation opponent "greedy" is also in the pool.
    // gigpo plays single episodes; validation (3 attempts) first runs after the resumed iteration
    CliRun first = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        out.toString(), "--iterations", "1", "--tasks", "1", "--group-size", "2", "--validate-every", "2",
        "--checkpoint-every", "1", "--val-meta-episodes", "2", "--max-new-tokens", "6", "--seed", "3", "--lr",
        "1e-3", "--threads", "1");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).contains("mage train: preset gigpo on cli-guess").contains("done: 1 iterations");
    List<String> lines = Files.readAllLines(out.resolve("metrics.jsonl"));
    assertThat(lines).hasSize(1);
    assertThat(JsonParser.parseString(lines.get(0)).getAsJsonObject().keySet()).contains("iteration",
        "success_rate[0]", "skipped_zero_advantage_turns", "timing/rollout_s");
    assertThat(out.resolve("tiny-model/model.safetensors")).isRegularFile();
    assertThat(out.resolve("checkpoints/iter-00000001/manifest.json")).isRegularFile();

    CliRun again = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        out.toString());
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err()).contains("already holds a run").contains("--resume");

    CliRun changed = CliRun.of("train", "--resume", out.toString(), "--lr", "0.5");
    assertThat(changed.code()).isEqualTo(1);
    assertThat(changed.err()).contains("--lr 0.5 (recorded: 0.001)");

    CliRun resumed = CliRun.of("train", "--resume", out.toString(), "--iterations", "2");
    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("iterations 1..2").contains("done: 2 iterations");
    lines = Files.readAllLines(out.resolve("metrics.jsonl"));
    assertThat(lines).hasSize(2);
    JsonObject m = JsonParser.parseString(lines.get(1)).getAsJsonObject();
    assertThat(m.get("iteration").getAsInt()).isEqualTo(1);
    assertThat(m.keySet()).contains("val/success_rate[2]", "val/greedy/success_rate[2]",
        "val/patient/success_rate[2]");
    assertThat(out.resolve("checkpoints/iter-00000002/manifest.json")).isRegularFile();

    CliRun report = CliRun.of("report", out.toString());
    assertThat(report.code()).as(report.err()).isZero();
    assertThat(report.out()).contains("2 iterations (0..1)").contains("val/greedy/success_rate[2]")
        .contains("checkpoints: [1, 2]").contains("chart files written");
    assertThat(out.resolve("charts/val_success_rate.png")).isRegularFile();
    assertThat(out.resolve("charts/val_success_rate_greedy.svg")).isRegularFile();
  }
}
