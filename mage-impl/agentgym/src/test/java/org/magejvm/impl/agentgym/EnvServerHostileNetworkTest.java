package org.magejvm.impl.agentgym;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.agentgym.server.EnvServer;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.testkit.HostileClients;

/**
 * {@code mage env-serve}'s HTTP layer against idle, never-ending and malformed clients on loopback, with its
 * default worker pool (as many threads as processors, at least 2): the well-formed request next to them is answered
 * at once, every malformed request gets a JSON 4xx in the server's error shape, and a seeded episode plays the same
 * before and after.
 */
class EnvServerHostileNetworkTest {

  static EnvServer server;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    server = EnvServer.builder().setRegistry(EnvironmentRegistry.discover()).addEnvironment("mage-kuhn-poker")
        .optPort(0).build().start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static HttpResponse<String> send(String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(10));
    b = body == null ? b.GET() : b.POST(HttpRequest.BodyPublishers.ofString(body));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** @return a seeded reset and one step on a fresh instance, without the instance id */
  static String seededEpisode() throws Exception {
    HttpResponse<String> created = send("/create", "{}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    long id = JsonParser.parseString(created.body()).getAsJsonObject().get("id").getAsLong();
    HttpResponse<String> reset = send("/reset", "{\"id\": " + id + ", \"seed\": 7}");
    assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
    JsonObject r = JsonParser.parseString(reset.body()).getAsJsonObject();
    String action = r.getAsJsonArray("available_actions").get(0).getAsString();
    HttpResponse<String> step = send("/step", "{\"id\": " + id + ", \"action\": \"" + action + "\"}");
    assertThat(step.statusCode()).as(step.body()).isEqualTo(200);
    JsonObject s = JsonParser.parseString(step.body()).getAsJsonObject();
    r.remove("id");
    s.remove("id");
    assertThat(send("/close", "{\"id\": " + id + "}").statusCode()).isEqualTo(200);
    return r + "\n" + s;
  }

  @Test
  void idleAndNeverEndingClientsDoNotDelayAWellFormedRequest() throws Exception {
    String before = seededEpisode();
    try (HostileClients hostile = new HostileClients(server.port())) {
      hostile.openOneByteConnections(200);
      hostile.openEndlessChunkedBodies(50, "/step");
      long start = System.nanoTime();
      HttpResponse<String> health = send("/", null);
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(millis).as("GET / with 250 hostile connections open").isLessThan(2000);
      start = System.nanoTime();
      String during = seededEpisode();
      assertThat((System.nanoTime() - start) / 1_000_000).as("an episode with 250 hostile connections open")
          .isLessThan(2000);
      assertThat(during).isEqualTo(before);
      assertThat(hostile.stillOpen()).as("the hostile connections are still open").isEqualTo(250);
    }
    assertThat(seededEpisode()).isEqualTo(before);
  }

  @Test
  void eachMalformedRequestGetsAJson4xxAndTheServerAnswersAsBefore() throws Exception {
    String before = seededEpisode();
    for (Map.Entry<String, byte[]> c : HostileClients.malformedRequests("/step").entrySet()) {
      HostileClients.Answer a = HostileClients.exchange(server.port(), c.getValue(), Duration.ofSeconds(5));
      String what = c.getKey() + ": " + a;
      assertThat(a.status()).as(what).isBetween(400, 499);
      assertThat(a.millis()).as(what).isLessThan(5000);
      assertThat(a.headers().get("content-type")).as(what).startsWith("application/json");
      JsonObject err = JsonParser.parseString(a.body()).getAsJsonObject();
      assertThat(err.get("error").getAsString()).as(what).isNotBlank();
      assertThat(err.get("code").getAsString()).as(what).isIn("bad_request", "headers_too_large");
      assertThat(seededEpisode()).as("after " + c.getKey()).isEqualTo(before);
    }
  }

  @Test
  void anHttp09RequestLineAndAContentLengthThatCutsTheJsonGet400sInPlainWords() throws Exception {
    HostileClients.Answer a = HostileClients.exchange(server.port(),
        "GET /\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII), Duration.ofSeconds(5));
    assertThat(a.status()).as(a.toString()).isEqualTo(400);
    assertThat(JsonParser.parseString(a.body()).getAsJsonObject().get("code").getAsString()).isEqualTo("bad_request");
    // Content-Length: 10 with a longer body: the server reads {"id": 0, and the JSON ends there
    a = HostileClients.exchange(server.port(), ("POST /reset HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"
        + "{\"id\": 0, \"seed\": 7}").getBytes(java.nio.charset.StandardCharsets.US_ASCII), Duration.ofSeconds(5));
    assertThat(a.status()).as(a.toString()).isEqualTo(400);
    assertThat(JsonParser.parseString(a.body()).getAsJsonObject().get("error").getAsString())
        .startsWith("the request body is not valid JSON: it ends before its JSON value is complete")
        .contains("10 bytes its Content-Length declares").doesNotContain("Exception").doesNotContain("java.");
  }

  @Test
  void withAnApiKeyOnlyTheHealthCheckAnswersWithoutIt() throws Exception {
    try (EnvServer keyed = EnvServer.builder().setRegistry(EnvironmentRegistry.discover())
        .addEnvironment("mage-kuhn-poker").optPort(0).optApiKey("k3y").build().start()) {
      HttpResponse<String> none = HTTP.send(HttpRequest.newBuilder(URI.create(keyed.url() + "/create"))
          .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(none.statusCode()).isEqualTo(401);
      JsonObject err = JsonParser.parseString(none.body()).getAsJsonObject();
      assertThat(err.get("code").getAsString()).isEqualTo("invalid_api_key");
      assertThat(err.get("error").getAsString()).contains("Authorization: Bearer");
      HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create(keyed.url() + "/"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(URI.create(keyed.url() + "/create"))
          .header("Authorization", "Bearer k3y").timeout(Duration.ofSeconds(10))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    }
  }
}
