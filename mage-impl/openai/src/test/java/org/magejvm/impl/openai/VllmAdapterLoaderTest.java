package org.magejvm.impl.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/** The adapter push speaks vLLM's runtime LoRA API. */
class VllmAdapterLoaderTest {

  @Test
  void replaceUnloadsThenLoadsOnEveryEndpoint() {
    try (FakeServer a = new FakeServer((hit, path, b) -> path.contains("unload")
            ? new FakeServer.Reply(404, "{\"error\":{\"message\":\"not loaded\"}}", 0)
            : FakeServer.Reply.ok("{}"));
        FakeServer b = new FakeServer((hit, path, body) -> FakeServer.Reply.ok("{}"))) {
      VllmAdapterLoader loader = VllmAdapterLoader.builder().addEndpoint(a.url()).addEndpoint(b.url()).build();
      loader.replace("policy", "/runs/adapter-3");
      for (FakeServer s : new FakeServer[] {a, b}) {
        assertThat(s.hits).extracting(FakeServer.Hit::path)
            .containsExactly("/v1/unload_lora_adapter", "/v1/load_lora_adapter");
        var load = JsonParser.parseString(s.hits.get(1).body()).getAsJsonObject();
        assertThat(load.get("lora_name").getAsString()).isEqualTo("policy");
        assertThat(load.get("lora_path").getAsString()).isEqualTo("/runs/adapter-3");
      }
    }
  }

  @Test
  void aFailedLoadNamesTheEndpointAndTheLikelyCause() {
    try (FakeServer s = new FakeServer((hit, path, b) ->
        new FakeServer.Reply(404, "{\"detail\":\"Not Found\"}", 0))) {
      VllmAdapterLoader loader = VllmAdapterLoader.builder().addEndpoint(s.url()).build();
      assertThatThrownBy(() -> loader.load("policy", "/x"))
          .isInstanceOf(RemotePolicyException.class).hasMessageContaining(s.url() + "/v1/load_lora_adapter")
          .hasMessageContaining("HTTP 404").hasMessageContaining("VLLM_ALLOW_RUNTIME_LORA_UPDATING");
    }
  }
}
