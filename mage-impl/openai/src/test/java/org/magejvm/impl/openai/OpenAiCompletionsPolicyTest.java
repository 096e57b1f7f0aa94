package org.magejvm.impl.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;

/** The remote policy against scripted servers: field mapping, vLLM's response format, retries and errors. */
class OpenAiCompletionsPolicyTest {

  /** A vLLM-shaped completion: tokens as "token_id:N" strings, no token_ids field. */
  static String vllmBody(String text, int[] ids, float[] lps, String finish) {
    StringBuilder tokens = new StringBuilder();
    StringBuilder logprobs = new StringBuilder();
    StringBuilder top = new StringBuilder();
    for (int i = 0; i < ids.length; i++) {
      String sep = i == 0 ? "" : ",";
      tokens.append(sep).append("\"token_id:").append(ids[i]).append('"');
      logprobs.append(sep).append(lps[i]);
      top.append(sep).append("{\"token_id:").append(ids[i]).append("\":").append(lps[i]).append('}');
    }
    return "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
        + "\"text\":\"" + text + "\",\"logprobs\":{\"text_offset\":[],\"token_logprobs\":[" + logprobs + "],"
        + "\"tokens\":[" + tokens + "],\"top_logprobs\":[" + top + "]},\"finish_reason\":\"" + finish + "\","
        + "\"stop_reason\":null}],\"usage\":{\"prompt_tokens\":3,\"total_tokens\":5,\"completion_tokens\":2}}";
  }

  private static OpenAiCompletionsPolicy.Builder fast(String... urls) {
    OpenAiCompletionsPolicy.Builder b = OpenAiCompletionsPolicy.builder().setModel("m")
        .optBackoff(Duration.ofMillis(10), Duration.ofMillis(40)).optMaxAttempts(3)
        .optRequestTimeout(Duration.ofSeconds(20));
    for (String u : urls) {
      b.addEndpoint(u);
    }
    return b;
  }

  @Test
  void vllmTokenIdStringsAndSamplingFieldsMap() {
    try (FakeServer server = new FakeServer((hit, path, body) ->
            FakeServer.Reply.ok(vllmBody("hi", new int[] {17, 2}, new float[] {-0.5f, -1.25f},
                body.contains("[60,97,62]") ? "stop" : "length")));
        OpenAiCompletionsPolicy policy = fast(server.url() + "/v1/")
            .optPromptFormatter(p -> "<" + p + ">")
            .optTokenizer(p -> p.chars().toArray())
            .optMaxInFlight(1)
            .build()) {
      SamplingConfig s = SamplingConfig.builder().optTemperature(0.7).optTopP(0.8).optTopK(20)
          .optMaxNewTokens(9).optMinNewTokens(2).optSeed(5).build();
      List<Generation> out = policy.generate(List.of(PolicyRequest.of("a"), PolicyRequest.of("b")), s);
      assertThat(out).hasSize(2);
      assertThat(out.get(0).responseTokenIds()).containsExactly(17, 2);
      assertThat(out.get(0).logProbs()).containsExactly(-0.5f, -1.25f);
      assertThat(out.get(0).text()).isEqualTo("hi");
      assertThat(out.get(0).promptTokenIds()).containsExactly('<', 'a', '>');
      assertThat(out.get(0).finishReason()).isEqualTo(FinishReason.STOP);
      assertThat(out.get(1).finishReason()).isEqualTo(FinishReason.LENGTH);
      assertThat(server.hits).hasSize(2).allSatisfy(h -> assertThat(h.path()).isEqualTo("/v1/completions"));
      List<JsonObject> bodies = new ArrayList<>();
      server.hits.forEach(h -> bodies.add(JsonParser.parseString(h.body()).getAsJsonObject()));
      bodies.sort((x, y) -> Integer.compare(x.getAsJsonArray("prompt").get(1).getAsInt(),
          y.getAsJsonArray("prompt").get(1).getAsInt()));
      JsonObject first = bodies.get(0);
      assertThat(first.get("model").getAsString()).isEqualTo("m");
      assertThat(first.getAsJsonArray("prompt").toString()).isEqualTo("[60,97,62]");
      assertThat(first.get("temperature").getAsDouble()).isEqualTo(0.7);
      assertThat(first.get("top_p").getAsDouble()).isEqualTo(0.8);
      assertThat(first.get("top_k").getAsInt()).isEqualTo(20);
      assertThat(first.get("max_tokens").getAsInt()).isEqualTo(9);
      assertThat(first.get("min_tokens").getAsInt()).isEqualTo(2);
      assertThat(first.get("logprobs").getAsInt()).isEqualTo(1);
      assertThat(first.get("return_tokens_as_token_ids").getAsBoolean()).isTrue();
      // request i of a batch seeded S carries S + i * stride
      assertThat(first.get("seed").getAsLong()).isEqualTo(5L);
      assertThat(bodies.get(1).get("seed").getAsLong()).isEqualTo(5L + OpenAiCompletionsPolicy.SEED_STRIDE);
    }
  }

