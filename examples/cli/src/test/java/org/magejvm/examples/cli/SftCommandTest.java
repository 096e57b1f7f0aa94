package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Generation;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.impl.train.supervised.TranscriptReader;

/** {@code mage sft} on a tiny checkpoint with Kuhn Poker transcripts from {@code mage transcripts}. */
class SftCommandTest {

  private static final Pattern LOSSES = Pattern.compile("loss first ([0-9.]+), last ([0-9.]+)");

  @TempDir static Path tmp;
  static Path data;
  static Path tiny;

  @BeforeAll
  static void transcriptsAndTinyModel() throws IOException {
    data = tmp.resolve("kuhn.jsonl");
    CliRun r = CliRun.of("transcripts", "--env", "mage-kuhn-poker", "--policy", "fixed-line,random",
        "--meta-episodes", "16", "--prompt-style", "compact", "--seed", "2", "--out", data.toString());
    assertThat(r.code()).as(r.err()).isZero();
    tiny = tmp.resolve("tiny");
    // the tokenizer learns its merges from the transcripts' own text, as the quick start's does from prompts
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small(Files.readString(data, StandardCharsets.UTF_8), 5));
  }

  private static double[] losses(CliRun r) {
    Matcher m = LOSSES.matcher(r.out());
    assertThat(m.find()).as(r.out()).isTrue();
    return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))};
  }

  private static String greedy(DjlLanguagePolicy policy, String prompt) {
    List<Generation> g = policy.generate(List.of(PolicyRequest.of(prompt)),
        SamplingConfig.builder().optTemperature(0).optMaxNewTokens(12).build());
    return g.get(0).text();
  }

  @Test
  void fullFineTuningLowersTheLossAndWritesACheckpointTheLoaderReads() {
    Path out = tmp.resolve("full");
    CliRun r = CliRun.of("sft", "--model", tiny.toString(), "--data", data.toString(), "--out", out.toString(),
        "--steps", "30", "--batch-size", "4", "--lr", "3e-3", "--warmup", "5", "--weight-decay", "0",
        "--no-thinking", "--threads", "1", "--seed", "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("full fine-tuning", "step    10/30", "step    30/30", "saved the fine-tuned model");
    double[] loss = losses(r);
    assertThat(loss[1]).as(r.out()).isLessThan(loss[0] / 4);

    Transcript first = TranscriptReader.read(data).get(0);
    String prompt = first.messages().get(0).content();
    try (DjlLanguagePolicy trained = Qwen3Checkpoint.loadPolicy(out,
        Qwen3Checkpoint.Options.cpu().withThinking(false))) {
      assertThat(greedy(trained, prompt)).startsWith("<action>");
    }
  }

  @Test
  void loraWritesAPeftAdapterOrTheMergedModel() {
    Path adapter = tmp.resolve("adapter");
    CliRun r = CliRun.of("sft", "--model", tiny.toString(), "--data", data.toString(), "--out", adapter.toString(),
        "--steps", "20", "--batch-size", "4", "--lr", "1e-2", "--lora-rank", "4", "--lora-targets",
        "q_proj,v_proj,down_proj", "--no-thinking", "--threads", "1", "--log-every", "5");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("LoRA r=4 alpha=8 on q_proj,v_proj,down_proj", "saved the LoRA adapter");
    double[] loss = losses(r);
    assertThat(loss[1]).as(r.out()).isLessThan(loss[0]);
    assertThat(PeftAdapters.readConfig(adapter).rank()).isEqualTo(4);
    try (DjlLanguagePolicy withAdapter = Qwen3Checkpoint.loadPolicy(tiny,
        Qwen3Checkpoint.Options.cpu().withThinking(false), adapter)) {
      assertThat(greedy(withAdapter, "Your card: King.")).isNotNull();
    }

    Path merged = tmp.resolve("merged");
    CliRun m = CliRun.of("sft", "--model", tiny.toString(), "--data", data.toString(), "--out", merged.toString(),
        "--steps", "3", "--batch-size", "2", "--lora-rank", "2", "--merge", "--threads", "1");
    assertThat(m.code()).as(m.err()).isZero();
    assertThat(m.out()).contains("saved the merged model");
    try (DjlLanguagePolicy p = Qwen3Checkpoint.loadPolicy(merged, Qwen3Checkpoint.Options.cpu())) {
      assertThat(p.tokenizer().vocabSize()).isPositive();
    }
  }

  @Test
  void badInputIsOneLineNamingTheFileOrOption() throws IOException {
    Path out = tmp.resolve("never");
    CliRun missing = CliRun.of("sft", "--model", tiny.toString(), "--data", tmp.resolve("absent.jsonl").toString(),
        "--out", out.toString());
    assertOneLineError(2, missing, "absent.jsonl", "does not exist");

    Path bad = tmp.resolve("bad.jsonl");
    Files.writeString(bad, Files.readAllLines(data).get(0) + "\n{\"messages\": [{\"role\": \"user\", \"content\": "
        + "\"hi\"}, {\"role\": \"robot\", \"content\": \"beep\"}]}\n", StandardCharsets.UTF_8);
    // a data file that does not parse is a run-time failure (exit 1); options are usage errors (exit 2)
    assertOneLineError(1, CliRun.of("sft", "--model", tiny.toString(), "--data", bad.toString(), "--out",
        out.toString()), "bad.jsonl:2:", "robot");
    Files.writeString(bad, "{\"messages\": [\n", StandardCharsets.UTF_8);
    assertOneLineError(1, CliRun.of("sft", "--model", tiny.toString(), "--data", bad.toString(), "--out",
        out.toString()), "bad.jsonl:1:", "not valid JSON");

    assertOneLineError(2, CliRun.of("sft", "--model", tiny.toString(), "--data", data.toString(), "--out",
        out.toString(), "--steps", "2", "--epochs", "1"), "--steps", "--epochs");
    assertOneLineError(2, CliRun.of("sft", "--model", tiny.toString(), "--data", data.toString(), "--out",
        tiny.toString()), "--out", "--model");
    assertOneLineError(2, CliRun.of("sft", "--model", tiny.toString(), "--data", data.toString(), "--out",
        out.toString(), "--lora-rank", "2", "--lora-targets", "q_proj,qkv"), "--lora-targets", "qkv");
    assertOneLineError(2, CliRun.of("sft", "--model", tmp.resolve("nomodel").toString(), "--data", data.toString(),
        "--out", out.toString()), "--model", "nomodel");
    assertThat(out).doesNotExist();
  }

  private static void assertOneLineError(int code, CliRun r, String... parts) {
    assertThat(r.code()).as(r.err()).isEqualTo(code);
    String err = r.err().strip();
    assertThat(err).startsWith("error: ").contains(parts);
    assertThat(err.lines().count()).as(err).isEqualTo(1);
  }
}
