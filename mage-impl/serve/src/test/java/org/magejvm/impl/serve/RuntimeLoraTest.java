package org.magejvm.impl.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Generation;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.openai.OpenAiCompletionsPolicy;
import org.magejvm.impl.openai.RemotePolicyException;
import org.magejvm.impl.openai.VllmAdapterLoader;

/** vLLM's runtime LoRA endpoints on {@link CompletionServer}: load, generate with, unload, replace, and errors. */
class RuntimeLoraTest {

  @TempDir static Path shared;
  static Path tiny;
  static Path adapterA;
  static Path adapterB;
  static DjlLanguagePolicy base;
  static CompletionServer server;
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final Qwen3Checkpoint.Options OPTIONS = Qwen3Checkpoint.Options.cpu().withThinking(false);

  @BeforeAll
  static void start() {
    tiny = shared.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action> Your move?", 7));
    base = Qwen3Checkpoint.loadPolicy(tiny, OPTIONS);
    adapterA = writeAdapter(shared.resolve("a"), 0.5f);
    adapterB = writeAdapter(shared.resolve("b"), -0.8f);
    server = CompletionServer.builder().setPolicy(Qwen3Checkpoint.loadPolicy(tiny, OPTIONS), true).optPort(0)
        .optBatchWindow(Duration.ofMillis(30)).optEnableLora(true).optMaxAdapters(2).start();
  }

  @AfterAll
  static void stop() {
    server.close();
    base.close();
  }

  /** A rank-2 adapter on every projection with non-zero, deterministic B (a fresh adapter's B is zero). */
  static Path writeAdapter(Path dir, float scale) {
    Qwen3Model model = Qwen3Checkpoint.loadModel(tiny, ai.djl.Device.cpu(), ai.djl.ndarray.types.DataType.FLOAT32);
    try (model;
        LoraAdapter a = LoraAdapter.create(model, LoraConfig.builder().setRank(2).optAlpha(4).optAllLinear().build(),
            3)) {
      for (var e : a.trainableParameters().entrySet()) {
        if (e.getKey().contains("lora_B")) {
          NDArray b = e.getValue();
          b.addi(b.getManager().linspace(-scale, scale, (int) b.size()).reshape(b.getShape()));
        }
      }
      PeftAdapters.save(a, dir);
    }
    return dir;
  }

  static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static String load(String name, Path dir) {
    JsonObject o = new JsonObject();
    o.addProperty("lora_name", name);
    o.addProperty("lora_path", dir.toString());
    return o.toString();
  }

  static JsonObject error(HttpResponse<String> r) {
    return JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonObject("error");
  }

  static OpenAiCompletionsPolicy remote(String model) {
    return OpenAiCompletionsPolicy.builder().addEndpoint(server.baseUrl()).setModel(model)
        .optPromptFormatter(base::renderPrompt).optTokenizer(base.tokenizer()::encode)
        .optBackoff(Duration.ofMillis(20), Duration.ofMillis(100)).optMaxAttempts(1)
        .optRequestTimeout(Duration.ofSeconds(60)).build();
  }

  static final List<PolicyRequest> BATCH = List.of(PolicyRequest.of("Your move?"), PolicyRequest.of("Play (2, 2)"),
      PolicyRequest.of("x"));

  /** @return the largest log-prob difference; asserts identical tokens */
  static float assertSame(List<Generation> remote, List<Generation> local) {
    assertThat(remote).hasSameSizeAs(local);
    float worst = 0;
    for (int i = 0; i < remote.size(); i++) {
      assertThat(remote.get(i).responseTokenIds()).as("row %d", i).containsExactly(local.get(i).responseTokenIds());
      for (int j = 0; j < remote.get(i).logProbs().length; j++) {
        worst = Math.max(worst, Math.abs(remote.get(i).logProbs()[j] - local.get(i).logProbs()[j]));
      }
    }
    assertThat(worst).isLessThanOrEqualTo(1e-4f);
    return worst;
  }

