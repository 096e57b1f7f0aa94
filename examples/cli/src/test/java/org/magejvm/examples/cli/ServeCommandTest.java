package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.TinyCheckpoint;

/** {@code mage serve}: option checks, and a real start, request and stop. */
class ServeCommandTest {

  @TempDir static Path tmp;
  static Path tiny;

  @BeforeAll
  static void writeTiny() {
    tiny = tmp.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("<action>(1, 1)</action> PASS BET", 3));
  }

  @AfterEach
  void resetHook() {
    ServeCommand.onStart = s -> { };
  }

  @Test
  void badOptionsAreUsageErrors() {
    CliRun port = CliRun.of("serve", "--model", tiny.toString(), "--port", "70000");
    assertThat(port.code()).isEqualTo(2);
    assertThat(port.err()).contains("--port must be <= 65535");
    CliRun batch = CliRun.of("serve", "--model", tiny.toString(), "--max-batch", "0");
    assertThat(batch.code()).isEqualTo(2);
    assertThat(batch.err()).contains("--max-batch must be >= 1");
    CliRun prompt = CliRun.of("serve", "--model", tiny.toString(), "--max-prompt-tokens", "100000");
    assertThat(prompt.code()).isEqualTo(2);
    assertThat(prompt.err()).contains("max_position_embeddings");
    CliRun loras = CliRun.of("serve", "--model", tiny.toString(), "--enable-lora", "--max-loras", "0");
    assertThat(loras.code()).isEqualTo(2);
    assertThat(loras.err()).contains("--max-loras must be >= 1");
    CliRun idle = CliRun.of("serve", "--model", tiny.toString(), "--connection-idle-timeout", "0");
    assertThat(idle.code()).isEqualTo(2);
    assertThat(idle.err()).contains("--connection-idle-timeout must be in (0, 86400] seconds");
    CliRun connections = CliRun.of("serve", "--model", tiny.toString(), "--max-connections", "0");
    assertThat(connections.code()).isEqualTo(2);
    assertThat(connections.err()).contains("--max-connections must be >= 1");
    CliRun headers = CliRun.of("serve", "--model", tiny.toString(), "--max-header-bytes", "100");
    assertThat(headers.code()).isEqualTo(2);
    assertThat(headers.err()).contains("--max-header-bytes must be >= 1024");
    CliRun key = CliRun.of("serve", "--model", tiny.toString(), "--api-key", " ");
    assertThat(key.code()).isEqualTo(2);
    assertThat(key.err()).contains("--api-key must not be blank");
    CliRun missing = CliRun.of("serve", "--model", tmp.resolve("absent").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("absent").contains("does not exist");
  }

  @Test
  void itServesUntilStopped() {
    AtomicReference<String> answer = new AtomicReference<>();
    ServeCommand.onStart = server -> {
      try {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(server.baseUrl() + "/v1/completions"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"served\",\"prompt\":\"PASS\",\"max_tokens\":3,"
                + "\"seed\":4}")).build(), HttpResponse.BodyHandlers.ofString());
        answer.set(r.statusCode() + " " + r.body());
      } catch (Exception e) {
        answer.set(e.toString());
      } finally {
        server.close();
      }
    };
    CliRun run = CliRun.of("serve", "--model", tiny.toString(), "--port", "0", "--served-model-name", "served");
    assertThat(run.code()).as(run.err()).isEqualTo(0);
    assertThat(run.out()).contains("serving 'served'").contains("http://127.0.0.1:")
        .contains("stopped after 1 generation calls, 1 requests");
    assertThat(answer.get()).startsWith("200 ").contains("\"token_ids\":[").contains("\"model\":\"served\"");
  }
}
