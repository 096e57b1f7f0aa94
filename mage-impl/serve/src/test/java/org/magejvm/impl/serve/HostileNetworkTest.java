package org.magejvm.impl.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.testkit.HostileClients;

/**
 * {@code mage serve}'s HTTP layer against idle, never-ending and malformed clients on loopback: the well-formed
 * request next to them is answered at once, every malformed request gets a JSON 4xx in the OpenAI error shape, and
 * the server answers a seeded request identically before and after.
 */
class HostileNetworkTest {

  static final String SEEDED = "{\"prompt\":\"Your move?\",\"max_tokens\":4,\"temperature\":1,\"seed\":42,"
      + "\"logprobs\":1}";

  @TempDir static Path dir;
  static CompletionServer server;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() {
    Path tiny = dir.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action> Your move?", 7));
    server = CompletionServer.builder()
        .setPolicy(Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu().withThinking(false)), true)
        .optPort(0).start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static HttpResponse<String> send(String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
        .timeout(Duration.ofSeconds(10));
    b = body == null ? b.GET() : b.POST(HttpRequest.BodyPublishers.ofString(body));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** @return the seeded completion without its per-response id and time */
  static JsonObject seeded() throws Exception {
    HttpResponse<String> r = send("/v1/completions", SEEDED);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonObject o = JsonParser.parseString(r.body()).getAsJsonObject();
    o.remove("id");
    o.remove("created");
    return o;
  }

  @Test
  void idleAndNeverEndingClientsDoNotDelayAWellFormedRequest() throws Exception {
    JsonObject before = seeded();
    try (HostileClients hostile = new HostileClients(server.port())) {
      hostile.openOneByteConnections(200);
      hostile.openEndlessChunkedBodies(50, "/v1/completions");
      long start = System.nanoTime();
      JsonObject during = seeded();
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(millis).as("a completion with 250 hostile connections open").isLessThan(2000);
      assertThat(during).isEqualTo(before);
      start = System.nanoTime();
      assertThat(send("/health", null).statusCode()).isEqualTo(200);
      assertThat((System.nanoTime() - start) / 1_000_000).as("/health with 250 hostile connections open")
          .isLessThan(2000);
      assertThat(hostile.stillOpen()).as("the hostile connections are still open").isEqualTo(250);
    }
    assertThat(seeded()).isEqualTo(before);
  }

  @Test
  void anHttp09RequestLineGets400BadRequest() throws Exception {
    HostileClients.Answer a = HostileClients.exchange(server.port(),
        "GET /health\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII), Duration.ofSeconds(5));
    assertThat(a.status()).as(a.toString()).isEqualTo(400);
    JsonObject err = JsonParser.parseString(a.body()).getAsJsonObject().getAsJsonObject("error");
    assertThat(err.get("code").getAsString()).isEqualTo("bad_request");
    assertThat(err.get("type").getAsString()).isEqualTo("invalid_request_error");
    assertThat(err.get("message").getAsString()).contains("HTTP/1.1");
    assertThat(send("/health", null).statusCode()).isEqualTo(200);
  }

  @Test
  void aContentLengthThatCutsTheJsonIsToldWithoutJavaClassNames() throws Exception {
    // Content-Length: 10 with a longer body: the server reads {"prompt": and the JSON ends there
    HostileClients.Answer a = HostileClients.exchange(server.port(), ("POST /v1/completions HTTP/1.1\r\nHost: x\r\n"
        + "Content-Type: application/json\r\nContent-Length: 10\r\n\r\n" + SEEDED)
        .getBytes(java.nio.charset.StandardCharsets.US_ASCII), Duration.ofSeconds(5));
    assertThat(a.status()).as(a.toString()).isEqualTo(400);
    JsonObject err = JsonParser.parseString(a.body()).getAsJsonObject().getAsJsonObject("error");
    assertThat(err.get("code").getAsString()).isEqualTo("invalid_json");
    assertThat(err.get("message").getAsString())
        .startsWith("the request body is not valid JSON: it ends before its JSON value is complete")
        .contains("10 bytes its Content-Length declares")
        .doesNotContain("Exception").doesNotContain("java.").doesNotContain("gson");
    a = HostileClients.exchange(server.port(), ("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 9"
        + "\r\n\r\n{not json").getBytes(java.nio.charset.StandardCharsets.US_ASCII), Duration.ofSeconds(5));
    assertThat(a.status()).as(a.toString()).isEqualTo(400);
    assertThat(a.body()).contains("not valid JSON").doesNotContain("Exception").doesNotContain("gson")
        .doesNotContain("https://");
  }

  @Test
  void eachMalformedRequestGetsAJson4xxAndTheServerAnswersAsBefore() throws Exception {
    JsonObject before = seeded();
    for (Map.Entry<String, byte[]> c : HostileClients.malformedRequests("/v1/completions").entrySet()) {
      HostileClients.Answer a = HostileClients.exchange(server.port(), c.getValue(), Duration.ofSeconds(5));
      String what = c.getKey() + ": " + a;
      assertThat(a.status()).as(what).isBetween(400, 499);
      assertThat(a.millis()).as(what).isLessThan(5000);
      assertThat(a.headers().get("content-type")).as(what).startsWith("application/json");
      JsonObject err = JsonParser.parseString(a.body()).getAsJsonObject().getAsJsonObject("error");
      assertThat(err.keySet()).as(what).containsExactlyInAnyOrder("message", "type", "param", "code");
      assertThat(err.get("type").getAsString()).as(what).isEqualTo("invalid_request_error");
      assertThat(err.get("message").getAsString()).as(what).isNotBlank();
      assertThat(err.get("code").getAsString()).as(what).isIn("bad_request", "headers_too_large");
      assertThat(seeded()).as("after " + c.getKey()).isEqualTo(before);
    }
  }
}
