package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.serve.CompletionServer;

/** {@code mage train --rollout-endpoint URL --push-adapter NAME}: option checks and a run through mage serve. */
class RemoteTrainCommandTest {

  static List<String> run(Path model, Path out, String... more) {
    List<String> args = new ArrayList<>(List.of("train", "--preset", "gigpo", "--env", "cli-guess", "--model",
        model.toString(), "--out", out.toString(), "--iterations", "2", "--tasks", "1", "--group-size", "2",
        "--validate-every", "2", "--checkpoint-every", "1", "--val-meta-episodes", "2", "--max-new-tokens", "6",
        "--seed", "3", "--lr", "1e-2", "--threads", "1", "--lora-rank", "2", "--lora-alpha", "8"));
    args.addAll(List.of(more));
    return args;
  }

  static CliRun cli(List<String> args) {
    return CliRun.of(args.toArray(String[]::new));
  }

  static List<JsonObject> metricsWithoutTimings(Path run) throws java.io.IOException {
    List<JsonObject> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      JsonObject o = JsonParser.parseString(line).getAsJsonObject();
      o.keySet().removeIf(k -> k.startsWith("timing/") || k.startsWith("memory/"));
      out.add(o);
    }
    return out;
  }

  @Test
  void remoteRolloutOptionsAreCheckedTogether(@TempDir Path tmp) {
    Path model = tmp.resolve("absent-model");
    CliRun noEndpoint = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        tmp.resolve("a").toString(), "--lora-rank", "2", "--push-adapter", "pol");
    assertThat(noEndpoint.code()).isEqualTo(2);
    assertThat(noEndpoint.err()).contains("--push-adapter needs --rollout-endpoint").hasLineCount(1);
    CliRun noName = cli(run(model, tmp.resolve("b"), "--rollout-endpoint", "http://127.0.0.1:9"));
    assertThat(noName.code()).isEqualTo(2);
    assertThat(noName.err()).contains("--rollout-endpoint needs --push-adapter NAME").hasLineCount(1);
    CliRun full = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        tmp.resolve("c").toString(), "--rollout-endpoint", "http://127.0.0.1:9", "--push-adapter", "pol");
    assertThat(full.code()).isEqualTo(2);
    assertThat(full.err()).contains("--push-adapter needs --lora-rank").hasLineCount(1);
    CliRun badUrl = cli(run(model, tmp.resolve("d"), "--rollout-endpoint", "ftp://x", "--push-adapter", "pol"));
    assertThat(badUrl.code()).isEqualTo(2);
    assertThat(badUrl.err()).contains("--rollout-endpoint: endpoint 'ftp://x'").hasLineCount(1);
    CliRun blank = cli(run(model, tmp.resolve("e"), "--rollout-endpoint", "http://127.0.0.1:9", "--push-adapter",
        " "));
    assertThat(blank.code()).isEqualTo(2);
    CliRun dirOnly = CliRun.of("train", "--preset", "gigpo", "--env", "cli-guess", "--tiny", "--out",
        tmp.resolve("f").toString(), "--push-dir", tmp.toString());
    assertThat(dirOnly.code()).isEqualTo(2);
    assertThat(dirOnly.err()).contains("--push-dir needs --rollout-endpoint");
  }

  @Test
  void aLoraRunThroughMageServeHasTheInProcessMetrics(@TempDir Path tmp) throws Exception {
    Path model = tmp.resolve("model");
    TinyCheckpoint.write(model, TinyCheckpoint.Spec.small("Guess a number: <answer>3</answer> higher lower", 5));
    CliRun local = cli(run(model, tmp.resolve("local")));
    assertThat(local.code()).as(local.err()).isZero();
    try (CompletionServer server = CompletionServer.builder()
        .setPolicy(Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu()), true).optPort(0)
        .optEnableLora(true).optBatchWindow(Duration.ofMillis(20)).start()) {
      CliRun remote = cli(run(model, tmp.resolve("remote"), "--rollout-endpoint", server.baseUrl(),
          "--push-adapter", "pol"));
      assertThat(remote.code()).as(remote.err()).isZero();
      assertThat(remote.out()).contains("rollouts through [" + server.baseUrl() + "] as model 'pol'");
      assertThat(server.stats().rows()).isPositive();
      assertThat(tmp.resolve("remote").resolve(RemoteRolloutOptions.PUSH_DIR).resolve("v2")).isDirectory();
    }
    assertThat(metricsWithoutTimings(tmp.resolve("remote"))).hasSize(2)
        .isEqualTo(metricsWithoutTimings(tmp.resolve("local")));
  }

  @Test
  void mageLoraRollsOutThroughTheServerToo(@TempDir Path tmp) {
    Path model = tmp.resolve("model");
    TinyCheckpoint.write(model, TinyCheckpoint.Spec.small("Kuhn poker: <action>BET</action> CHECK CALL FOLD", 5));
    List<String> base = List.of("lora", "--model", model.toString(), "--env", "mage-kuhn-poker", "--iterations",
        "1", "--tasks", "2", "--group-size", "2", "--eval-meta-episodes", "2", "--max-new-tokens", "6",
        "--lora-rank", "2", "--lr", "1e-2", "--prompt-style", "compact", "--threads", "1");
    List<String> noDir = new ArrayList<>(base);
    noDir.addAll(List.of("--rollout-endpoint", "http://127.0.0.1:9", "--push-adapter", "pol"));
    CliRun usage = cli(noDir);
    assertThat(usage.code()).isEqualTo(2);
    assertThat(usage.err()).contains("needs --push-dir DIR").hasLineCount(1);
    try (CompletionServer server = CompletionServer.builder()
        .setPolicy(Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu()), true).optPort(0)
        .optEnableLora(true).optBatchWindow(Duration.ofMillis(20)).start()) {
      List<String> args = new ArrayList<>(base);
      Path out = tmp.resolve("adapter");
      args.addAll(List.of("--out", out.toString(), "--rollout-endpoint", server.baseUrl(), "--push-adapter", "pol"));
      CliRun r = cli(args);
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains("iteration 0:");
      assertThat(server.stats().rows()).isPositive();
      assertThat(tmp.resolve("adapter-pushed").resolve("v1")).isDirectory();
      assertThat(out.resolve("adapter_model.safetensors")).isRegularFile();
    }
  }
}
