package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;


import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.TinyCheckpoint;

/** {@code mage logits}, {@code mage generate} and {@code mage play --model} on real checkpoint directories. */
class ModelCommandsTest {

  /** The float64-reference fixture of mage-impl's tests, read in place (tests run from the module directory). */
  static final Path FIXTURE = Path.of("..", "..", "mage-impl", "llm", "src", "test", "resources", "qwen3-tiny");

  @TempDir static Path tmp;
  static Path tiny;

  @BeforeAll
  static void writeTiny() {
    tiny = tmp.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("<action>(1, 1)</action> PASS BET", 3));
  }

  @Test
  void logitsOfEveryPositionMatchTheFloat64Reference() throws IOException {
    assertThat(FIXTURE.resolve("expected-logits.json")).as("the llm module's tiny fixture").exists();
    JsonObject expected = JsonParser.parseString(
        Files.readString(FIXTURE.resolve("expected-logits.json"), StandardCharsets.UTF_8)).getAsJsonObject();
    JsonArray ids = expected.getAsJsonArray("input_ids");
    StringBuilder idList = new StringBuilder();
    for (int i = 0; i < ids.size(); i++) {
      idList.append(i == 0 ? "" : ",").append(ids.get(i).getAsInt());
    }
    CliRun r = CliRun.of("logits", "--model", FIXTURE.toString(), "--ids", idList.toString(), "--all", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonArray got = r.json().getAsJsonArray("logits");
    JsonArray want = expected.getAsJsonArray("logits");
    assertThat(got.size()).isEqualTo(want.size());
    double maxDiff = 0;
    for (int p = 0; p < want.size(); p++) {
      JsonArray g = got.get(p).getAsJsonArray();
      JsonArray w = want.get(p).getAsJsonArray();
      assertThat(g.size()).isEqualTo(w.size());
      for (int v = 0; v < w.size(); v++) {
        maxDiff = Math.max(maxDiff, Math.abs(g.get(v).getAsDouble() - w.get(v).getAsDouble()));
      }
    }
    assertThat(maxDiff).isLessThan(1e-4);

    CliRun last = CliRun.of("logits", "--model", FIXTURE.toString(), "--ids", idList.toString());
    assertThat(last.code()).isZero();
    assertThat(last.out()).contains("position " + (ids.size() - 1)).doesNotContain("position 0 ");
  }

  @Test
  void logitsRejectBadInputWithClearMessages() {
    CliRun outside = CliRun.of("logits", "--model", FIXTURE.toString(), "--ids", "1,97");
    assertThat(outside.code()).isEqualTo(2);
    assertThat(outside.err()).isEqualTo("error: --ids: id 97 (position 1) is outside the model's vocabulary [0, 97)"
        + " (vocab_size in " + FIXTURE.resolve("config.json") + ") (see 'mage logits --help')"
        + System.lineSeparator());
    CliRun huge = CliRun.of("logits", "--model", FIXTURE.toString(), "--ids", "2147483647");
    assertThat(huge.code()).isEqualTo(2);
    assertThat(huge.err()).contains("id 2147483647").doesNotContain("-2147483648").hasLineCount(1);
    CliRun tooMany = CliRun.of("logits", "--model", FIXTURE.toString(), "--ids", "1,".repeat(20_000) + "1");
    assertThat(tooMany.code()).isEqualTo(2);
    assertThat(tooMany.err()).contains("--ids: the prompt is 20001 tokens, more than the model's context of 512 tokens"
        + " (max_position_embeddings in config.json)").hasLineCount(1);
    // a config.json whose vocab_size is smaller than the weights' embedding is blamed, not the ids
    Path wrong = tmp.resolve("wrong-vocab");
    try {
      Files.createDirectories(wrong);
      Files.copy(FIXTURE.resolve("model.safetensors"), wrong.resolve("model.safetensors"));
      Files.writeString(wrong.resolve("config.json"), Files.readString(FIXTURE.resolve("config.json"))
          .replaceFirst("\"vocab_size\"\\s*:\\s*97", "\"vocab_size\": 1"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    CliRun vocab = CliRun.of("logits", "--model", wrong.toString(), "--ids", "1,2,3");
    assertThat(vocab.code()).isEqualTo(1);
    assertThat(vocab.err()).hasLineCount(1).contains(wrong.resolve("config.json") + ": vocab_size 1 disagrees with the"
        + " weights").contains("97 rows").doesNotContain("--ids:");
    CliRun missing = CliRun.of("logits", "--model", tmp.resolve("absent").toString(), "--ids", "1");
    assertThat(missing.code()).isEqualTo(2); // a --model that does not exist is a usage error
    assertThat(missing.err()).contains("absent").contains("does not exist");
  }

  @Test
  void generateIsReproducibleRawAndAsChat() {
    for (boolean chat : new boolean[] {false, true}) {
      String[] args = chat
          ? new String[] {"generate", "--model", tiny.toString(), "--prompt", "Your move?", "--chat", "--json",
              "--max-new-tokens", "7", "--seed", "5", "--no-thinking"}
          : new String[] {"generate", "--model", tiny.toString(), "--prompt", "Your move?", "--json",
              "--max-new-tokens", "7", "--seed", "5"};
      CliRun a = CliRun.of(args);
      CliRun b = CliRun.of(args);
      assertThat(a.code()).as(a.err()).isZero();
      JsonObject ja = a.json();
      assertThat(ja.getAsJsonArray("response_ids").size()).isBetween(1, 7);
      assertThat(ja.getAsJsonArray("log_probs").size()).isEqualTo(ja.getAsJsonArray("response_ids").size());
      assertThat(ja.get("chat").getAsBoolean()).isEqualTo(chat);
      assertThat(ja.getAsJsonArray("response_ids")).isEqualTo(b.json().getAsJsonArray("response_ids"));
      assertThat(ja.get("text").getAsString()).isEqualTo(b.json().get("text").getAsString());
    }
  }

  @Test
  void playRunsACheckpointThroughTheEngine() {
    CliRun r = CliRun.of("play", "--env", "mage-kuhn-poker", "--model", tiny.toString(), "--opponent",
        "conservative", "--seat", "first", "--meta-episodes", "2", "--episodes", "2", "--prompt-style", "compact",
        "--max-new-tokens", "6", "--no-thinking", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.json().getAsJsonObject("settings").get("policy").getAsString()).contains("tiny");
    assertThat(r.metric("meta_episodes")).isEqualTo(2);
    assertThat(r.metric("response_tokens_mean")).isBetween(1.0, 6.0);
  }
}
