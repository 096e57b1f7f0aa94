package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/** {@code mage train} on a tiny model, {@code mage train --resume} and {@code mage report}. */
class TrainCommandTest {

  @Test
  void evaluationOnlyPresetsAreRefused(@TempDir Path tmp) {
    CliRun r = CliRun.of("train", "--preset", "reflexion", "--env", "mage-kuhn-poker", "--tiny", "--out",
        tmp.toString());
    assertThat(r.code()).isEqualTo(2);
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
        "1e-3", "--threads", "1", "--step-timeout", "60");
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
    assertThat(again.code()).isEqualTo(2);
    assertThat(again.err()).contains("already holds a run").contains("--resume");

    CliRun changed = CliRun.of("train", "--resume", out.toString(), "--lr", "0.5");
    assertThat(changed.code()).isEqualTo(2);
    assertThat(changed.err()).contains("--lr 0.5 (recorded: 0.001)");

    CliRun asLora = CliRun.of("train", "--resume", out.toString(), "--lora-rank", "2");
    assertThat(asLora.code()).isEqualTo(2);
    assertThat(asLora.err()).contains("trainer-state.json (field 'run')")
        .contains("--lora-rank 2 (recorded: none: the checkpoint holds full weights)");

    CliRun resumed = CliRun.of("train", "--resume", out.toString(), "--iterations", "2",
        "--step-timeout", "60");
    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("iterations 1..2").contains("done: 2 iterations");
    lines = Files.readAllLines(out.resolve("metrics.jsonl"));
    assertThat(lines).hasSize(2);
    JsonObject m = JsonParser.parseString(lines.get(1)).getAsJsonObject();
    assertThat(m.get("iteration").getAsInt()).isEqualTo(1);
    // greedy is in the pool and the held-out evaluation opponent: the population's numbers and the held-out set's
    // have keys of their own
    assertThat(m.keySet()).contains("val/success_rate[2]", "val/greedy/success_rate[2]",
        "val/patient/success_rate[2]", "val/heldout/greedy/success_rate[2]", "val/heldout/greedy/meta_episodes");
    assertThat(m.get("val/heldout/greedy/meta_episodes").getAsInt()).isEqualTo(2);
    assertThat(m.get("val/greedy/meta_episodes").getAsInt() + m.get("val/patient/meta_episodes").getAsInt())
        .isEqualTo(2);
    assertThat(out.resolve("checkpoints/iter-00000002/manifest.json")).isRegularFile();

