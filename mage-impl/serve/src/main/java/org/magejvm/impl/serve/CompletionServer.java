package org.magejvm.impl.serve;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.http.HttpLimits;
import org.magejvm.impl.http.JsonHttpServer;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.model.ProjectionAdapter;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Serves a {@link DjlLanguagePolicy} (a local checkpoint, optionally with a LoRA adapter attached) on an
 * OpenAI-compatible HTTP API, on the hardened HTTP layer {@link JsonHttpServer} (Jetty 12):
 *
 * <ul>
 *   <li>{@code POST /v1/completions}: {@code prompt} as a string (tokenized as it is, no chat template) or a list
 *       of token ids; {@code max_tokens} (default 16), {@code min_tokens}, {@code temperature}, {@code top_p},
 *       {@code top_k}, {@code seed}, {@code logprobs}, {@code return_tokens_as_token_ids}. The choice carries
 *       {@code text}, {@code finish_reason} ({@code stop} or {@code length}), {@code token_ids} and {@code
 *       prompt_token_ids}, and, when {@code logprobs} is given, vLLM's {@code logprobs} object ({@code tokens} as
 *       {@code "token_id:N"} strings or as decoded text, {@code token_logprobs}, and for {@code logprobs: K > 0}
 *       {@code top_logprobs}: per token a map of the K most likely tokens to their log-probabilities, plus the
 *       sampled token when it is not among them, as OpenAI's legacy completions).
 *   <li>{@code POST /v1/chat/completions}: {@code messages} rendered with the checkpoint's chat template (with
 *       the generation prompt and the policy's {@code enable_thinking}, which {@code chat_template_kwargs} may
 *       override), the same sampling fields, and {@code logprobs: true} for {@code logprobs.content} (each token's
 *       {@code token}, {@code logprob}, {@code bytes} and {@code top_logprobs}, the {@code top_logprobs: K} most
 *       likely tokens, most likely first).
 *   <li>Alternatives ({@code top_logprobs}) come from the distribution the sampled tokens' log-probabilities are
 *       taken from: log-softmax of the logits divided by the temperature, before top-k, top-p and {@code
 *       min_tokens} masking (temperature 1 when greedy); K is at most {@link #MAX_LOGPROBS}.
 *   <li>Both generation endpoints, as vLLM's OpenAI server: {@code n} (up to {@link #MAX_CHOICES}) choices, choice
 *       {@code i} sampled with the seed {@link Qwen3Generator#rowSeed rowSeed(seed, i)} (so choice 0 is the answer
 *       of {@code n: 1}, and the choices are the rows of an in-process call seeded {@code seed}); {@code best_of}
 *       only equal to {@code n}; {@code stop}, a string or up to {@link #MAX_STOP_STRINGS} strings: the text is cut
 *       before the earliest occurrence, {@code finish_reason} is {@code stop} and {@code stop_reason} the string,
 *       the row leaves its batch at once, and the tokens kept are those up to the one in which the cut falls (see
 *       {@link RowText}); {@code stream: true}: Server-Sent Events ({@code data: {json}} chunks of object {@code
 *       text_completion} or {@code chat.completion.chunk}, a chat choice's first chunk with {@code role}, each
 *       choice's last with its {@code finish_reason}, a usage chunk with {@code stream_options.include_usage},
 *       then {@code data: [DONE]}), sent as the tokens are generated. A streaming client that goes away has its
 *       rows dropped from their batch at the next token; the other rows of the batch go on.
 *   <li>{@code GET /v1/models} and {@code GET /health}.
 *   <li>With {@link Builder#optEnableLora runtime LoRA loading} on, vLLM's {@code POST /v1/load_lora_adapter}
 *       ({@code {"lora_name", "lora_path"}}: a PEFT adapter directory as the server sees it) and {@code POST
 *       /v1/unload_lora_adapter} ({@code {"lora_name"}}), with vLLM's status codes: 200 and a plain-text
 *       {@code Success: ...} line; 400 for a missing field, a name already loaded, or an adapter that cannot be
 *       read or does not fit the model (the message names the file); 404 for a path that does not exist or an
 *       unknown adapter. A request whose {@code model} names a loaded adapter generates with it. Loading and
 *       unloading run on the generation thread between two batches, so no batch sees a half-loaded adapter.
 *       Replace an adapter by unloading then loading it.
 * </ul>
 *
 * <p><b>Batching.</b> One generation thread owns the model (which is not thread-safe). It takes the first waiting
 * request, collects those arriving within the batch window (default 5 ms) up to the maximum batch whose sampling
 * settings match (seeds may differ: each row keeps its own, see {@link
 * org.magejvm.impl.llm.generate.TokenGenerator#generate(List, SamplingConfig, java.util.Set, long[])}), and
 * generates them in one call. A request with seed {@code s} gets the tokens a one-row in-process call with seed
 * {@code s} gets; without a seed, one is drawn from the server's own seeded stream.
 *
 * <p><b>Errors</b> are JSON {@code {"error": {"message", "type", "param", "code"}}}: 400 for malformed JSON, a
 * missing field or a wrong type or value (naming the field), and for a prompt beyond the context ({@code code:
 * context_length_exceeded}); 404 for an unknown path or model; 405 for a wrong method; 413 for a body over the
 * limit (default 1 MiB); 500 when generation fails, after which the server goes on serving; 503 while shutting
 * down. The HTTP layer's own errors (a malformed request line, chunk size or {@code Content-Length}, headers over
 * the limit, a body that stalls) are JSON in the same shape, with the status it chose (400, 408, 413, 431, ...) and
 * a {@code code} naming it. Binds 127.0.0.1 unless told otherwise. With {@link Builder#optApiKey an API key}, every
 * request but {@code GET /health} needs {@code Authorization: Bearer KEY} (401 {@code invalid_api_key} without).
 *
 * <p><b>Slow and idle clients</b> hold no thread: bodies are read without blocking and only complete requests
 * reach the handler threads; idle connections are closed after {@link HttpLimits#idleTimeout}, bodies must arrive
 * within {@link HttpLimits#requestTimeout}, and connections are bounded ({@link Builder#optHttpLimits}).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class CompletionServer implements AutoCloseable {

  /**
   * The smallest positive temperature accepted (0 is greedy decoding): below it sampling is greedy in all but name,
   * and at 1e-300 the temperature rounds to 0 in float32 and the logits divided by it are infinite, which made the
   * log-probabilities NaN. The server answers 400 naming {@code temperature}, and {@code mage generate} and {@code
   * mage play} refuse the same values of {@code --temperature}.
   */
  public static final double MIN_TEMPERATURE = 0.01;

  /** The most log-probabilities per token a request may ask for ({@code logprobs}, {@code top_logprobs}), as OpenAI. */
  public static final int MAX_LOGPROBS = 20;

  /** The most choices one request may ask for ({@code n}); a larger {@code n} is a 400 naming {@code n}. */
  public static final int MAX_CHOICES = 16;

  /** The most stop strings one request may give ({@code stop}), as OpenAI. */
  public static final int MAX_STOP_STRINGS = 4;

  private final DjlLanguagePolicy policy;
  private final boolean ownsPolicy;
  private final String modelName;
  /** The queue and the generation thread, with the counters of {@link #stats}. */
  private final BatchScheduler scheduler;
  /** The runtime LoRA endpoints and the adapters they loaded. */
  private final LoraEndpoints adapters;
  private final JsonHttpServer http;
  private final CountDownLatch closed = new CountDownLatch(1);

  private CompletionServer(Builder b) {
    this.policy = b.policy;
    this.ownsPolicy = b.ownsPolicy;
    this.modelName = b.modelName == null ? policy.name() : b.modelName;
    if (b.enableLora && !(policy.generator() instanceof Qwen3Generator)) {
      throw new IllegalStateException("runtime LoRA loading needs a policy generating with a Qwen3Generator; '"
          + policy.name() + "' generates with " + policy.generator().getClass().getName());
    }
    Qwen3Model loraModel = b.enableLora ? ((Qwen3Generator) policy.generator()).model() : null;
    ProjectionAdapter baseAdapter = loraModel == null ? null : loraModel.adapter().orElse(null);
    int contextLength;
    int vocabSize;
    if (policy.generator() instanceof Qwen3Generator) {
      Qwen3Generator q = (Qwen3Generator) policy.generator();
      contextLength = q.model().config().maxPositionEmbeddings();
      vocabSize = q.model().config().vocabSize();
    } else {
      contextLength = Integer.MAX_VALUE;
      vocabSize = policy.tokenizer().vocabSize();
    }
    this.scheduler = new BatchScheduler(policy, modelName, b.maxBatch, b.batchWindow.toNanos(), contextLength,
        loraModel, baseAdapter);
    this.adapters = new LoraEndpoints(b.enableLora, b.maxAdapters, modelName, loraModel, baseAdapter, scheduler);
    Routes routes = new Routes(modelName, contextLength,
        new RequestParser(policy, modelName, contextLength, vocabSize, adapters, b.seed), scheduler, adapters);
    scheduler.start();
    try {
      this.http = JsonHttpServer.builder().optHost(b.host).optPort(b.port).optName("mage-serve-http")
          .optLimits(b.limits.withMaxBodyBytes(b.maxBodyBytes)).optWorkerThreads(b.handlerThreads)
          .optApiKey(b.apiKey, Set.of("/health"))
          .setErrorFormat(OpenAiJson::errorJson).setHandler(routes::handle).start();
    } catch (RuntimeException e) {
      scheduler.abort();
      throw e;
    }
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the port the server listens on (the one chosen when built with port 0) */
  public int port() {
    return http.port();
  }

  /** @return the base URL, such as {@code http://127.0.0.1:8000} */
  public String baseUrl() {
    InetSocketAddress a = http.address();
    String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  /** @return the model name served (what {@code /v1/models} lists and requests may name) */
  public String modelName() {
    return modelName;
  }

  /**
   * What the server has done so far.
   *
   * @param batches generation calls made
   * @param rows rows generated in them (a request for {@code n} choices is {@code n} rows)
   * @param largestBatch the most rows in one call
   * @param generationFailures generation calls that failed (their requests got 500)
   * @param generationNanos time spent in generation calls (tokenizing, generating and decoding), in nanoseconds
   * @param cancelledRows rows dropped because their request was abandoned (a streaming client went away, or another
   *     row of the same request failed): ended early in their batch, or never generated
   */
  public record Stats(long batches, long rows, int largestBatch, long generationFailures, long generationNanos,
      long cancelledRows) {
    /** @return the mean requests per generation call, 0 before the first */
    public double meanBatch() {
      return batches == 0 ? 0 : (double) rows / batches;
    }
  }

  /** @return counters of the generation calls so far */
  public Stats stats() {
    return scheduler.stats();
  }

  /**
   * Stops listening, closes open connections, lets the batch being generated finish (its answers go nowhere),
   * answers queued requests with 503, and closes the policy when the server owns it. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (!scheduler.isRunning()) {
      return;
    }
    scheduler.stopAccepting();
    http.close();
    scheduler.shutdown();
    if (!scheduler.isAlive()) {
      adapters.closeAll();
    }
    if (ownsPolicy && !scheduler.isAlive()) {
      policy.close();
    }
    closed.countDown();
  }

  /**
   * Blocks until {@link #close} has finished (for a command that serves until it is stopped).
   *
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public void awaitClose() throws InterruptedException {
    closed.await();
  }

  /** Builds a {@link CompletionServer}; the policy is required. */
  public static final class Builder {
    private DjlLanguagePolicy policy;
    private boolean ownsPolicy;
    private String modelName;
    private String host = "127.0.0.1";
    private int port = 8000;
    private int maxBatch = 32;
    private Duration batchWindow = Duration.ofMillis(5);
    private long maxBodyBytes = 1 << 20;
    private HttpLimits limits = HttpLimits.defaults();
    private String apiKey;
    private int handlerThreads = 64;
    private long seed;
    private boolean enableLora;
    private int maxAdapters = 8;

    private Builder() {}

    /**
     * @param on whether vLLM's runtime adapter endpoints {@code POST /v1/load_lora_adapter} and {@code POST
     *     /v1/unload_lora_adapter} are served (default off: they answer 404, as vLLM without
     *     {@code VLLM_ALLOW_RUNTIME_LORA_UPDATING}); needs a policy generating with a {@link Qwen3Generator}
     * @return this builder
     */
    public Builder optEnableLora(boolean on) {
      this.enableLora = on;
      return this;
    }

    /**
     * @param n the most adapters loaded at once (default 8); a load beyond gets 400
     * @return this builder
     */
    public Builder optMaxAdapters(int n) {
      this.maxAdapters = n;
      return this;
    }

    /**
     * @param p the policy to serve (its tokenizer, chat template, generator and stop tokens)
     * @param own whether {@link CompletionServer#close} closes it
     * @return this builder
     */
    public Builder setPolicy(DjlLanguagePolicy p, boolean own) {
      this.policy = Objects.requireNonNull(p, "policy");
      this.ownsPolicy = own;
      return this;
    }

    /**
     * @param name the model name served (default: the policy's name, the checkpoint directory's name)
     * @return this builder
     */
    public Builder optModelName(String name) {
      this.modelName = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * @param h the address to bind (default 127.0.0.1; 0.0.0.0 for every interface, without authentication)
     * @return this builder
     */
    public Builder optHost(String h) {
      this.host = Objects.requireNonNull(h, "host");
      return this;
    }

    /**
     * @param p the port (default 8000; 0 picks a free one, see {@link CompletionServer#port})
     * @return this builder
     */
    public Builder optPort(int p) {
      this.port = p;
      return this;
    }

    /**
     * @param n the most requests in one generation call (default 32)
     * @return this builder
     */
    public Builder optMaxBatch(int n) {
      this.maxBatch = n;
      return this;
    }

    /**
     * @param d how long the generation thread waits for more requests after the first (default 5 ms)
     * @return this builder
     */
    public Builder optBatchWindow(Duration d) {
      this.batchWindow = Objects.requireNonNull(d, "batchWindow");
      return this;
    }

    /**
     * @param n the largest request body in bytes (default 1 MiB); larger ones get 413
     * @return this builder
     */
    public Builder optMaxBodyBytes(long n) {
      this.maxBodyBytes = n;
      return this;
    }

    /**
     * @param key the API key every request but {@code GET /health} must send as {@code Authorization: Bearer KEY}
     *     (401 without it, as vLLM's {@code --api-key}); null for none (the default)
     * @return this builder
     * @throws IllegalArgumentException when the key is blank or begins or ends with white space
     */
    public Builder optApiKey(String key) {
      this.apiKey = JsonHttpServer.checkApiKey(key);
      return this;
    }

    /**
     * @param l the HTTP layer's timeouts and limits (default {@link HttpLimits#defaults()}: idle timeout 30 s,
     *     request timeout 60 s, 8 KiB of headers, 1024 connections); the body limit is {@link #optMaxBodyBytes}'s
     * @return this builder
     */
    public Builder optHttpLimits(HttpLimits l) {
      this.limits = Objects.requireNonNull(l, "limits");
      return this;
    }

    /**
     * @param n handler threads, the most complete requests parsed or waiting for generation at once (default 64);
     *     connections and requests still arriving hold none
     * @return this builder
     */
    public Builder optHandlerThreads(int n) {
      this.handlerThreads = n;
      return this;
    }

    /**
     * @param s the seed of the stream that gives seeds to requests without one (default 0)
     * @return this builder
     */
    public Builder optSeed(long s) {
      this.seed = s;
      return this;
    }

    /**
     * Binds and starts the server.
     *
     * @return the running server
     * @throws IllegalStateException when the policy is missing or a limit is not positive
     * @throws java.io.UncheckedIOException when the address cannot be bound
     */
    public CompletionServer start() {
      if (policy == null) {
        throw new IllegalStateException("setPolicy(...) is required");
      }
      if (port < 0 || port > 65535) {
        throw new IllegalStateException("port must be in [0, 65535], got " + port);
      }
      if (maxBatch < 1 || handlerThreads < 1 || maxBodyBytes < 1 || maxBodyBytes > Integer.MAX_VALUE - 8
          || maxAdapters < 1) {
        throw new IllegalStateException("maxBatch, handlerThreads, maxBodyBytes and maxAdapters must be >= 1, got "
            + maxBatch + ", " + handlerThreads + ", " + maxBodyBytes + ", " + maxAdapters);
      }
      if (batchWindow.isNegative()) {
        throw new IllegalStateException("batchWindow must be >= 0, got " + batchWindow);
      }
      return new CompletionServer(this);
    }
  }
}
