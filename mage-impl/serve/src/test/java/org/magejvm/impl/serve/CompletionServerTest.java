package org.magejvm.impl.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ContextMode;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.tictactoe.TicTacToeProvider;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import org.magejvm.impl.openai.ChatFormats;
import org.magejvm.impl.openai.OpenAiCompletionsPolicy;
import org.magejvm.impl.openai.RemotePolicyException;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.PromptStyle;

/**
 * The remote policy against a real {@link CompletionServer} on a loopback port, compared with the same checkpoint
 * in process.
 */
class CompletionServerTest {

  /** The largest log-probability difference accepted between remote and in-process generation. */
  static final float LOG_PROB_TOLERANCE = 1e-4f;

  @TempDir static Path shared;
  static Path tiny;
  static DjlLanguagePolicy local;
  static CompletionServer server;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    tiny = shared.resolve("tiny");
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

  static OpenAiCompletionsPolicy.Builder remote(CompletionServer s) {
    return OpenAiCompletionsPolicy.builder().addEndpoint(s.baseUrl()).setModel(s.modelName())
        .optPromptFormatter(local::renderPrompt).optBackoff(Duration.ofMillis(20), Duration.ofMillis(100))
        .optMaxAttempts(2).optRequestTimeout(Duration.ofSeconds(60));
  }

  static List<PolicyRequest> prompts(String... texts) {
    List<PolicyRequest> out = new ArrayList<>();
    for (String t : texts) {
      out.add(PolicyRequest.of(t));
    }
    return out;
  }

  /** @return the largest absolute log-probability difference */
  static float assertSame(List<Generation> remote, List<Generation> inProcess) {
    assertThat(remote).hasSameSizeAs(inProcess);
    float worst = 0;
    for (int i = 0; i < remote.size(); i++) {
      Generation r = remote.get(i);
      Generation l = inProcess.get(i);
      assertThat(r.responseTokenIds()).as("row %d tokens", i).containsExactly(l.responseTokenIds());
      assertThat(r.promptTokenIds()).as("row %d prompt", i).containsExactly(l.promptTokenIds());
      assertThat(r.text()).isEqualTo(l.text());
      assertThat(r.finishReason()).isEqualTo(l.finishReason());
      for (int j = 0; j < r.logProbs().length; j++) {
        worst = Math.max(worst, Math.abs(r.logProbs()[j] - l.logProbs()[j]));
      }
    }
    assertThat(worst).isLessThanOrEqualTo(LOG_PROB_TOLERANCE);
    return worst;
  }