  static boolean differ(List<Generation> x, List<Generation> y) {
    for (int i = 0; i < x.size(); i++) {
      if (!java.util.Arrays.equals(x.get(i).responseTokenIds(), y.get(i).responseTokenIds())
          || !java.util.Arrays.equals(x.get(i).logProbs(), y.get(i).logProbs())) {
        return true;
      }
    }
    return false;
  }

  @Test
  void aLoadedAdapterGeneratesAsTheSameAdapterInProcessAndCanBeReplaced() throws Exception {
    SamplingConfig s = SamplingConfig.builder().optMaxNewTokens(8).optSeed(17).build();
    HttpResponse<String> r = post("/v1/load_lora_adapter", load("pol", adapterA));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("Success: LoRA adapter 'pol' added successfully.");
    HttpResponse<String> models = HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/models"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(models.body()).contains("\"id\":\"pol\"").contains("\"parent\":\"" + server.modelName() + "\"");
    float worst;
    try (DjlLanguagePolicy withA = Qwen3Checkpoint.loadPolicy(tiny, OPTIONS, adapterA);
        DjlLanguagePolicy withB = Qwen3Checkpoint.loadPolicy(tiny, OPTIONS, adapterB);
        OpenAiCompletionsPolicy pol = remote("pol");
        OpenAiCompletionsPolicy plain = remote(server.modelName())) {
      List<Generation> localA = withA.generate(BATCH, s);
      List<Generation> remoteBase = plain.generate(BATCH, s);
      assertSame(remoteBase, base.generate(BATCH, s));
      assertThat(differ(localA, remoteBase)).as("the adapter changes generation").isTrue();
      worst = assertSame(pol.generate(BATCH, s), localA);
      // the base model is still served as it was, the adapter only for requests naming it
      assertSame(plain.generate(BATCH, s), base.generate(BATCH, s));

      // replace under the same name, as a trainer pushes each update: unload, then load
      VllmAdapterLoader.builder().addEndpoint(server.baseUrl()).build().replace("pol", adapterB.toString());
      worst = Math.max(worst, assertSame(pol.generate(BATCH, s), withB.generate(BATCH, s)));
    }
    HttpResponse<String> u = post("/v1/unload_lora_adapter", "{\"lora_name\": \"pol\"}");
    assertThat(u.statusCode()).isEqualTo(200);
    assertThat(u.body()).isEqualTo("Success: LoRA adapter 'pol' removed successfully.");
    try (OpenAiCompletionsPolicy pol = remote("pol")) {
      assertThatThrownBy(() -> pol.generate(BATCH, s)).isInstanceOf(RemotePolicyException.class)
          .hasMessageContaining("404").hasMessageContaining("'pol' does not exist");
    }
    System.out.printf(Locale.ROOT, "runtime adapter vs in-process adapter, largest log-prob difference: %.3g%n",
        worst);
  }

  @Test
  void badRequestsGetVllmsStatusCodesAndTheServerGoesOn() throws Exception {
    assertThat(post("/v1/load_lora_adapter", "{not json").statusCode()).isEqualTo(400);
    HttpResponse<String> noPath = post("/v1/load_lora_adapter", "{\"lora_name\": \"x\"}");
    assertThat(noPath.statusCode()).isEqualTo(400);
    assertThat(error(noPath).get("message").getAsString()).contains("'lora_name' and 'lora_path'");
    assertThat(post("/v1/load_lora_adapter", "{\"lora_name\": 3, \"lora_path\": \"/x\"}").statusCode())
        .isEqualTo(400);
    assertThat(post("/v1/load_lora_adapter", load(server.modelName(), adapterA)).statusCode()).isEqualTo(400);

    Path missing = shared.resolve("no-such-adapter");
    HttpResponse<String> nf = post("/v1/load_lora_adapter", load("m", missing));
    assertThat(nf.statusCode()).isEqualTo(404);
    assertThat(error(nf).get("message").getAsString()).contains(missing.toString());

    Path broken = Files.createDirectories(shared.resolve("broken"));
    Files.writeString(broken.resolve(PeftAdapters.CONFIG_FILE), "{\"r\": \"eight\"");
    HttpResponse<String> bad = post("/v1/load_lora_adapter", load("m", broken));
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
    assertThat(error(bad).get("message").getAsString()).contains(PeftAdapters.CONFIG_FILE);

    Path noWeights = Files.createDirectories(shared.resolve("no-weights"));
    Files.copy(adapterA.resolve(PeftAdapters.CONFIG_FILE), noWeights.resolve(PeftAdapters.CONFIG_FILE));
    HttpResponse<String> nw = post("/v1/load_lora_adapter", load("m", noWeights));
    assertThat(nw.statusCode()).isEqualTo(400);
    assertThat(error(nw).get("message").getAsString()).contains(PeftAdapters.WEIGHTS_FILE);

    Path truncated = Files.createDirectories(shared.resolve("truncated"));
    Files.copy(adapterA.resolve(PeftAdapters.CONFIG_FILE), truncated.resolve(PeftAdapters.CONFIG_FILE));
    byte[] w = Files.readAllBytes(adapterA.resolve(PeftAdapters.WEIGHTS_FILE));
    Files.write(truncated.resolve(PeftAdapters.WEIGHTS_FILE), java.util.Arrays.copyOf(w, w.length / 2));
    HttpResponse<String> tr = post("/v1/load_lora_adapter", load("m", truncated));
    assertThat(tr.statusCode()).as(tr.body()).isEqualTo(400);
    assertThat(error(tr).get("message").getAsString()).contains(PeftAdapters.WEIGHTS_FILE);

    assertThat(post("/v1/load_lora_adapter", load("twice", adapterA)).statusCode()).isEqualTo(200);
    HttpResponse<String> again = post("/v1/load_lora_adapter", load("twice", adapterB));
    assertThat(again.statusCode()).isEqualTo(400);
    assertThat(error(again).get("message").getAsString()).contains("has already been loaded");
    assertThat(post("/v1/load_lora_adapter", load("second", adapterB)).statusCode()).isEqualTo(200);
    HttpResponse<String> full = post("/v1/load_lora_adapter", load("third", adapterB));
    assertThat(full.statusCode()).isEqualTo(400);
    assertThat(error(full).get("message").getAsString()).contains("at most 2 adapters");

    HttpResponse<String> unknown = post("/v1/unload_lora_adapter", "{\"lora_name\": \"nobody\"}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(error(unknown).get("message").getAsString()).contains("'nobody' cannot be found");
    assertThat(post("/v1/unload_lora_adapter", "{}").statusCode()).isEqualTo(400);
    assertThat(post("/v1/unload_lora_adapter", "{\"lora_name\": \"twice\"}").statusCode()).isEqualTo(200);
    assertThat(post("/v1/unload_lora_adapter", "{\"lora_name\": \"second\"}").statusCode()).isEqualTo(200);
    assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/load_lora_adapter")).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);

    // still serving the base model
    try (OpenAiCompletionsPolicy plain = remote(server.modelName())) {
      assertThat(plain.generate(BATCH, SamplingConfig.builder().optMaxNewTokens(4).optSeed(1).build())).hasSize(3);
    }
  }

  @Test
  void withoutEnableLoraTheEndpointsAreUnknown() throws Exception {
    try (CompletionServer off = CompletionServer.builder().setPolicy(base, false).optPort(0).start()) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(off.baseUrl() + "/v1/load_lora_adapter"))
          .POST(HttpRequest.BodyPublishers.ofString(load("x", adapterA))).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(error(r).get("message").getAsString()).contains("--enable-lora");
    }
  }
}
