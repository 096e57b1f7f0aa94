package org.magejvm.impl.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Generation;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.generate.Qwen3Generator;

/**
 * {@code stream}, {@code stop} and {@code n} against a real {@link CompletionServer} on a loopback port with the
 * tests' tiny checkpoint: streamed answers put together equal the answers not streamed, stop strings cut the text,
 * the {@code n} choices are the rows of an in-process batch, malformed values are 400s naming the field, and a client
 * that leaves in the middle of a stream leaves the server and the rest of its batch serving.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StreamStopAndChoicesTest {

  @TempDir static Path dir;
  static DjlLanguagePolicy local;
  static CompletionServer server;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final String CHAT = "\"messages\":[{\"role\":\"user\",\"content\":\"Your move?\"}]";

  @BeforeAll
  static void start() {
    Path tiny = dir.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action> Your move?", 7));
    Qwen3Checkpoint.Options options = Qwen3Checkpoint.Options.cpu().withThinking(false);
    local = Qwen3Checkpoint.loadPolicy(tiny, options);
    server = CompletionServer.builder().setPolicy(Qwen3Checkpoint.loadPolicy(tiny, options), true).optPort(0)
        .optBatchWindow(Duration.ofMillis(30)).start();
  }

  @AfterAll
  static void stop() {
    server.close();
    local.close();
  }

  static HttpResponse<String> post(CompletionServer s, String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + path)).timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonObject ok(String path, String body) throws Exception {
    HttpResponse<String> r = post(server, path, body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/json");
    return JsonParser.parseString(r.body()).getAsJsonObject();
  }

  static JsonObject choice(JsonObject response, int i) {
    return response.getAsJsonArray("choices").get(i).getAsJsonObject();
  }

  /** Parses a Server-Sent Events body: every event is {@code data: ...} and a blank line; the last is [DONE]. */
  static List<JsonObject> events(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
    String body = r.body();
    assertThat(body).endsWith("data: [DONE]\n\n");
    List<JsonObject> out = new ArrayList<>();
    String[] events = body.split("\n\n", -1);
    assertThat(events[events.length - 1]).isEmpty();
    for (int i = 0; i < events.length - 2; i++) {
      assertThat(events[i]).startsWith("data: ").doesNotContain("\n");
      out.add(JsonParser.parseString(events[i].substring("data: ".length())).getAsJsonObject());
    }
    assertThat(events[events.length - 2]).isEqualTo("data: [DONE]");
    return out;
  }

  /** What the chunks of one choice put together give. */
  record Reassembled(String text, List<Integer> tokenIds, List<Float> logProbs, String finish, int chunks) {}

  static Reassembled reassemble(List<JsonObject> events, int index, boolean chat) {
    StringBuilder text = new StringBuilder();
    List<Integer> ids = new ArrayList<>();
    List<Float> lps = new ArrayList<>();
    String finish = null;
    int chunks = 0;
    for (JsonObject e : events) {
      JsonArray choices = e.getAsJsonArray("choices");
      if (choices.isEmpty()) {
        continue;
      }
      JsonObject c = choices.get(0).getAsJsonObject();
      if (c.get("index").getAsInt() != index) {
        continue;
      }
      assertThat(finish).as("nothing after the finish reason").isNull();
      JsonElement piece = chat ? c.getAsJsonObject("delta").get("content") : c.get("text");
      if (piece != null && !piece.getAsString().isEmpty()) {
        chunks++;
        text.append(piece.getAsString());
      }
      if (c.has("token_ids")) {
        c.getAsJsonArray("token_ids").forEach(t -> ids.add(t.getAsInt()));
      }
      if (c.get("logprobs").isJsonObject()) {
        JsonObject lp = c.getAsJsonObject("logprobs");
        if (chat) {
          lp.getAsJsonArray("content").forEach(t -> lps.add(t.getAsJsonObject().get("logprob").getAsFloat()));
        } else {
          lp.getAsJsonArray("token_logprobs").forEach(t -> lps.add(t.getAsFloat()));
        }
      }
      if (!c.get("finish_reason").isJsonNull()) {
        finish = c.get("finish_reason").getAsString();
      }
    }
    return new Reassembled(text.toString(), ids, lps, finish, chunks);
  }

  static List<Integer> ints(JsonArray a) {
    List<Integer> out = new ArrayList<>();
    a.forEach(e -> out.add(e.getAsInt()));
    return out;
  }

  static List<Float> floats(JsonArray a) {
    List<Float> out = new ArrayList<>();
    a.forEach(e -> out.add(e.getAsFloat()));
    return out;
  }

  @Test
  void aStreamedCompletionPutTogetherEqualsTheCompletionNotStreamed() throws Exception {
    for (String sampling : List.of("\"max_tokens\":24,\"min_tokens\":24,\"seed\":7",
        "\"max_tokens\":40,\"seed\":8", "\"max_tokens\":12,\"temperature\":0")) {
      String body = "{\"prompt\":\"Your move?\",\"logprobs\":1," + sampling;
      JsonObject whole = ok("/v1/completions", body + "}");
      JsonObject c = choice(whole, 0);
      List<JsonObject> events = events(post(server, "/v1/completions", body
          + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));
      Reassembled r = reassemble(events, 0, false);
      assertThat(r.text()).as(sampling).isEqualTo(c.get("text").getAsString());
      assertThat(r.tokenIds()).as(sampling).isEqualTo(ints(c.getAsJsonArray("token_ids")));
      assertThat(r.logProbs()).as(sampling)
          .isEqualTo(floats(c.getAsJsonObject("logprobs").getAsJsonArray("token_logprobs")));
      assertThat(r.finish()).isEqualTo(c.get("finish_reason").getAsString());
      Set<String> ids = new HashSet<>();
      for (JsonObject e : events) {
        ids.add(e.get("id").getAsString());
        assertThat(e.get("object").getAsString()).isEqualTo("text_completion");
        assertThat(e.get("model").getAsString()).isEqualTo(server.modelName());
      }
      assertThat(ids).as("one id for the whole stream").hasSize(1);
      JsonObject usage = events.get(events.size() - 1);
      assertThat(usage.getAsJsonArray("choices")).isEmpty();
      assertThat(usage.getAsJsonObject("usage")).isEqualTo(whole.getAsJsonObject("usage"));
      if (sampling.contains("min_tokens")) {
        assertThat(r.chunks()).as("24 tokens come in several chunks, as they are generated").isGreaterThan(1);
      }
    }
  }

  @Test
  void aStreamedChatCompletionBeginsWithTheRoleAndPutTogetherEqualsTheCompletionNotStreamed() throws Exception {
    String body = "{" + CHAT + ",\"max_tokens\":20,\"seed\":3,\"logprobs\":true";
    JsonObject whole = ok("/v1/chat/completions", body + "}");
    List<JsonObject> events = events(post(server, "/v1/chat/completions", body + ",\"stream\":true}"));
    JsonObject first = events.get(0);
    assertThat(first.get("object").getAsString()).isEqualTo("chat.completion.chunk");
    JsonObject delta = first.getAsJsonArray("choices").get(0).getAsJsonObject().getAsJsonObject("delta");
    assertThat(delta.get("role").getAsString()).isEqualTo("assistant");
    for (JsonObject e : events) {
      assertThat(e.get("object").getAsString()).isEqualTo("chat.completion.chunk");
      assertThat(e.has("usage")).as("no usage chunk unless asked").isFalse();
    }
    Reassembled r = reassemble(events, 0, true);
    JsonObject c = choice(whole, 0);
    assertThat(r.text()).isEqualTo(c.getAsJsonObject("message").get("content").getAsString());
    assertThat(r.tokenIds()).isEqualTo(ints(c.getAsJsonArray("token_ids")));
    assertThat(r.finish()).isEqualTo(c.get("finish_reason").getAsString());
    assertThat(r.logProbs()).hasSize(r.tokenIds().size());
  }

  @Test
  void stopStringsCutTheTextBeforeTheirFirstOccurrenceAndEndTheRowEarly() throws Exception {
    String body = "{\"prompt\":\"Your move?\",\"max_tokens\":48,\"min_tokens\":48,\"seed\":21,\"logprobs\":1";
    JsonObject full = choice(ok("/v1/completions", body + "}"), 0);
    String text = full.get("text").getAsString();
    assertThat(text.length()).as(text).isGreaterThan(20);
    // a stop string taken from the middle of the text: the answer ends before its first occurrence
    String stop = text.substring(text.length() / 2, text.length() / 2 + 3);
    int at = text.indexOf(stop);
    String quoted = new com.google.gson.Gson().toJson(stop);
    for (String stopField : List.of(quoted, "[\"never occurs here\"," + quoted + "]")) {
      JsonObject cut = choice(ok("/v1/completions", body + ",\"stop\":" + stopField + "}"), 0);
      assertThat(cut.get("text").getAsString()).as(stopField).isEqualTo(text.substring(0, at));
      assertThat(cut.get("finish_reason").getAsString()).isEqualTo("stop");
      assertThat(cut.get("stop_reason").getAsString()).isEqualTo(stop);
      List<Integer> ids = ints(cut.getAsJsonArray("token_ids"));
      List<Integer> fullIds = ints(full.getAsJsonArray("token_ids"));
      assertThat(ids.size()).as("generation ended early").isLessThan(fullIds.size());
      assertThat(fullIds.subList(0, ids.size())).isEqualTo(ids);
      assertThat(floats(cut.getAsJsonObject("logprobs").getAsJsonArray("token_logprobs"))).hasSize(ids.size());
      // the tokens kept are those up to the one in which the cut falls: they spell the text, and at most that last
      // token spells more
      int[] kept = ids.stream().mapToInt(Integer::intValue).toArray();
      String spelled = local.tokenizer().decode(kept, true);
      assertThat(spelled).startsWith(text.substring(0, at));
      if (kept.length > 0) {
        String lessOne = local.tokenizer().decode(java.util.Arrays.copyOf(kept, kept.length - 1), true);
        assertThat(lessOne.length()).isLessThanOrEqualTo(at);
      }
    }
    // the earliest of several stop strings wins, whatever their order in the list
    String later = text.substring(at + 3, at + 6);
    if (text.indexOf(later) > at) {
      JsonObject two = choice(ok("/v1/completions", body + ",\"stop\":[" + new com.google.gson.Gson().toJson(later)
          + "," + quoted + "]}"), 0);
      assertThat(two.get("text").getAsString()).isEqualTo(text.substring(0, at));
      assertThat(two.get("stop_reason").getAsString()).isEqualTo(stop);
    }
    // streamed with the same stop string: the parts put together equal the answer
    List<JsonObject> events = events(post(server, "/v1/completions", body + ",\"stop\":" + quoted
        + ",\"stream\":true}"));
    Reassembled r = reassemble(events, 0, false);
    assertThat(r.text()).isEqualTo(text.substring(0, at));
    assertThat(r.finish()).isEqualTo("stop");
    JsonObject cut = choice(ok("/v1/completions", body + ",\"stop\":" + quoted + "}"), 0);
    assertThat(r.tokenIds()).isEqualTo(ints(cut.getAsJsonArray("token_ids")));
    // include_stop_str_in_output: the text ends with the stop string, every generated token is kept, streamed alike
    JsonObject with = choice(ok("/v1/completions", body + ",\"stop\":" + quoted
        + ",\"include_stop_str_in_output\":true}"), 0);
    assertThat(with.get("text").getAsString()).isEqualTo(text.substring(0, at + stop.length()));
    assertThat(with.get("stop_reason").getAsString()).isEqualTo(stop);
    List<Integer> withIds = ints(with.getAsJsonArray("token_ids"));
    assertThat(withIds.size()).isGreaterThanOrEqualTo(ints(cut.getAsJsonArray("token_ids")).size());
    assertThat(ints(full.getAsJsonArray("token_ids")).subList(0, withIds.size())).isEqualTo(withIds);
    assertThat(local.tokenizer().decode(withIds.stream().mapToInt(Integer::intValue).toArray(), true))
        .startsWith(text.substring(0, at + stop.length()));
    Reassembled streamedWith = reassemble(events(post(server, "/v1/completions", body + ",\"stop\":" + quoted
        + ",\"include_stop_str_in_output\":true,\"stream\":true}")), 0, false);
    assertThat(streamedWith.text()).isEqualTo(with.get("text").getAsString());
    assertThat(streamedWith.tokenIds()).isEqualTo(withIds);
    assertThat(post(server, "/v1/completions", body + ",\"include_stop_str_in_output\":\"yes\"}").statusCode())
        .isEqualTo(400);
    // the chat endpoint cuts the same way
    JsonObject chatFull = choice(ok("/v1/chat/completions", "{" + CHAT + ",\"max_tokens\":40,\"min_tokens\":40,"
        + "\"seed\":5}"), 0);
    String chatText = chatFull.getAsJsonObject("message").get("content").getAsString();
    assertThat(chatText.length()).as(chatText).isGreaterThan(12);
    String chatStop = chatText.substring(10, 12);
    JsonObject chatCut = choice(ok("/v1/chat/completions", "{" + CHAT + ",\"max_tokens\":40,\"min_tokens\":40,"
        + "\"seed\":5,\"stop\":" + new com.google.gson.Gson().toJson(chatStop) + "}"), 0);
    assertThat(chatCut.getAsJsonObject("message").get("content").getAsString())
        .isEqualTo(chatText.substring(0, chatText.indexOf(chatStop)));
    assertThat(chatCut.get("finish_reason").getAsString()).isEqualTo("stop");
  }

  @Test
  void nChoicesAreTheRowsOfAnInProcessBatchWithDistinctReproducibleSeeds() throws Exception {
    String body = "{" + CHAT + ",\"max_tokens\":16,\"seed\":5,\"n\":3,\"logprobs\":true}";
    JsonObject first = ok("/v1/chat/completions", body);
    JsonObject again = ok("/v1/chat/completions", body);
    List<Generation> inProcess = local.generate(List.of(PolicyRequest.of("Your move?"),
        PolicyRequest.of("Your move?"), PolicyRequest.of("Your move?")),
        SamplingConfig.builder().optMaxNewTokens(16).optSeed(5).build());
    Set<List<Integer>> distinct = new HashSet<>();
    int completion = 0;
    for (int i = 0; i < 3; i++) {
      JsonObject c = choice(first, i);
      assertThat(c.get("index").getAsInt()).isEqualTo(i);
      List<Integer> ids = ints(c.getAsJsonArray("token_ids"));
      assertThat(ids).as("choice %d is reproducible", i).isEqualTo(ints(choice(again, i).getAsJsonArray("token_ids")));
      List<Integer> expected = new ArrayList<>();
      for (int t : inProcess.get(i).responseTokenIds()) {
        expected.add(t);
      }
      assertThat(ids).as("choice %d is row %d of an in-process call seeded 5", i, i).isEqualTo(expected);
      assertThat(c.getAsJsonObject("message").get("content").getAsString()).isEqualTo(inProcess.get(i).text());
      distinct.add(ids);
      completion += ids.size();
    }
    assertThat(distinct).as("three seeds, three samples").hasSize(3);
    assertThat(first.getAsJsonObject("usage").get("completion_tokens").getAsInt()).isEqualTo(completion);
    // choice i of a request seeded s is the one choice of a request seeded rowSeed(s, i)
    JsonObject single = ok("/v1/chat/completions", "{" + CHAT + ",\"max_tokens\":16,\"seed\":"
        + Qwen3Generator.rowSeed(5, 2) + "}");
    assertThat(choice(single, 0).getAsJsonArray("token_ids")).isEqualTo(choice(first, 2).getAsJsonArray("token_ids"));
    // best_of equal to n is accepted; streamed choices put together equal the choices not streamed
    String completions = "{\"prompt\":\"Your move?\",\"max_tokens\":12,\"seed\":9,\"n\":2,\"best_of\":2";
    JsonObject whole = ok("/v1/completions", completions + "}");
    List<JsonObject> events = events(post(server, "/v1/completions", completions + ",\"stream\":true}"));
    for (int i = 0; i < 2; i++) {
      Reassembled r = reassemble(events, i, false);
      assertThat(r.text()).isEqualTo(choice(whole, i).get("text").getAsString());
      assertThat(r.tokenIds()).isEqualTo(ints(choice(whole, i).getAsJsonArray("token_ids")));
      assertThat(r.finish()).isEqualTo(choice(whole, i).get("finish_reason").getAsString());
    }
  }

  @Test
  void malformedStreamStopAndChoiceValuesGet400NamingTheField() throws Exception {
    String[][] cases = {
        {"\"stop\":5", "stop", "invalid_type"},
        {"\"stop\":{\"a\":1}", "stop", "invalid_type"},
        {"\"stop\":[\"a\", 1]", "stop[1]", "invalid_type"},
        {"\"stop\":[\"a\", null]", "stop[1]", "invalid_type"},
        {"\"stop\":\"\"", "stop", "invalid_value"},
        {"\"stop\":[\"a\", \"\"]", "stop[1]", "invalid_value"},
        {"\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"]", "stop", "invalid_value"},
        {"\"n\":17", "n", "invalid_value"},
        {"\"n\":0", "n", "invalid_value"},
        {"\"n\":2.5", "n", "invalid_type"},
        {"\"n\":\"two\"", "n", "invalid_type"},
        {"\"best_of\":3", "best_of", "unsupported"},
        {"\"n\":2,\"best_of\":3", "best_of", "unsupported"},
        {"\"best_of\":\"x\"", "best_of", "invalid_type"},
        {"\"stream\":\"yes\"", "stream", "invalid_type"},
        {"\"stream_options\":{\"include_usage\":true}", "stream_options", "invalid_value"},
        {"\"stream\":true,\"stream_options\":3", "stream_options", "invalid_type"},
        {"\"stream\":true,\"stream_options\":{\"include_usage\":\"y\"}", "stream_options.include_usage",
            "invalid_type"},
        {"\"stream\":true,\"stream_options\":{\"continuous_usage_stats\":true}",
            "stream_options.continuous_usage_stats", "unsupported"},
        {"\"stream\":true,\"max_tokens\":0", "max_tokens", "invalid_value"},
    };
    for (String path : List.of("/v1/completions", "/v1/chat/completions")) {
      String head = path.contains("chat") ? "{" + CHAT + "," : "{\"prompt\":\"x\",";
      for (String[] c : cases) {
        HttpResponse<String> r = post(server, path, head + c[0] + "}");
        assertThat(r.statusCode()).as(path + " " + c[0] + ": " + r.body()).isEqualTo(400);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/json");
        JsonObject err = JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonObject("error");
        assertThat(err.keySet()).containsExactlyInAnyOrder("message", "type", "param", "code");
        assertThat(err.get("param").getAsString()).as(c[0]).isEqualTo(c[1]);
        assertThat(err.get("code").getAsString()).as(c[0]).isEqualTo(c[2]);
        assertThat(err.get("message").getAsString()).as(c[0]).contains(c[1].replaceAll("\\[.*", ""));
      }
    }
    // a prompt the generation thread refuses is an ordinary JSON 400 for a streamed request too, not a stream
    HttpResponse<String> tooLong = post(server, "/v1/completions", "{\"prompt\":\"" + "x ".repeat(5000)
        + "\",\"stream\":true}");
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(tooLong.body()).contains("context_length_exceeded");
    // and the server goes on
    assertThat(choice(ok("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":3,\"seed\":1,\"stop\":[],"
        + "\"n\":1}"), 0).getAsJsonArray("token_ids")).isNotEmpty();
  }

  @Test
  void aClientThatLeavesInTheMiddleOfAStreamLeavesTheServerAndItsBatchServing() throws Exception {
    // a long batch window so that the stream and the other request share one generation call
    try (CompletionServer s = CompletionServer.builder().setPolicy(local, false).optPort(0)
        .optBatchWindow(Duration.ofMillis(1500)).start()) {
      String sampling = "\"max_tokens\":300,\"min_tokens\":300,\"seed\":";
      String other = "{\"prompt\":\"Your move?\"," + sampling + "2}";
      String streamed = "{\"prompt\":\"Play\",\"stream\":true," + sampling + "1}";
      byte[] request = ("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + streamed.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + streamed)
          .getBytes(StandardCharsets.UTF_8);
      CompletableFuture<HttpResponse<String>> neighbour;
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", s.port()), 5000);
        socket.setSoTimeout(60_000);
        OutputStream out = socket.getOutputStream();
        out.write(request);
        out.flush();
        neighbour = HTTP.sendAsync(HttpRequest.newBuilder(URI.create(s.baseUrl() + "/v1/completions"))
            .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofString(other)).build(),
            HttpResponse.BodyHandlers.ofString());
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
            StandardCharsets.UTF_8));
        String status = in.readLine();
        assertThat(status).isEqualTo("HTTP/1.1 200 OK");
        int dataLines = 0;
        for (String line; dataLines < 2 && (line = in.readLine()) != null; ) {
          if (line.contains("data: {")) {
            dataLines++;
          }
        }
        assertThat(dataLines).as("the stream had begun").isEqualTo(2);
        socket.setSoLinger(true, 0);   // leave with a reset, in the middle of the stream
      }
      HttpResponse<String> r = neighbour.get(120, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (s.stats().cancelledRows() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(s.stats().cancelledRows()).as("the stream's row was dropped from its batch").isEqualTo(1);
      assertThat(s.stats().largestBatch()).as("the stream and its neighbour shared a generation call")
          .isEqualTo(2);
      // the neighbour got the whole answer it gets alone
      HttpResponse<String> alone = post(s, "/v1/completions", other);
      JsonObject a = choice(JsonParser.parseString(alone.body()).getAsJsonObject(), 0);
      JsonObject n = choice(JsonParser.parseString(r.body()).getAsJsonObject(), 0);
      assertThat(n.getAsJsonArray("token_ids")).hasSize(300).isEqualTo(a.getAsJsonArray("token_ids"));
      assertThat(n.get("text")).isEqualTo(a.get("text"));
      // and the server streams again
      Reassembled again = reassemble(events(post(s, "/v1/completions", "{\"prompt\":\"Play\",\"stream\":true,"
          + "\"max_tokens\":8,\"seed\":1}")), 0, false);
      assertThat(again.finish()).isNotNull();
      assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + "/health")).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
  }
}