    CliRun report = CliRun.of("report", out.toString());
    assertThat(report.code()).as(report.err()).isZero();
    assertThat(report.out()).contains("2 iterations (0..1)").contains("val/greedy/success_rate[2]")
        .contains("val/heldout/greedy/success_rate[2]")
        .contains("checkpoints: [1, 2]").contains("chart files written");
    assertThat(out.resolve("charts/val_success_rate.png")).isRegularFile();
    assertThat(out.resolve("charts/val_success_rate_greedy.svg")).isRegularFile();
    assertThat(out.resolve("charts/val_success_rate_heldout_greedy.svg")).isRegularFile();
  }

  private static final String[] LORA_RUN = {"train", "--preset", "gigpo", "--env", "cli-guess", "--tiny",
      "--tasks", "1", "--group-size", "2", "--validate-every", "2", "--checkpoint-every", "1",
      "--val-meta-episodes", "2", "--max-new-tokens", "6", "--seed", "3", "--lr", "1e-2", "--threads", "1",
      "--lora-rank", "2", "--lora-alpha", "8"};

  private static CliRun loraRun(Path out, int iterations) {
    List<String> args = new java.util.ArrayList<>(List.of(LORA_RUN));
    args.addAll(List.of("--out", out.toString(), "--iterations", Integer.toString(iterations)));
    return CliRun.of(args.toArray(String[]::new));
  }

  private static List<JsonObject> metricsWithoutTimings(Path run) throws java.io.IOException {
    List<JsonObject> out = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      JsonObject o = JsonParser.parseString(line).getAsJsonObject();
      o.keySet().removeIf(k -> k.startsWith("timing/"));
      out.add(o);
    }
    return out;
  }

  private static String sha256(Path file) throws Exception {
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
        .digest(Files.readAllBytes(file)));
  }

  @Test
  void trainsALoraAdapterAndResumesItExactly(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("lora");
    CliRun first = loraRun(out, 1);
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).contains("LoRA r=2 alpha=8.0 on all-linear").contains("to the base model (adapter off)")
        .contains("saved the LoRA adapter (PEFT layout) to " + out.resolve("adapter"));
    Path weights = out.resolve("checkpoints/iter-00000001/weights");
    assertThat(weights.resolve("adapter_config.json")).isRegularFile();
    assertThat(weights.resolve("adapter_model.safetensors")).isRegularFile();
    assertThat(weights.resolve("model.safetensors")).doesNotExist();
    assertThat(Files.readString(out.resolve("checkpoints/iter-00000001/optimizer/adamw-state.json")))
        .contains("\"parameter_count\": 28"); // 2 layers x 7 projections x (A, B)
    assertThat(Files.readString(out.resolve("adapter/adapter_config.json"))).contains("\"r\": 2")
        .contains("\"lora_alpha\": 8").contains(out.resolve("tiny-model").toAbsolutePath().toString());

    CliRun otherRank = CliRun.of("train", "--resume", out.toString(), "--lora-rank", "4");
    assertThat(otherRank.code()).isEqualTo(2);
    assertThat(otherRank.err()).contains("trainer-state.json (field 'run')").contains("--lora-rank 4 (recorded: 2)");

    CliRun resumed = CliRun.of("train", "--resume", out.toString(), "--iterations", "2");
    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("iterations 1..2").contains("LoRA r=2");

    Path whole = tmp.resolve("whole");
    CliRun uninterrupted = loraRun(whole, 2);
    assertThat(uninterrupted.code()).as(uninterrupted.err()).isZero();
    // the random tiny model writes no valid guess, so its advantages are 0 and the adapter stays at its start here;
    // LoraCheckpointTest (mage-train) shows the exact resume with an adapter that changes every iteration
    assertThat(metricsWithoutTimings(out)).isEqualTo(metricsWithoutTimings(whole)).hasSize(2);
    String file = "checkpoints/iter-00000002/weights/adapter_model.safetensors";
    assertThat(sha256(out.resolve(file))).isEqualTo(sha256(whole.resolve(file)))
        .isEqualTo(sha256(out.resolve("adapter/adapter_model.safetensors")));
  }

  @Test
  void aConfigFileIsReadWithItsPresetAndSetAndShortcutsOverrideIt(@TempDir Path tmp) throws Exception {
    Path file = tmp.resolve("run.json");
    Files.writeString(file, "{\"preset\": \"gigpo\", \"environment\": {\"id\": \"mage-kuhn-poker\"},"
        + " \"rollout\": {\"tasks\": 2}, \"adamw\": {\"learning_rate\": 1e-5}}");
    CliRun run = CliRun.of("train", "--config", file.toString(), "--tiny", "--out", tmp.resolve("r").toString(),
        "--set", "loss.kl_coefficient=0", "--iterations", "7", "--print-config");
    assertThat(run.code()).as(run.err()).isZero();
    TrainingConfig c = TrainingConfig.fromJson(run.out());
    TrainingConfig expected = TrainingPreset.GIGPO.config(EnvironmentRegistry.discover().require("mage-kuhn-poker"))
        .toBuilder().set("rollout.tasks", 2).set("adamw.learning_rate", 1e-5).set("loss.kl_coefficient", 0)
        .set("iterations", 7).set("sampling.max_new_tokens", 24).set("credit.max_response_tokens", 24).build();
    assertThat(c).isEqualTo(expected);
    assertThat(tmp.resolve("r")).doesNotExist();
  }

  @Test
  void aBadConfigFileIsAOneLineUsageErrorNamingFileAndKey(@TempDir Path tmp) throws Exception {
    Path file = tmp.resolve("bad.json");
    String[][] cases = {
      {"{\"environment\": {\"id\": \"mage-kuhn-poker\"}, \"rollout\": {\"taks\": 2}}",
          "unknown config key 'rollout.taks'; did you mean 'rollout.tasks'?"},
      {"{\"environment\": {\"id\": \"mage-kuhn-poker\"}, \"rollout\": {\"tasks\": \"two\"}}",
          "config key 'rollout.tasks' must be a whole number, got \"two\""},
      {"{\"environment\": {\"id\": \"mage-kuhn-poker\"}, \"credit\": {\"gamma_traj\": 2}}",
          "credit.gamma_traj must be in [0.0, 1.0], got 2.0"},
      {"{\"environment\": {\"id\": \"mage-kuhn-poker\"}", "not valid JSON"},
    };
    for (String[] c : cases) {
      Files.writeString(file, c[0]);
      CliRun run = CliRun.of("train", "--config", file.toString(), "--tiny", "--out", tmp.resolve("r").toString());
      assertThat(run.code()).as(c[0]).isEqualTo(2);
      assertThat(run.err()).hasLineCount(1).startsWith("error: " + file + ": ").contains(c[1]);
    }
    CliRun missing = CliRun.of("train", "--config", tmp.resolve("none.json").toString(), "--tiny", "--out",
        tmp.resolve("r").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("none.json: no such config file");
    CliRun both = CliRun.of("train", "--config", file.toString(), "--preset", "mage", "--tiny", "--out",
        tmp.resolve("r").toString());
    assertThat(both.code()).isEqualTo(2);
  }

  @Test
  void theRunDirectoryHoldsTheConfigAndResumeUsesTheRecordedOne(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("run");
    CliRun first = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out", out.toString(),
        "--iterations", "1", "--set", "rollout.tasks=1", "--set", "rollout.group_size=2", "--set",
        "validation.every=0", "--set", "checkpoints.every=1", "--max-new-tokens", "6", "--seed", "3", "--threads",
        "1", "--set", "loss.clip_ratio_high=0.28");
    assertThat(first.code()).as(first.err()).isZero();
    TrainingConfig written = TrainingConfig.fromJson(Files.readString(out.resolve("config.json")));
    assertThat(written.loss().clipRatioHigh()).isEqualTo(0.28);
    CliRun changed = CliRun.of("train", "--resume", out.toString(), "--set", "loss.clip_ratio_high=0.2");
    assertThat(changed.code()).isEqualTo(2);
    assertThat(changed.err()).contains("--set (the run's config is the one recorded)");
    CliRun printed = CliRun.of("train", "--resume", out.toString(), "--iterations", "3", "--print-config");
    assertThat(printed.code()).as(printed.err()).isZero();
    assertThat(TrainingConfig.fromJson(printed.out())).isEqualTo(written.with("iterations", 3));
  }

  @Test
  void theDeviceAndPrecisionAreOptionsAndWhatCannotRunIsRefusedInOneLine(@TempDir Path tmp) {
    CliRun help = CliRun.of("train", "--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("--device=cpu|gpu[:N]").contains("--precision=float32|float16");
    // this machine has no CUDA GPU (as CliErrorsTest's `mage logits --device gpu`)
    CliRun gpu = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        tmp.resolve("g").toString(), "--device", "gpu:1");
    assertThat(gpu.code()).isNotZero();
    assertThat(gpu.err()).startsWith("error: --device gpu:1: the PyTorch engine sees no CUDA GPU").hasLineCount(1);
    CliRun bad = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        tmp.resolve("b").toString(), "--device", "cuda");
    assertThat(bad.err()).startsWith("error: --device must be cpu, gpu or gpu:N").hasLineCount(1);
    CliRun bf16 = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        tmp.resolve("h").toString(), "--precision", "bfloat16");
    assertThat(bf16.code()).isNotZero();
    assertThat(bf16.err()).startsWith("error: hardware.precision bfloat16 cannot run here: any bfloat16 array aborts"
        + " the JVM").contains("use float16").hasLineCount(1);
    assertThat(tmp.resolve("g")).doesNotExist();
    assertThat(tmp.resolve("h")).doesNotExist();
    CliRun printed = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        tmp.resolve("p").toString(), "--device", "gpu", "--precision", "float16", "--print-config");
    assertThat(printed.code()).as(printed.err()).isZero();
    assertThat(TrainingConfig.fromJson(printed.out()).hardware())
        .isEqualTo(new TrainingConfig.HardwareSettings("gpu", org.magejvm.impl.train.Precision.FLOAT16));
  }

  @Test
  void trainsTheTinyModelInFloat16WithFiniteMetrics(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("run");
    CliRun run = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out", out.toString(),
        "--precision", "float16", "--iterations", "2", "--tasks", "1", "--group-size", "2", "--validate-every", "0",
        "--max-new-tokens", "6", "--seed", "3", "--lr", "1e-3", "--threads", "1");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("on cpu in float16 (float32 master weights and AdamW state, dynamic loss"
        + " scaling)").contains("done: 2 iterations");
    assertThat(TrainingConfig.fromJson(Files.readString(out.resolve("config.json"))).hardware().precision())
        .isEqualTo(org.magejvm.impl.train.Precision.FLOAT16);
    List<String> lines = Files.readAllLines(out.resolve("metrics.jsonl"));
    assertThat(lines).hasSize(2);
    for (String line : lines) {
      JsonObject m = JsonParser.parseString(line).getAsJsonObject();
      assertThat(m.get("loss_scale").getAsDouble()).isPositive();
      assertThat(m.get("skipped_steps").getAsInt()).isZero();
      for (String key : m.keySet()) {
        if (m.get(key).isJsonPrimitive() && m.get(key).getAsJsonPrimitive().isNumber()) {
          assertThat(Double.isFinite(m.get(key).getAsDouble())).as(key).isTrue();
        }
      }
    }
  }

  @Test
  void presetsListsEveryPresetAndWhatItChanges() {
    CliRun run = CliRun.of("presets", "--env", "mage-kuhn-poker");
    assertThat(run.code()).as(run.err()).isZero();
    for (TrainingPreset p : TrainingPreset.values()) {
      assertThat(run.out()).contains(p.id());
    }
    assertThat(run.out()).contains("credit.gamma_traj=1.0").contains("adamw.learning_rate=5.0E-4")
        .contains("credit.meta_return=cumulative");
  }
}
