package org.magejvm.impl.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;

/**
 * {@code top_logprobs} against a real {@link CompletionServer} with the tests' tiny checkpoint: completions'
 * {@code logprobs: K} and chat's {@code top_logprobs: K} give K alternatives per token, most likely first, whose entry
 * for the sampled token equals its reported log-probability; streamed alternatives equal the ones not streamed; K
 * beyond {@link CompletionServer#MAX_LOGPROBS} is a 400 naming the field.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TopLogprobsTest {

  @TempDir static Path dir;
  static CompletionServer server;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final String CHAT = "\"messages\":[{\"role\":\"user\",\"content\":\"Your move?\"}]";
  static final List<String> SAMPLINGS = List.of("\"seed\":7", "\"temperature\":0.7,\"top_k\":4,\"seed\":9",
      "\"temperature\":0");

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

  static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonObject choice(String path, String body) throws Exception {
    HttpResponse<String> r = post(path, body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray("choices").get(0).getAsJsonObject();
  }

  @Test
  void completionsLogprobsKGivesTheKMostLikelyTokensPlusTheSampledOne() throws Exception {
    for (String sampling : SAMPLINGS) {
      for (boolean ids : new boolean[] {true, false}) {
        JsonObject c = choice("/v1/completions", "{\"prompt\":\"Your move?\",\"max_tokens\":12,\"logprobs\":5,"
            + "\"return_tokens_as_token_ids\":" + ids + "," + sampling + "}");
        JsonObject lp = c.getAsJsonObject("logprobs");
        JsonArray tokens = lp.getAsJsonArray("tokens");
        JsonArray chosen = lp.getAsJsonArray("token_logprobs");
        JsonArray tops = lp.getAsJsonArray("top_logprobs");
        assertThat(tops).hasSize(tokens.size());
        for (int i = 0; i < tops.size(); i++) {
          List<Map.Entry<String, JsonElement>> entries = new ArrayList<>(tops.get(i).getAsJsonObject().entrySet());
          String token = tokens.get(i).getAsString();
          float logProb = chosen.get(i).getAsFloat();
          JsonElement own = tops.get(i).getAsJsonObject().get(token);
          assertThat(own).as(sampling + ": the sampled token " + token + " is in " + entries).isNotNull();
          if (ids) {
            // with text keys, tokens that decode to the same text share one key (as in OpenAI's answers)
            assertThat(own.getAsFloat()).isEqualTo(logProb);
          }
          int k = entries.size();
          if (ids) {
            // distinct ids: exactly K, or K + 1 with the sampled token last when it is not among the K
            assertThat(k).isBetween(5, 6);
            if (k == 6) {
              assertThat(entries.get(5).getKey()).isEqualTo(token);
            }
          }
          int sorted = ids && k == 6 ? 5 : k;
          for (int j = 1; j < sorted; j++) {
            assertThat(entries.get(j).getValue().getAsFloat()).isLessThanOrEqualTo(
                entries.get(j - 1).getValue().getAsFloat());
          }
          if (sampling.equals("\"temperature\":0")) {
            // greedy picks a most likely token (ties in either order)
            assertThat(logProb).as("greedy picks the most likely").isEqualTo(entries.get(0).getValue().getAsFloat());
          }
        }
      }
    }
    // logprobs 0: the chosen token only, top_logprobs null (left out)
    JsonObject c = choice("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":2,\"logprobs\":0,\"seed\":1}");
    JsonElement none = c.getAsJsonObject("logprobs").get("top_logprobs");
    assertThat(none == null || none.isJsonNull()).as(c.toString()).isTrue();
  }

  @Test
  void chatTopLogprobsKGivesKAlternativesSortedWithTheSampledTokensLogprob() throws Exception {
    for (String sampling : SAMPLINGS) {
      JsonObject c = choice("/v1/chat/completions", "{" + CHAT + ",\"max_tokens\":12,\"logprobs\":true,"
          + "\"top_logprobs\":4,\"return_tokens_as_token_ids\":true," + sampling + "}");
      JsonArray content = c.getAsJsonObject("logprobs").getAsJsonArray("content");
      assertThat(content).isNotEmpty();
      for (JsonElement e : content) {
        JsonObject t = e.getAsJsonObject();
        JsonArray top = t.getAsJsonArray("top_logprobs");
        assertThat(top).hasSize(4);
        assertThat(t.getAsJsonArray("bytes")).isNotNull();
        boolean found = false;
        for (int j = 0; j < top.size(); j++) {
          JsonObject a = top.get(j).getAsJsonObject();
          assertThat(a.get("token").getAsString()).startsWith("token_id:");
          assertThat(a.has("bytes")).isTrue();
          if (j > 0) {
            assertThat(a.get("logprob").getAsFloat())
                .isLessThanOrEqualTo(top.get(j - 1).getAsJsonObject().get("logprob").getAsFloat());
          }
          if (a.get("token").equals(t.get("token"))) {
            found = true;
            assertThat(a.get("logprob").getAsFloat()).isEqualTo(t.get("logprob").getAsFloat());
          }
        }
        if (!found) {
          assertThat(t.get("logprob").getAsFloat()).isLessThanOrEqualTo(
              top.get(3).getAsJsonObject().get("logprob").getAsFloat());
        }
        if (sampling.equals("\"temperature\":0")) {
          assertThat(t.get("logprob").getAsFloat()).isEqualTo(top.get(0).getAsJsonObject().get("logprob").getAsFloat());
        }
      }
    }
    // logprobs true without top_logprobs: an empty list per token, as OpenAI
    JsonObject c = choice("/v1/chat/completions", "{" + CHAT + ",\"max_tokens\":2,\"logprobs\":true,\"seed\":1}");
    for (JsonElement e : c.getAsJsonObject("logprobs").getAsJsonArray("content")) {
      assertThat(e.getAsJsonObject().getAsJsonArray("top_logprobs")).isEmpty();
    }
  }

  @Test
  void streamedAlternativesEqualTheOnesNotStreamed() throws Exception {
    for (boolean chat : new boolean[] {false, true}) {
      String body = chat
          ? "{" + CHAT + ",\"max_tokens\":16,\"min_tokens\":16,\"logprobs\":true,\"top_logprobs\":3,\"seed\":5"
          : "{\"prompt\":\"Your move?\",\"max_tokens\":16,\"min_tokens\":16,\"logprobs\":3,\"seed\":5";
      String path = chat ? "/v1/chat/completions" : "/v1/completions";
      JsonObject whole = choice(path, body + "}");
      HttpResponse<String> r = post(path, body + ",\"stream\":true}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonArray streamed = new JsonArray();
      for (String event : r.body().split("\n\n")) {
        if (!event.startsWith("data: {")) {
          continue;
        }
        JsonObject c = JsonParser.parseString(event.substring(6)).getAsJsonObject().getAsJsonArray("choices")
            .get(0).getAsJsonObject();
        if (c.get("logprobs").isJsonObject()) {
          streamed.addAll(chat ? c.getAsJsonObject("logprobs").getAsJsonArray("content")
              : c.getAsJsonObject("logprobs").getAsJsonArray("top_logprobs"));
        }
      }
      JsonArray expected = chat ? whole.getAsJsonObject("logprobs").getAsJsonArray("content")
          : whole.getAsJsonObject("logprobs").getAsJsonArray("top_logprobs");
      assertThat(streamed).as(chat ? "chat" : "completions").isEqualTo(expected);
      assertThat(expected).hasSize(16);
    }
  }

  @Test
  void kBeyondTheMaximumIsA400NamingTheField() throws Exception {
    int over = CompletionServer.MAX_LOGPROBS + 1;
    HttpResponse<String> r = post("/v1/completions", "{\"prompt\":\"x\",\"logprobs\":" + over + "}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("\"param\":\"logprobs\"").contains(String.valueOf(CompletionServer.MAX_LOGPROBS));
    r = post("/v1/chat/completions", "{" + CHAT + ",\"logprobs\":true,\"top_logprobs\":" + over + "}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("\"param\":\"top_logprobs\"");
    r = post("/v1/chat/completions", "{" + CHAT + ",\"top_logprobs\":2}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("\"param\":\"top_logprobs\"");
    assertThat(JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonObject("error").get("message")
        .getAsString()).contains("needs 'logprobs': true");
  }
}
