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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Generation;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.openai.OpenAiCompletionsPolicy;
import org.magejvm.impl.openai.RemotePolicyException;

/** {@code mage serve --api-key}: 401 in the OpenAI error shape without the key, {@code /health} open, and the remote
 * policy sends the key. */
class ApiKeyTest {

  @TempDir Path dir;

  @Test
  void withAKeyOnlyHealthAnswersWithoutItAndTheRemotePolicySendsIt() throws Exception {
    Path tiny = dir.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action> Your move?", 7));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try (CompletionServer s = CompletionServer.builder()
        .setPolicy(Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu().withThinking(false)), true)
        .optPort(0).optApiKey("sk-local-test").start()) {
      HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + "/v1/completions"))
          .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"x\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(none.statusCode()).isEqualTo(401);
      JsonObject err = JsonParser.parseString(none.body()).getAsJsonObject().getAsJsonObject("error");
      assertThat(err.keySet()).containsExactlyInAnyOrder("message", "type", "param", "code");
      assertThat(err.get("code").getAsString()).isEqualTo("invalid_api_key");
      assertThat(err.get("type").getAsString()).isEqualTo("invalid_request_error");
      HttpResponse<String> models = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + "/v1/models"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(models.statusCode()).isEqualTo(401);
      HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + "/health"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);

      SamplingConfig sampling = SamplingConfig.builder().optMaxNewTokens(3).optSeed(5).build();
      List<PolicyRequest> batch = List.of(PolicyRequest.of("Your move?"));
      try (OpenAiCompletionsPolicy keyed = OpenAiCompletionsPolicy.builder().addEndpoint(s.baseUrl())
          .setModel(s.modelName()).optApiKey("sk-local-test").optMaxAttempts(1).build()) {
        List<Generation> out = keyed.generate(batch, sampling);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).responseTokenIds()).isNotEmpty();
      }
      try (OpenAiCompletionsPolicy wrong = OpenAiCompletionsPolicy.builder().addEndpoint(s.baseUrl())
          .setModel(s.modelName()).optApiKey("sk-other").optMaxAttempts(1).build()) {
        assertThatThrownBy(() -> wrong.generate(batch, sampling)).isInstanceOf(RemotePolicyException.class)
            .hasMessageContaining("401").hasMessageContaining("not this server's");
      }
    }
  }
}