  static HttpResponse<String> post(CompletionServer s, String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + path))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonObject error(HttpResponse<String> r) {
    return JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonObject("error");
  }

  @Test
  void remoteGenerationEqualsInProcessForTheSameSeed() {
    List<PolicyRequest> batch = prompts("Your move?", "Play (2, 2)", "x", "A longer prompt than the others here.");
    List<SamplingConfig> configs = List.of(
        SamplingConfig.builder().optMaxNewTokens(12).optSeed(11).build(),
        SamplingConfig.evaluation(8).withSeed(3),
        SamplingConfig.builder().optTemperature(0).optMaxNewTokens(6).build());
    float worst = 0;
    try (OpenAiCompletionsPolicy asIds = remote(server).optTokenizer(local.tokenizer()::encode).build();
        OpenAiCompletionsPolicy asText = remote(server).build()) {
      for (SamplingConfig s : configs) {
        List<Generation> inProcess = local.generate(batch, s);
        worst = Math.max(worst, assertSame(asIds.generate(batch, s), inProcess));
        worst = Math.max(worst, assertSame(asText.generate(batch, s), inProcess));
      }
    }
    // one request per generation call on the server: other padding than the in-process batch of four
    float unbatched = 0;
    try (CompletionServer oneByOne = CompletionServer.builder().setPolicy(local, false).optPort(0).optMaxBatch(1)
            .start();
        OpenAiCompletionsPolicy policy = remote(oneByOne).optTokenizer(local.tokenizer()::encode).optMaxInFlight(1)
            .build()) {
      for (SamplingConfig s : configs) {
        List<Generation> inProcess = local.generate(batch, s);
        unbatched = Math.max(unbatched, assertSame(policy.generate(batch, s), inProcess));
      }
    }
    System.out.printf(Locale.ROOT, "remote vs in-process, largest log-prob difference: %.3g batched as in process,"
        + " %.3g one request per server call%n", worst, unbatched);
  }

  @Test
  void concurrentClientsEachGetTheirOwnAnswersBatchedTogether() throws Exception {
    long before = server.stats().batches();
    long rowsBefore = server.stats().rows();
    int clients = 4;
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (OpenAiCompletionsPolicy policy = remote(server).optTokenizer(p -> {
          synchronized (local) {
            return local.tokenizer().encode(p);
          }
        }).build()) {
      List<List<Generation>> remoteResults = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        remoteResults.add(null);
      }
      for (int c = 0; c < clients; c++) {
        int client = c;
        runs.add(CompletableFuture.runAsync(() -> {
          try {
            remoteResults.set(client, policy.generate(prompts("client " + client, "again " + client, "?"),
                SamplingConfig.builder().optMaxNewTokens(6).optSeed(100 + client).build()));
          } catch (Throwable t) {
            failure.set(t);
          }
        }));
      }
      CompletableFuture.allOf(runs.toArray(new CompletableFuture<?>[0])).get();
      assertThat(failure.get()).isNull();
      for (int c = 0; c < clients; c++) {
        List<Generation> inProcess = local.generate(prompts("client " + c, "again " + c, "?"),
            SamplingConfig.builder().optMaxNewTokens(6).optSeed(100 + c).build());
        assertSame(remoteResults.get(c), inProcess);
      }
    }
    CompletionServer.Stats stats = server.stats();
    assertThat(stats.rows() - rowsBefore).isEqualTo(3L * clients);
    assertThat(stats.batches() - before).as("12 requests in fewer generation calls").isLessThan(3L * clients);
    assertThat(stats.largestBatch()).isGreaterThan(1);
  }

  @Test
  void chatCompletionsUseTheChatTemplateLikeTheInProcessPolicy() throws Exception {
    Generation inProcess = local.generate(prompts("Your move?"),
        SamplingConfig.builder().optTemperature(0).optMaxNewTokens(5).build()).get(0);
    HttpResponse<String> r = post(server, "/v1/chat/completions", "{\"model\":\"" + server.modelName()
        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Your move?\"}],\"temperature\":0,\"max_tokens\":5,"
        + "\"logprobs\":true}");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonObject choice = JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray("choices").get(0)
        .getAsJsonObject();
    assertThat(choice.getAsJsonArray("token_ids").toString())
        .isEqualTo(com.google.gson.JsonParser.parseString(java.util.Arrays.toString(inProcess.responseTokenIds()))
            .toString());
    assertThat(choice.getAsJsonArray("prompt_token_ids")).hasSize(inProcess.promptTokenIds().length);
    assertThat(choice.getAsJsonObject("message").get("content").getAsString()).isEqualTo(inProcess.text());
    assertThat(choice.getAsJsonObject("logprobs").getAsJsonArray("content"))
        .hasSize(inProcess.responseTokenIds().length);
    HttpResponse<String> models = HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/models"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(models.body()).contains("\"id\":\"" + server.modelName() + "\"").contains("\"max_model_len\":8192");
    HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/health"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"ok\"");
  }

  @Test
  void malformedRequestsGet400NamingTheFieldAndTheServerGoesOn() throws Exception {
    String m = server.modelName();
    String[][] cases = {
        {"{not json", "", "invalid_json"},
        {"[1, 2]", "", "invalid_json"},
        {"{\"model\":\"" + m + "\"}", "prompt", "missing_field"},
        {"{\"prompt\":\"x\",\"max_tokens\":\"many\"}", "max_tokens", "invalid_type"},
        {"{\"prompt\":\"x\",\"max_tokens\":2.5}", "max_tokens", "invalid_type"},
        {"{\"prompt\":\"x\",\"max_tokens\":0}", "max_tokens", "invalid_value"},
        {"{\"prompt\":\"x\",\"temperature\":-1}", "temperature", "invalid_value"},
        {"{\"prompt\":\"x\",\"top_p\":0}", "top_p", "invalid_value"},
        // 1e-300 rounds to 0 in float32: the logits divided by it made NaN log-probabilities (a 500 before)
        {"{\"prompt\":\"x\",\"temperature\":1e-300}", "temperature", "invalid_value"},
        {"{\"prompt\":\"x\",\"temperature\":0.009}", "temperature", "invalid_value"},
        {"{\"prompt\":\"x\",\"temperature\":\"hot\"}", "temperature", "invalid_type"},
        {"{\"prompt\":\"x\",\"top_p\":1.5}", "top_p", "invalid_value"},
        {"{\"prompt\":\"x\",\"top_k\":-2}", "top_k", "invalid_value"},
        {"{\"prompt\":\"x\",\"top_k\":1.5}", "top_k", "invalid_type"},
        {"{\"prompt\":\"x\",\"logprobs\":21}", "logprobs", "invalid_value"},
        {"{\"prompt\":\"x\",\"logprobs\":-1}", "logprobs", "invalid_value"},
        {"{\"prompt\":\"x\",\"logprobs\":true}", "logprobs", "invalid_type"},
        {"{\"prompt\":\"x\",\"stop\":5}", "stop", "invalid_type"},
        {"{\"prompt\":\"x\",\"stop\":[\"a\", 1]}", "stop[1]", "invalid_type"},
        {"{\"prompt\":\"x\",\"n\":\"two\"}", "n", "invalid_type"},
        {"{\"prompt\":\"x\",\"max_tokens\":-5}", "max_tokens", "invalid_value"},
        {"{\"prompt\":\"x\",\"min_tokens\":20,\"max_tokens\":4}", "min_tokens", "invalid_value"},
        {"{\"prompt\":\"x\",\"seed\":\"s\"}", "seed", "invalid_type"},
        {"{\"prompt\":[1, 99999999]}", "prompt[1]", "invalid_value"},
        {"{\"prompt\":[\"a\", \"b\"]}", "prompt", "unsupported"},
        {"{\"prompt\":{}}", "prompt", "invalid_type"},
        {"{\"prompt\":\"x\",\"n\":17}", "n", "invalid_value"},
        {"{\"prompt\":\"x\",\"best_of\":2}", "best_of", "unsupported"},
        {"{\"prompt\":\"x\",\"n\":0}", "n", "invalid_value"},
        {"[".repeat(100_000), "", "invalid_json"},
        // Gson refuses nesting deeper than 255 levels, so deep bodies cannot exhaust the stack
        {"{\"prompt\":" + "[".repeat(100_000) + "1" + "]".repeat(100_000) + "}", "", "invalid_json"},
        {"{\"prompt\":[[1]]}", "prompt", "unsupported"},
        {"{\"prompt\":\"x\",\"max_tokens\":9000}", "max_tokens", "invalid_value"},
        {"{\"prompt\":\"" + "x ".repeat(5000) + "\"}", "prompt", "context_length_exceeded"},
    };
    for (String[] c : cases) {
      HttpResponse<String> r = post(server, "/v1/completions", c[0]);
      assertThat(r.statusCode()).as(c[0].length() > 80 ? c[0].substring(0, 80) : c[0]).isEqualTo(400);
      JsonObject err = error(r);
      assertThat(err.get("type").getAsString()).isEqualTo("invalid_request_error");
      assertThat(err.get("message").getAsString()).isNotBlank();
      if (!c[1].isEmpty()) {
        assertThat(err.get("param").getAsString()).as(c[0]).isEqualTo(c[1]);
        assertThat(err.get("message").getAsString()).contains(c[1].replaceAll("\\[.*", ""));
      }
      assertThat(err.get("code")).as(r.body()).isNotNull();
      assertThat(err.get("code").getAsString()).as(r.body()).isEqualTo(c[2]);
    }
    // beyond the model's context: the one-line message every command gives, naming the length and the context
    int context = org.magejvm.impl.llm.TinyCheckpoint.MAX_POSITION_EMBEDDINGS;
    HttpResponse<String> beyond = post(server, "/v1/completions", "{\"prompt\":[" + "1,".repeat(context) + "1]}");
    assertThat(beyond.statusCode()).isEqualTo(400);
    assertThat(error(beyond).get("message").getAsString()).isEqualTo("the prompt is " + (context + 1)
        + " tokens, more than the model's context of " + context + " tokens (max_position_embeddings in config.json)");
    HttpResponse<String> megabyte = post(server, "/v1/completions", "{\"prompt\":\"" + "x".repeat(500_000) + "\"}");
    assertThat(megabyte.statusCode()).as(megabyte.body()).isEqualTo(400);
    assertThat(error(megabyte).get("code").getAsString()).isEqualTo("context_length_exceeded");
    assertThat(error(megabyte).get("message").getAsString()).startsWith("the prompt is at least ")
        .containsPattern("at least \\d+ tokens \\(500000 characters\\), more than");
    HttpResponse<String> chat = post(server, "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\"}]}");
    assertThat(chat.statusCode()).isEqualTo(400);
    assertThat(error(chat).get("param").getAsString()).isEqualTo("messages[0]");
    String user = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    String[][] chatCases = {
        {"{" + user + ",\"logprobs\":1}", "logprobs", "invalid_type"},
        {"{" + user + ",\"top_logprobs\":3}", "top_logprobs", "invalid_value"},
        {"{" + user + ",\"logprobs\":true,\"top_logprobs\":-1}", "top_logprobs", "invalid_value"},
        {"{" + user + ",\"logprobs\":true,\"top_logprobs\":21}", "top_logprobs", "invalid_value"},
        {"{" + user + ",\"max_completion_tokens\":9000}", "max_completion_tokens", "invalid_value"},
        {"{" + user + ",\"temperature\":1e-300}", "temperature", "invalid_value"},
    };
    for (String[] c : chatCases) {
      HttpResponse<String> r = post(server, "/v1/chat/completions", c[0]);
      assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
      assertThat(error(r).get("param").getAsString()).as(c[0]).isEqualTo(c[1]);
      assertThat(error(r).get("code").getAsString()).as(c[0]).isEqualTo(c[2]);
    }
    // the boundaries themselves are served: greedy, the smallest temperature, top_k -1 (off, as in vLLM)
    for (String ok : new String[] {"\"temperature\":0", "\"temperature\":0.01", "\"top_k\":-1",
        "\"logprobs\":20"}) {
      HttpResponse<String> r = post(server, "/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":2,\"seed\":3," + ok
          + "}");
      assertThat(r.statusCode()).as(ok + ": " + r.body()).isEqualTo(200);
      assertThat(r.body()).as(ok).doesNotContain("NaN");
    }
    HttpResponse<String> unknownModel = post(server, "/v1/completions", "{\"model\":\"gpt-9\",\"prompt\":\"x\"}");
    assertThat(unknownModel.statusCode()).isEqualTo(404);
    assertThat(error(unknownModel).get("message").getAsString()).contains("gpt-9").contains(m);
    assertThat(error(unknownModel).get("param").getAsString()).isEqualTo("model");
    assertThat(post(server, "/v2/nothing", "{}").statusCode()).isEqualTo(404);
    assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/completions")).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
    // still serving
    HttpResponse<String> ok = post(server, "/v1/completions", "{\"prompt\":\"Your move?\",\"max_tokens\":3,"
        + "\"logprobs\":1,\"return_tokens_as_token_ids\":true,\"seed\":1}");
    assertThat(ok.statusCode()).isEqualTo(200);
    JsonObject choice = JsonParser.parseString(ok.body()).getAsJsonObject().getAsJsonArray("choices").get(0)
        .getAsJsonObject();
    assertThat(choice.getAsJsonObject("logprobs").getAsJsonArray("tokens").get(0).getAsString())
        .startsWith("token_id:");
  }

  @Test
  void aPromptBeyondTheLimitIsRejectedForThatRequestOnly() {
    try (OpenAiCompletionsPolicy policy = remote(server).build()) {
      List<PolicyRequest> batch = prompts("short", "y ".repeat(3000), "also short");
      assertThatThrownBy(() -> policy.generate(batch, SamplingConfig.builder().optMaxNewTokens(3).optSeed(1).build()))
          .isInstanceOf(PolicyRequestException.class)
          .satisfies(e -> assertThat(((PolicyRequestException) e).rejected()).containsOnlyKeys(1))
          .hasMessageContaining("prompt limit of 4096 tokens");
    }
  }

  @Test
  void anOversizeBodyGets413() throws Exception {
    try (CompletionServer small = CompletionServer.builder().setPolicy(local, false).optPort(0)
        .optMaxBodyBytes(4096).start()) {
      HttpResponse<String> r = post(small, "/v1/completions", "{\"prompt\":\"" + "z".repeat(20_000) + "\"}");
      assertThat(r.statusCode()).isEqualTo(413);
      assertThat(error(r).get("code").getAsString()).isEqualTo("request_too_large");
      assertThat(error(r).get("message").getAsString()).contains("4096");
      assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(small.baseUrl() + "/health")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aGenerationFailureIs500AndTheServerGoesOn() throws Exception {
    AtomicBoolean fail = new AtomicBoolean(true);
    DjlLanguagePolicy flaky = DjlLanguagePolicy.builderForCheckpoint(tiny)
        .setGenerator((prompts, sampling, stops) -> {
          if (fail.get()) {
            throw new IllegalStateException("simulated device failure");
          }
          List<GeneratedSequence> out = new ArrayList<>();
          for (int i = 0; i < prompts.size(); i++) {
            out.add(new GeneratedSequence(new int[] {5}, new float[] {-0.5f}, FinishReason.LENGTH));
          }
          return out;
        }).optName("flaky").build();
    try (CompletionServer s = CompletionServer.builder().setPolicy(flaky, true).optPort(0).start()) {
      HttpResponse<String> r = post(s, "/v1/completions", "{\"prompt\":\"hello\",\"max_tokens\":1}");
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(error(r).get("message").getAsString()).contains("simulated device failure");
      assertThat(error(r).get("type").getAsString()).isEqualTo("server_error");
      fail.set(false);
      HttpResponse<String> ok = post(s, "/v1/completions", "{\"prompt\":\"hello\",\"max_tokens\":1}");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).contains("\"token_ids\":[5]");
      assertThat(s.stats().generationFailures()).isEqualTo(1);
    }
  }

  @Test
  void aServerStoppedMidBatchGivesTheClientAClearErrorAndNoGeneration() throws Exception {
    CompletionServer doomed = CompletionServer.builder()
        .setPolicy(Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu()), true).optPort(0).start();
    String url = doomed.baseUrl();
    AtomicReference<Object> outcome = new AtomicReference<>();
    try (OpenAiCompletionsPolicy policy = remote(doomed).optTokenizer(p -> {
          synchronized (local) {
            return local.tokenizer().encode(p);
          }
        }).build()) {
      // long responses (stop tokens suppressed) so that the batch is still running when the server stops
      SamplingConfig longOnes = SamplingConfig.builder().optMaxNewTokens(400).optMinNewTokens(400).optSeed(1)
          .build();
      Thread client = new Thread(() -> {
        try {
          outcome.set(policy.generate(prompts("one", "two"), longOnes));
        } catch (Throwable t) {
          outcome.set(t);
        }
      });
      client.start();
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (doomed.stats().batches() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(doomed.stats().batches()).isPositive();
      doomed.close();
      client.join(60_000);
    }
    assertThat(outcome.get()).isInstanceOf(RemotePolicyException.class);
    assertThat(((Throwable) outcome.get())).hasMessageContaining(url).hasMessageContaining("attempt");
  }

  @Test
  void aRolloutThroughTheServerHasTheSameTurnsAndMetricsAsInProcess() {
    RolloutConfig config = RolloutConfig.builder()
        .setEnvironmentId(TicTacToeProvider.ID)
        .optTasks(2)
        .optGroupSize(2)
        .optEpisodes(2)
        .optMaxTurns(2)
        .optContextMode(ContextMode.REFLECTION_ONLY)
        .optPromptStyle(PromptStyle.COMPACT)
        .optFixedOpponent("random")
        .optSampling(SamplingConfig.builder().optMaxNewTokens(6).optSeed(3).build())
        .optSeed(5)
        .build();
    RolloutResult inProcess = MetaEpisodeRunner.of(new TicTacToeProvider()).run(config, local);
    RolloutResult remote;
    try (OpenAiCompletionsPolicy policy = remote(server).optTokenizer(local.tokenizer()::encode).build()) {
      remote = MetaEpisodeRunner.of(new TicTacToeProvider()).run(config, policy);
    }
    assertThat(remote.failures()).isEmpty();
    assertThat(remote.policyCalls()).isEqualTo(inProcess.policyCalls());
    assertThat(remote.metaEpisodes()).hasSameSizeAs(inProcess.metaEpisodes());
    for (int i = 0; i < remote.metaEpisodes().size(); i++) {
      MetaEpisode r = remote.metaEpisodes().get(i);
      MetaEpisode l = inProcess.metaEpisodes().get(i);
      assertThat(r.turns()).hasSameSizeAs(l.turns());
      for (int t = 0; t < r.turns().size(); t++) {
        Turn rt = r.turns().get(t);
        Turn lt = l.turns().get(t);
        assertThat(rt.responseTokenIds()).containsExactly(lt.responseTokenIds());
        assertThat(rt.response()).isEqualTo(lt.response());
      }
    }
    assertThat(EvaluationMetrics.of(remote.metaEpisodes(), remote.episodes()))
        .isEqualTo(EvaluationMetrics.of(inProcess.metaEpisodes(), inProcess.episodes()));
  }

  @Test
  void theDjlFreeQwen3FormatterRendersLikeTheCheckpointsTemplate() {
    for (boolean thinking : new boolean[] {false, true}) {
      try (DjlLanguagePolicy p = Qwen3Checkpoint.loadPolicy(tiny,
          Qwen3Checkpoint.Options.cpu().withThinking(thinking))) {
        for (String prompt : List.of("Your move?", "line one\nline two", "")) {
          assertThat(ChatFormats.qwen3(thinking).apply(prompt)).isEqualTo(p.renderPrompt(prompt));
        }
      }
    }
  }
}