  @Test
  void explicitTokenIdsWinAndTextPromptsAreSentAsText() {
    String body = "{\"choices\":[{\"index\":0,\"text\":\"ok\",\"finish_reason\":\"stop\",\"token_ids\":[4,5,6],"
        + "\"prompt_token_ids\":[1,2],\"logprobs\":{\"tokens\":[\"a\",\"b\",\"c\"],"
        + "\"token_logprobs\":[-1.0,-2.0,-3.0]}}]}";
    try (FakeServer server = new FakeServer((hit, path, b) -> FakeServer.Reply.ok(body));
        OpenAiCompletionsPolicy policy = fast(server.url()).build()) {
      Generation g = policy.generate(List.of(PolicyRequest.of("plain")), SamplingConfig.training(3)).get(0);
      assertThat(g.responseTokenIds()).containsExactly(4, 5, 6);
      assertThat(g.promptTokenIds()).containsExactly(1, 2);
      assertThat(g.logProbs()).containsExactly(-1f, -2f, -3f);
      JsonObject sent = JsonParser.parseString(server.hits.get(0).body()).getAsJsonObject();
      assertThat(sent.get("prompt").getAsString()).isEqualTo("plain");
      assertThat(sent.has("seed")).isFalse();
      assertThat(sent.has("top_k")).isFalse();
    }
  }

