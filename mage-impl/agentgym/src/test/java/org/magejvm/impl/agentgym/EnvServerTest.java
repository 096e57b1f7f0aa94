package org.magejvm.impl.agentgym;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.agentgym.server.EnvServer;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The env server's answers to good and bad requests: 400 naming the field, 404 for unknown environments, instances
 * and endpoints, 405, 413, 500 for an environment that throws, and it keeps serving after each; idle instances are
 * closed.
 */
class EnvServerTest {

  private EnvServer server;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void start() throws Exception {
    server = EnvServer.builder()
        .setRegistry(EnvironmentRegistry.empty().register(new KuhnPokerProvider()).register(new BoomProvider()))
        .optMaxBodyBytes(4096).optIdleTimeout(Duration.ofSeconds(60))
        .build().start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(server.url() + path))
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(server.url() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonObject json(HttpResponse<String> r) {
    return JsonParser.parseString(r.body()).getAsJsonObject();
  }

  private long create(String env) throws Exception {
    HttpResponse<String> r = post("/create", "{\"env\": \"" + env + "\"}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return json(r).get("id").getAsLong();
  }

  private void assertAlive() throws Exception {
    HttpResponse<String> r = get("/");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("\"ok\"");
  }

  @Test
  void playsThroughTheProtocol() throws Exception {
    assertThat(JsonParser.parseString(get("/envs").body()).getAsJsonArray()).hasSize(2);
    JsonObject info = json(get("/info?env=mage-kuhn-poker"));
    assertThat(info.get("evaluation_opponent").getAsString()).isEqualTo("cfr");
    assertThat(info.getAsJsonObject("opponents").getAsJsonArray("training")).hasSize(3);

    long id = create("mage-kuhn-poker");
    JsonObject reset = json(post("/reset", "{\"id\": " + id + ", \"seed\": 5, \"opponent\": \"cfr\", \"seat\":"
        + " \"second\"}"));
    assertThat(reset.get("observation").getAsString()).startsWith("You are player 1.");
    assertThat(reset.getAsJsonObject("anchor").get("opponent").getAsString()).isEqualTo("cfr");
    assertThat(JsonParser.parseString(get("/available_actions?id=" + id).body()).getAsJsonArray()).hasSize(2);
    assertThat(JsonParser.parseString(get("/observation?id=" + id).body()).getAsString())
        .isEqualTo(reset.get("observation").getAsString());
    JsonObject step = json(post("/step", "{\"id\": " + id + ", \"action\": \"<action>BET</action>\"}"));
    assertThat(step.get("action_valid").getAsBoolean()).isTrue();
    assertThat(step.get("done").getAsBoolean()).isTrue();
    assertThat(step.get("reward").getAsDouble()).isIn(-10.0, -5.0, 5.0, 10.0);
    JsonObject restart = json(post("/restart", "{\"id\": " + id + "}"));
    assertThat(restart.get("observation").getAsString()).isEqualTo(reset.get("observation").getAsString());
    assertThat(json(post("/close", "{\"id\": " + id + "}")).get("closed").getAsBoolean()).isTrue();
    assertThat(json(post("/close", "{\"id\": " + id + "}")).get("closed").getAsBoolean()).isFalse();
  }

  @Test
  void malformedRequestsGet400NamingTheField() throws Exception {
    long id = create("mage-kuhn-poker");
    HttpResponse<String> r = post("/reset", "{not json");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("error").getAsString()).contains("not valid JSON");

    r = post("/reset", "{\"id\": " + id + "}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).as("a reset without a seed names 'seed'").isEqualTo("seed");
    assertThat(json(r).get("error").getAsString()).contains("'seed' is missing").contains("'game'")
        .contains("'session_id'");

    r = post("/reset", "{\"id\": " + id + ", \"session_id\": \"x\"}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).as("AgentGym's name, when that is the one sent")
        .isEqualTo("session_id");

    r = post("/reset", "{\"id\": " + id + ", \"seed\": \"x1\"}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("seed");

    r = post("/reset", "{\"id\": " + id + ", \"seed\": 1, \"seat\": \"third\"}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("seat");

    r = post("/reset", "{\"id\": " + id + ", \"seed\": 1, \"opponent\": \"nobody\"}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("opponent");
    assertThat(json(r).get("error").getAsString()).contains("cfr");

    r = post("/step", "{\"id\": " + id + ", \"action\": 3}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("action");

    r = post("/step", "{\"id\": " + id + ", \"action\": \"<action>PASS</action>\"}");
    assertThat(r.statusCode()).as("a step before any reset").isEqualTo(400);
    assertThat(json(r).get("error").getAsString()).contains("never reset");

    r = post("/render", "{\"id\": " + id + ", \"phase\": \"play\", \"context\": {\"style\": \"verbose\","
        + " \"episode_index\": 0, \"past_episodes\": [], \"steps\": []}}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("context.initial_observation");

    r = post("/create", "[1, 2]");
    assertThat(r.statusCode()).isEqualTo(400);

    r = post("/create", "{\"env\": \"boom-counter\", \"options\": {\"colour\": \"red\"}}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("options");
    assertThat(json(r).get("error").getAsString()).contains("colour");

    r = post("/create", "{\"env\": \"boom-counter\", \"options\": {\"start\": 1}}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("options.start");

    r = post("/create", "{\"options\": {}}");
    assertThat(r.statusCode()).as("two environments served: the id is needed").isEqualTo(400);
    assertThat(json(r).get("field").getAsString()).isEqualTo("env");

    r = post("/step", "{\"id\": " + id + ", \"action\": \"" + "x".repeat(5000) + "\"}");
    assertThat(r.statusCode()).isEqualTo(413);
    assertAlive();
  }

  @Test
  void unknownThingsGet404AndWrongMethods405() throws Exception {
    HttpResponse<String> r = post("/create", "{\"env\": \"mage-chess\"}");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(json(r).get("error").getAsString()).contains("mage-chess").contains("mage-kuhn-poker");
    r = get("/info?env=mage-chess");
    assertThat(r.statusCode()).isEqualTo(404);
    r = post("/step", "{\"id\": 999, \"action\": \"x\"}");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(json(r).get("field").getAsString()).isEqualTo("id");
    r = get("/observation?id=999");
    assertThat(r.statusCode()).isEqualTo(404);
    r = get("/nowhere");
    assertThat(r.statusCode()).isEqualTo(404);
    r = get("/step");
    assertThat(r.statusCode()).isEqualTo(405);
    assertAlive();
  }

  @Test
  void anEnvironmentThatThrowsGets500AndTheServerKeepsServing() throws Exception {
    long a = create("boom-counter");
    long b = create("boom-counter");
    post("/reset", "{\"id\": " + a + ", \"seed\": 0}");
    post("/reset", "{\"id\": " + b + ", \"seed\": 0}");
    HttpResponse<String> r = post("/step", "{\"id\": " + a + ", \"action\": \"boom\"}");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(json(r).get("error").getAsString()).contains("boom-counter").contains("the counter exploded");
    assertAlive();
    r = post("/step", "{\"id\": " + b + ", \"action\": \"<action>inc</action>\"}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).get("observation").getAsString()).isEqualTo("count 1");
    r = post("/step", "{\"id\": " + a + ", \"action\": \"<action>inc</action>\"}");
    assertThat(r.statusCode()).as("the instance that threw still answers").isEqualTo(200);
  }

  @Test
  void concurrentClientsAreServedAndOneInstanceIsSteppedOneCallAtATime() throws Exception {
    // many clients on their own instances
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      java.util.List<java.util.concurrent.Future<String>> own = new java.util.ArrayList<>();
      for (int t = 0; t < 8; t++) {
        own.add(pool.submit(() -> {
          long id = create("boom-counter");
          String last = "";
          for (int round = 0; round < 5; round++) {
            post(round == 0 ? "/reset" : "/restart", "{\"id\": " + id + ", \"seed\": 0}");
            for (int i = 0; i < 3; i++) {
              last = json(post("/step", "{\"id\": " + id + ", \"action\": \"<action>inc</action>\"}"))
                  .get("observation").getAsString();
            }
          }
          return last;
        }));
      }
      for (java.util.concurrent.Future<String> f : own) {
        assertThat(f.get()).isEqualTo("count 3");
      }
      // many clients on one instance: its lock lets exactly three increments through, the rest find the game over
      long shared = create("boom-counter");
      post("/reset", "{\"id\": " + shared + ", \"seed\": 0}");
      java.util.List<java.util.concurrent.Future<Integer>> steps = new java.util.ArrayList<>();
      for (int t = 0; t < 40; t++) {
        steps.add(pool.submit(() -> post("/step", "{\"id\": " + shared
            + ", \"action\": \"<action>inc</action>\"}").statusCode()));
      }
      int ok = 0;
      int over = 0;
      for (java.util.concurrent.Future<Integer> f : steps) {
        int code = f.get();
        ok += code == 200 ? 1 : 0;
        over += code == 400 ? 1 : 0;
      }
      assertThat(ok).isEqualTo(3);
      assertThat(over).isEqualTo(37);
      assertThat(JsonParser.parseString(get("/observation?id=" + shared).body()).getAsString()).isEqualTo("count 3");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void idleInstancesAreClosed() throws Exception {
    server.close();
    server = EnvServer.builder().setRegistry(EnvironmentRegistry.empty().register(new BoomProvider()))
        .optIdleTimeout(Duration.ofMillis(200)).build().start();
    long id = create("boom-counter");
    assertThat(server.openInstances()).isEqualTo(1);
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (server.openInstances() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(server.openInstances()).isZero();
    HttpResponse<String> r = post("/reset", "{\"id\": " + id + ", \"seed\": 0}");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(json(r).get("error").getAsString()).contains("idle");
  }
}
