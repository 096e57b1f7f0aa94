package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code mage env-serve} and {@code mage play --env agentgym-remote --env-url}: a game served by one command and
 * played by another gives the same metrics as played in-process; usage errors exit 2.
 */
class EnvServeCommandTest {

  @Test
  void usageErrorsExitWith2() {
    CliRun r = CliRun.of("env-serve", "mage-chess", "--port", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("unknown environment 'mage-chess'").contains("mage-kuhn-poker");
    r = CliRun.of("env-serve", "mage-kuhn-poker", "--port", "70000");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--port");
    r = CliRun.of("env-serve", "mage-kuhn-poker");
    assertThat(r.code()).isEqualTo(2);
    r = CliRun.of("env-serve", "mage-kuhn-poker", "--port", "0", "--idle-timeout", "-1");
    assertThat(r.code()).isEqualTo(2);
    r = CliRun.of("env-serve", "mage-kuhn-poker", "--port", "0", "--request-timeout", "-1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--request-timeout must be in (0, 86400] seconds");
    r = CliRun.of("play", "--env", "mage-kuhn-poker", "--env-url", "http://127.0.0.1:1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--env-url applies to agentgym-remote");
    r = CliRun.of("play", "--env", "agentgym-remote", "--env-url", "127.0.0.1:1");
    assertThat(r.code()).isEqualTo(2);
    r = CliRun.of("play", "--env", "mage-kuhn-poker", "--remote-env", "mage-kuhn-poker");
    assertThat(r.code()).isEqualTo(2);
  }

  @Test
  void aServedGamePlaysRemotelyWithTheSameMetrics() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    AtomicInteger code = new AtomicInteger(-1);
    Thread serve = new Thread(() -> code.set(MageCli.run("env-serve", "mage-kuhn-poker", "mage-tictactoe",
        "--port", String.valueOf(port), "--for", "120")), "env-serve-under-test");
    serve.start();
    String url = "http://127.0.0.1:" + port;
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + 30_000_000_000L;
    boolean up = false;
    while (!up && System.nanoTime() < deadline) {
      try {
        up = http.send(HttpRequest.newBuilder(URI.create(url + "/")).build(), HttpResponse.BodyHandlers.ofString())
            .statusCode() == 200;
      } catch (java.io.IOException e) {
        Thread.sleep(50);
      }
    }
    assertThat(up).as("env-serve answers on " + url).isTrue();
    try {
      for (String game : new String[] {"mage-kuhn-poker", "mage-tictactoe"}) {
        CliRun local = CliRun.of("play", "--env", game, "--meta-episodes", "12", "--seed", "4", "--json");
        CliRun remote = CliRun.of("play", "--env", "agentgym-remote", "--env-url", url, "--remote-env", game,
            "--meta-episodes", "12", "--seed", "4", "--json");
        assertThat(local.code()).as(local.err()).isZero();
        assertThat(remote.code()).as(remote.err()).isZero();
        JsonObject a = local.json().getAsJsonObject("metrics");
        JsonObject b = remote.json().getAsJsonObject("metrics");
        assertThat(b).isEqualTo(a);
        assertThat(remote.json().getAsJsonObject("settings").get("remote_environment").getAsString())
            .isEqualTo(game);
      }
    } finally {
      serve.interrupt();
      serve.join(30_000);
    }
    assertThat(serve.isAlive()).isFalse();
    assertThat(code.get()).isZero();
  }
}