  @Test
  void plainTokenStringsAreRefusedUnlessTextOnlyIsAllowed() {
    String body = "{\"choices\":[{\"index\":0,\"text\":\"ok\",\"finish_reason\":\"length\",\"logprobs\":{"
        + "\"tokens\":[\"o\",\"k\"],\"token_logprobs\":[-1.0,-2.0]}}]}";
    try (FakeServer server = new FakeServer((hit, path, b) -> FakeServer.Reply.ok(body));
        OpenAiCompletionsPolicy strict = fast(server.url()).build();
        OpenAiCompletionsPolicy lenient = fast(server.url()).optRequireTokenIds(false).build()) {
      assertThatThrownBy(() -> strict.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)))
          .isInstanceOf(RemotePolicyException.class).hasMessageContaining(server.url())
          .hasMessageContaining("no sampled token ids").hasMessageContaining("optRequireTokenIds(false)");
      Generation g = lenient.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)).get(0);
      assertThat(g.text()).isEqualTo("ok");
      assertThat(g.responseTokenIds()).isEmpty();
      assertThat(g.finishReason()).isEqualTo(FinishReason.LENGTH);
    }
  }

  @Test
  void a4xxIsNotRetriedAndNamesEndpointStatusAndMessage() {
    try (FakeServer server = new FakeServer((hit, path, b) -> new FakeServer.Reply(401,
            "{\"error\":{\"message\":\"bad api key\",\"type\":\"auth\",\"param\":null,\"code\":401}}", 0));
        OpenAiCompletionsPolicy policy = fast(server.url()).build()) {
      assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)))
          .isInstanceOf(RemotePolicyException.class)
          .hasMessageContaining(server.url()).hasMessageContaining("HTTP 401").hasMessageContaining("bad api key")
          .satisfies(e -> assertThat(((RemotePolicyException) e).status()).isEqualTo(401));
      assertThat(server.hitCount()).isEqualTo(1);
    }
  }

  @Test
  void a5xxIsRetriedWithBackoffUntilItSucceeds() {
    try (FakeServer server = new FakeServer((hit, path, b) -> hit <= 2
            ? new FakeServer.Reply(503, "{\"error\":{\"message\":\"overloaded\"}}", 0)
            : FakeServer.Reply.ok(vllmBody("x", new int[] {3}, new float[] {-0.1f}, "stop")));
        OpenAiCompletionsPolicy policy = fast(server.url()).build()) {
      Generation g = policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)).get(0);
      assertThat(g.responseTokenIds()).containsExactly(3);
      assertThat(server.hitCount()).isEqualTo(3);
    }
  }

  @Test
  void a5xxThatOutlastsTheRetriesFailsTheCallNamingTheLastAnswer() {
    try (FakeServer server = new FakeServer((hit, path, b) -> new FakeServer.Reply(500, "boom", 0));
        OpenAiCompletionsPolicy policy = fast(server.url()).build()) {
      assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)))
          .isInstanceOf(RemotePolicyException.class).hasMessageContaining("after 3 attempt(s)")
          .hasMessageContaining("HTTP 500: boom").hasMessageContaining(server.url());
      assertThat(server.hitCount()).isEqualTo(3);
    }
  }

  @Test
  void aConnectionErrorIsRetriedAndNamed() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (OpenAiCompletionsPolicy policy = fast("http://127.0.0.1:" + port).build()) {
      assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)))
          .isInstanceOf(RemotePolicyException.class).hasMessageContaining("127.0.0.1:" + port)
          .hasMessageContaining("after 3 attempt(s)").hasMessageContaining("connect")
          .satisfies(e -> assertThat(((RemotePolicyException) e).status()).isEqualTo(-1));
    }
  }

  @Test
  void aTimeoutIsRetriedAndNamed() {
    try (FakeServer server = new FakeServer((hit, path, b) ->
            new FakeServer.Reply(200, vllmBody("x", new int[] {3}, new float[] {-0.1f}, "stop"), 3000));
        OpenAiCompletionsPolicy policy = fast(server.url()).optRequestTimeout(Duration.ofMillis(200))
            .optMaxAttempts(2).build()) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)))
          .isInstanceOf(RemotePolicyException.class).hasMessageContaining("no answer within 200 ms")
          .hasMessageContaining("after 2 attempt(s)");
      assertThat((System.nanoTime() - start) / 1e9).isLessThan(2.5);
      assertThat(server.hitCount()).isEqualTo(2);
    }
  }

  @Test
  void aPromptTheServerRejectsFailsOnlyThatRequest() {
    try (FakeServer server = new FakeServer((hit, path, b) -> b.contains("LONG")
            ? new FakeServer.Reply(400, "{\"error\":{\"message\":\"This model's maximum context length is 8 tokens."
                + " However, you requested 99 tokens\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}", 0)
            : FakeServer.Reply.ok(vllmBody("x", new int[] {3}, new float[] {-0.1f}, "stop")));
        OpenAiCompletionsPolicy policy = fast(server.url()).build()) {
      List<PolicyRequest> batch = List.of(PolicyRequest.of("a"), PolicyRequest.of("LONG"), PolicyRequest.of("b"));
      assertThatThrownBy(() -> policy.generate(batch, SamplingConfig.training(2)))
          .isInstanceOf(PolicyRequestException.class)
          .satisfies(e -> assertThat(((PolicyRequestException) e).rejected()).containsOnlyKeys(1))
          .hasMessageContaining("maximum context length").hasMessageContaining(server.url());
      assertThat(server.hitCount()).isEqualTo(3); // no retry of the 400
    }
  }

  @Test
  void aBodyWithoutChoicesIsAnErrorNotAnEmptyGeneration() {
    try (FakeServer server = new FakeServer((hit, path, b) -> FakeServer.Reply.ok("{\"object\":\"list\"}"));
        OpenAiCompletionsPolicy policy = fast(server.url()).build()) {
      assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(2)))
          .isInstanceOf(RemotePolicyException.class).hasMessageContaining("no 'choices'");
    }
  }

  @Test
  void severalEndpointsShareTheWorkAndRouteAroundADeadOne() throws Exception {
    String ok = vllmBody("x", new int[] {3}, new float[] {-0.1f}, "stop");
    int deadPort;
    try (ServerSocket s = new ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    try (FakeServer a = new FakeServer((hit, path, b) -> new FakeServer.Reply(200, ok, 50));
        FakeServer b = new FakeServer((hit, path, body) -> new FakeServer.Reply(200, ok, 50));
        OpenAiCompletionsPolicy policy = fast(a.url(), b.url(), "http://127.0.0.1:" + deadPort)
            .optMaxAttempts(4).build()) {
      List<PolicyRequest> batch = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        batch.add(PolicyRequest.of("p" + i));
      }
      assertThat(policy.generate(batch, SamplingConfig.training(2))).hasSize(12);
      assertThat(a.hitCount()).isPositive();
      assertThat(b.hitCount()).isPositive();
      assertThat(a.hitCount() + b.hitCount()).isEqualTo(12);
    }
  }

  @Test
  void theBuilderNamesWhatIsMissing() {
    assertThatThrownBy(() -> OpenAiCompletionsPolicy.builder().setModel("m").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("addEndpoint");
    assertThatThrownBy(() -> OpenAiCompletionsPolicy.builder().addEndpoint("http://127.0.0.1:1").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("setModel");
    assertThatThrownBy(() -> OpenAiCompletionsPolicy.builder().addEndpoint("ftp://x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ftp://x");
    assertThatThrownBy(() -> fast("http://127.0.0.1:1").optMaxInFlight(0).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxInFlight");
  }

  @Test
  void closingThePolicyFailsACallInProgressInsteadOfHangingIt() throws Exception {
    try (FakeServer slow = new FakeServer((hit, path, b) ->
        new FakeServer.Reply(200, vllmBody("x", new int[] {3}, new float[] {-0.1f}, "stop"), 5000))) {
      OpenAiCompletionsPolicy policy = fast(slow.url()).optMaxInFlight(1).build();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread caller = new Thread(() -> {
        try {
          policy.generate(List.of(PolicyRequest.of("a"), PolicyRequest.of("b"), PolicyRequest.of("c")),
              SamplingConfig.training(2));
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      caller.start();
      while (slow.hitCount() == 0) {
        Thread.sleep(5);
      }
      policy.close();
      caller.join(3000);
      assertThat(caller.isAlive()).isFalse();
      assertThat(failure.get()).isInstanceOf(IllegalStateException.class);
    }
  }
}
