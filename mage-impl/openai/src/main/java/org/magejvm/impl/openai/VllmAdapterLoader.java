package org.magejvm.impl.openai;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * Pushes a LoRA adapter in PEFT layout to vLLM servers through vLLM's runtime adapter API: {@code POST
 * /v1/load_lora_adapter} with {@code {"lora_name", "lora_path"}} and {@code POST /v1/unload_lora_adapter} with {@code
 * {"lora_name"}}. The servers must run with {@code --enable-lora} and the environment variable {@code
 * VLLM_ALLOW_RUNTIME_LORA_UPDATING=True}; the path is read by the server, so it must be visible there (a shared
 * file system, or the same machine). After {@link #replace}, requests naming the adapter as their {@code model}
 * generate with the new weights (docs/serving.md has the recipe).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class VllmAdapterLoader {

  private final List<String> endpoints;
  private final String apiKey;
  private final Duration timeout;
  private final HttpClient http;

  private VllmAdapterLoader(Builder b) {
    this.endpoints = List.copyOf(b.endpoints);
    this.apiKey = b.apiKey;
    this.timeout = b.timeout;
    this.http = HttpClient.newBuilder().connectTimeout(b.timeout).version(HttpClient.Version.HTTP_1_1).build();
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Loads an adapter on every endpoint.
   *
   * @param name the adapter's name (what requests then send as {@code model})
   * @param path the PEFT adapter directory, as the servers see it
   * @throws RemotePolicyException naming the endpoint, the status and the server's message on any failure
   */
  public void load(String name, String path) {
    JsonObject body = new JsonObject();
    body.addProperty("lora_name", Objects.requireNonNull(name, "name"));
    body.addProperty("lora_path", Objects.requireNonNull(path, "path"));
    for (String e : endpoints) {
      post(e, "/v1/load_lora_adapter", body.toString(), false);
    }
  }

  /**
   * Unloads an adapter from every endpoint.
   *
   * @param name the adapter's name
   * @param ignoreMissing whether a 4xx answer (the adapter is not loaded there) is accepted
   * @throws RemotePolicyException naming the endpoint, the status and the server's message on any failure
   */
  public void unload(String name, boolean ignoreMissing) {
    JsonObject body = new JsonObject();
    body.addProperty("lora_name", Objects.requireNonNull(name, "name"));
    for (String e : endpoints) {
      post(e, "/v1/unload_lora_adapter", body.toString(), ignoreMissing);
    }
  }

  /**
   * Replaces an adapter of that name by the one at {@code path} on every endpoint: unload (accepting that it was
   * not loaded), then load. Between the two, requests naming it fail with 404 and the remote policy does not retry
   * them, so push between rollouts, as a trainer does after its update.
   *
   * @param name the adapter's name
   * @param path the new PEFT adapter directory, as the servers see it
   */
  public void replace(String name, String path) {
    unload(name, true);
    load(name, path);
  }

  private void post(String endpoint, String path, String body, boolean accept4xx) {
    HttpRequest.Builder rb = HttpRequest.newBuilder(java.net.URI.create(endpoint + path)).timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (apiKey != null) {
      rb.header("Authorization", "Bearer " + apiKey);
    }
    HttpResponse<String> r;
    try {
      r = http.send(rb.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new RemotePolicyException(endpoint, -1, endpoint + path + ": " + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while calling " + endpoint + path, e);
    }
    int status = r.statusCode();
    if (status / 100 == 2 || accept4xx && status / 100 == 4) {
      return;
    }
    throw new RemotePolicyException(endpoint, status, endpoint + path + " answered HTTP " + status + ": "
        + ErrorBodies.parse(r.body()).message()
        + (status == 404 ? " (is the server vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora?)"
            : ""), null);
  }

  /** Builds a {@link VllmAdapterLoader}: at least one endpoint is required. */
  public static final class Builder {
    private final List<String> endpoints = new ArrayList<>();
    private String apiKey;
    private Duration timeout = Duration.ofMinutes(2);

    private Builder() {}

    /**
     * @param baseUrl a vLLM server's base URL, such as {@code http://127.0.0.1:8000}
     * @return this builder
     */
    public Builder addEndpoint(String baseUrl) {
      endpoints.add(Endpoints.normalize(Objects.requireNonNull(baseUrl, "baseUrl")));
      return this;
    }

    /**
     * @param key sent as {@code Authorization: Bearer KEY}
     * @return this builder
     */
    public Builder optApiKey(String key) {
      this.apiKey = Objects.requireNonNull(key, "apiKey");
      return this;
    }

    /**
     * @param d connect and request timeout of each call (default 2 min: loading reads the adapter from disk)
     * @return this builder
     */
    public Builder optTimeout(Duration d) {
      this.timeout = Objects.requireNonNull(d, "timeout");
      return this;
    }

    /** @return the loader */
    public VllmAdapterLoader build() {
      if (endpoints.isEmpty()) {
        throw new IllegalStateException("addEndpoint(...) is required");
      }
      return new VllmAdapterLoader(this);
    }
  }
}
