package org.magejvm.impl.openai;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.util.SplitMix64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LanguagePolicy} that generates on OpenAI-compatible inference servers: each request of a batch becomes one
 * {@code POST {base}/v1/completions}, sent in parallel to one or more endpoints (the least loaded first, ties
 * round-robin), with at most {@code maxInFlight} requests in flight over all calls (a pool of that many request
 * threads; further requests wait in its queue).
 *
 * <p><b>Prompts.</b> The request's prompt goes through the prompt formatter (identity by default; give the chat
 * template of the served checkpoint to match {@code DjlLanguagePolicy}, which sends every prompt as one user message)
 * and is sent as text, or as token ids when a tokenizer function is given (then the server does not tokenize, and the
 * generation's prompt ids are exactly what was sent).
 *
 * <p><b>Sampling</b> maps onto the request: {@code temperature}, {@code top_p}, {@code top_k} (only when positive),
 * {@code max_tokens}, {@code min_tokens} and {@code seed}. With a seed {@code S}, request {@code i} of the batch is
 * sent with seed {@code S + i * }{@value #SEED_STRIDE_HEX} (mod 2<sup>64</sup>): {@code mage serve} then reproduces
 * the in-process policy's batch row by row, and other servers see distinct per-request seeds. The policy asks for
 * {@code logprobs: 1}, {@code return_tokens_as_token_ids: true} and {@code return_token_ids: true} and reads the
 * sampled token ids from {@code choices[0].token_ids} (mage serve, vLLM 0.10.2 and later) or from the {@code
 * "token_id:N"} strings of {@code logprobs.tokens} (vLLM), their log-probabilities from {@code
 * logprobs.token_logprobs}, and {@code finish_reason} {@code stop} or {@code length} (docs/serving.md has the field
 * table per server).
 *
 * <p><b>Errors.</b> Connection errors, timeouts and 5xx answers are retried with exponential backoff (each attempt
 * picks an endpoint afresh, so a fleet routes around a dead server). A 400 that rejects the prompt (context length)
 * or a 413 makes that request rejected: once the whole batch is answered the policy throws a {@link
 * PolicyRequestException} naming every rejected request, so the rollout engine fails only those meta-episodes. Any
 * other 4xx is not retried and fails the call with a {@link RemotePolicyException} naming the endpoint, the status
 * and the server's message. A failed call returns nothing: no generation of the batch is kept.
 *
 * <p>Thread-safe; {@link #close} stops the request threads.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class OpenAiCompletionsPolicy implements LanguagePolicy {

  private static final Logger LOG = LoggerFactory.getLogger(OpenAiCompletionsPolicy.class);

  /**
   * The step between the seeds of consecutive requests of one batch: SplitMix64's golden-ratio increment, as between
   * the rows of an in-process call ({@code Qwen3Generator.rowSeed}).
   */
  public static final long SEED_STRIDE = SplitMix64.GOLDEN_GAMMA;
  /** {@link #SEED_STRIDE} as text, for the documentation. */
  public static final String SEED_STRIDE_HEX = "0x9E3779B97F4A7C15";
  /** The prefix vLLM puts before a token id when {@code return_tokens_as_token_ids} is set. */
  public static final String TOKEN_ID_PREFIX = "token_id:";

  private static final Gson GSON = new Gson();

  private final String name;
  private final String model;
  private final Endpoints endpoints;
  private final UnaryOperator<String> formatter;
  private final Function<String, int[]> tokenizer;
  private final String apiKey;
  private final Duration requestTimeout;
  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final boolean requireTokenIds;
  private final Duration cooldown;
  private final int maxInFlight;
  private final HttpClient http;
  private final ExecutorService pool;
  private volatile boolean closed;

  private OpenAiCompletionsPolicy(Builder b) {
    this.name = b.name == null ? "remote:" + b.model : b.name;
    this.model = b.model;
    this.endpoints = new Endpoints(b.endpoints);
    this.formatter = b.formatter;
    this.tokenizer = b.tokenizer;
    this.apiKey = b.apiKey;
    this.requestTimeout = b.requestTimeout;
    this.maxAttempts = b.maxAttempts;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.requireTokenIds = b.requireTokenIds;
    this.cooldown = b.cooldown;
    this.maxInFlight = b.maxInFlight;
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, "mage-remote-policy-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    // maxInFlight request threads, each blocking in one request at a time: the bound on requests in flight over
    // all calls; requests beyond it wait in the pool's queue, without a thread. The HTTP client keeps its own
    // executor for its internal work, so blocked request threads can never starve it.
    this.pool = Executors.newFixedThreadPool(b.maxInFlight, factory);
    this.http = HttpClient.newBuilder().connectTimeout(b.connectTimeout).version(HttpClient.Version.HTTP_1_1)
        .build();
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return name;
  }

  /** @return the model name sent with every request */
  public String model() {
    return model;
  }

  /** @return the endpoints' base URLs, normalised (no trailing {@code /v1}) */
  public List<String> endpoints() {
    return endpoints.all().stream().map(e -> e.base).toList();
  }

  /** @return the most requests in flight at once, over all calls */
  public int maxInFlight() {
    return maxInFlight;
  }

  @Override
  public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
    Objects.requireNonNull(sampling, "sampling");
    if (closed) {
      throw new IllegalStateException("policy '" + name + "' is closed");
    }
    if (requests.isEmpty()) {
      return List.of();
    }
    int n = requests.size();
    Map<Integer, String> rejected = new TreeMap<>();
    List<Prepared> prepared = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String prompt = formatter.apply(requests.get(i).prompt());
      int[] ids = tokenizer == null ? null : tokenizer.apply(prompt);
      if (ids != null && ids.length == 0) {
        rejected.put(i, "prompt " + i + " (worker '" + requests.get(i).workerKey() + "') encodes to no tokens");
      }
      Long seed = sampling.seed().isPresent() ? SplitMix64.advance(sampling.seed().getAsLong(), i) : null;
      prepared.add(new Prepared(i, ids, body(prompt, ids, sampling, seed)));
    }
    if (!rejected.isEmpty()) {
      throw new PolicyRequestException(rejected);
    }
    List<Future<Generation>> futures = new ArrayList<>(n);
    for (Prepared p : prepared) {
      futures.add(pool.submit(() -> send(p)));
    }
    List<Generation> out = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        try {
          out.add(futures.get(i).get());
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof PromptRejected) {
            rejected.put(i, "prompt " + i + " (worker '" + requests.get(i).workerKey() + "', episode "
                + requests.get(i).episodeIndex() + ", turn " + requests.get(i).turnIndex() + "): "
                + cause.getMessage());
            out.add(null);
          } else if (cause instanceof RuntimeException) {
            throw (RuntimeException) cause;
          } else {
            throw new IllegalStateException("request " + i + " failed: " + cause, cause);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + n + " remote generations", e);
    } catch (CancellationException e) {
      throw new IllegalStateException("the remote generations were cancelled (policy closed?)", e);
    } finally {
      for (Future<Generation> f : futures) {
        f.cancel(true); // a no-op for the finished ones; stops the rest when one failed
      }
    }
    if (!rejected.isEmpty()) {
      throw new PolicyRequestException(rejected);
    }
    return out;
  }

  private String body(String prompt, int[] ids, SamplingConfig s, Long seed) {
    JsonObject o = new JsonObject();
    o.addProperty("model", model);
    if (ids != null) {
      JsonArray a = new JsonArray(ids.length);
      for (int id : ids) {
        a.add(id);
      }
      o.add("prompt", a);
    } else {
      o.addProperty("prompt", prompt);
    }
    o.addProperty("max_tokens", s.maxNewTokens());
    if (s.minNewTokens() > 0) {
      o.addProperty("min_tokens", s.minNewTokens());
    }
    o.addProperty("temperature", s.temperature());
    o.addProperty("top_p", s.topP());
    if (s.topK() > 0) {
      o.addProperty("top_k", s.topK());
    }
    if (seed != null) {
      o.addProperty("seed", seed);
    }
    o.addProperty("n", 1);
    o.addProperty("stream", false);
    o.addProperty("logprobs", 1);
    o.addProperty("return_tokens_as_token_ids", true);
    o.addProperty("return_token_ids", true);
    o.addProperty("skip_special_tokens", true);
    return GSON.toJson(o);
  }

  private Generation send(Prepared p) throws InterruptedException {
    String last = null;
    String lastEndpoint = null;
    int lastStatus = -1;
    Throwable lastCause = null;
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      if (closed) {
        throw new IllegalStateException("policy '" + name + "' was closed during the call");
      }
      Endpoints.Endpoint e = endpoints.pick();
      lastEndpoint = e.base;
      HttpRequest.Builder rb = HttpRequest.newBuilder(e.resolve("/v1/completions")).timeout(requestTimeout)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(p.body, StandardCharsets.UTF_8));
      if (apiKey != null) {
        rb.header("Authorization", "Bearer " + apiKey);
      }
      HttpResponse<String> response;
      e.inFlight.incrementAndGet();
      try {
        response = http.send(rb.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      } catch (HttpTimeoutException t) {
        last = "no answer within " + requestTimeout.toMillis() + " ms (" + t.getMessage() + ")";
        lastStatus = -1;
        lastCause = t;
        backoff(p, attempt, e.base, last);
        continue;
      } catch (IOException io) {
        last = (io instanceof ConnectException ? "cannot connect" : "connection failed") + " ("
            + io.getClass().getSimpleName() + (io.getMessage() == null ? "" : ": " + io.getMessage()) + ")";
        lastStatus = -1;
        lastCause = io;
        backoff(p, attempt, e.base, last);
        continue;
      } finally {
        e.inFlight.decrementAndGet();
      }
      int status = response.statusCode();
      if (status == 200) {
        return parse(e.base, response.body(), p);
      }
      ErrorBodies.Error err = ErrorBodies.parse(response.body());
      if (status >= 500) {
        last = "HTTP " + status + ": " + err.message();
        lastStatus = status;
        lastCause = null;
        backoff(p, attempt, e.base, last);
        continue;
      }
      if (err.promptRejected(status)) {
        throw new PromptRejected("endpoint " + e.base + " answered HTTP " + status + ": " + err.message());
      }
      throw new RemotePolicyException(e.base, status, "request " + p.index + ": endpoint " + e.base
          + "/v1/completions answered HTTP " + status + " (not retried): " + err.message()
          + (err.param() == null ? "" : " [param: " + err.param() + "]"), null);
    }
    throw new RemotePolicyException(lastEndpoint, lastStatus, "request " + p.index + ": no answer after "
        + maxAttempts + " attempt(s) over " + endpoints.all().size() + " endpoint(s); the last, to " + lastEndpoint
        + ": " + last, lastCause);
  }

  private void backoff(Prepared p, int attempt, String endpoint, String why) throws InterruptedException {
    for (Endpoints.Endpoint e : endpoints.all()) {
      if (e.base.equals(endpoint)) {
        Endpoints.markDown(e, cooldown.toNanos());
      }
    }
    if (attempt >= maxAttempts) {
      return;
    }
    long millis = Math.min(maxBackoff.toMillis(), initialBackoff.toMillis() << Math.min(attempt - 1, 20));
    LOG.warn("request {} to {}: {}; attempt {} of {}, retrying in {} ms", p.index, endpoint, why, attempt,
        maxAttempts, millis);
    Thread.sleep(millis);
  }

  private Generation parse(String endpoint, String body, Prepared p) {
    try {
      JsonObject root = JsonParser.parseString(body).getAsJsonObject();
      JsonArray choices = root.getAsJsonArray("choices");
      if (choices == null || choices.isEmpty()) {
        throw new IllegalArgumentException("no 'choices'");
      }
      JsonObject choice = choices.get(0).getAsJsonObject();
      JsonElement textElement = choice.get("text");
      if (textElement == null || !textElement.isJsonPrimitive()) {
        throw new IllegalArgumentException("choices[0] has no 'text' string");
      }
      String text = textElement.getAsString();
      FinishReason finish = finishReason(choice.get("finish_reason"));
      JsonObject logprobs = choice.has("logprobs") && choice.get("logprobs").isJsonObject()
          ? choice.getAsJsonObject("logprobs") : null;
      int[] ids = ints(choice.get("token_ids"), "choices[0].token_ids");
      if (ids == null && logprobs != null) {
        ids = tokenIdStrings(logprobs.get("tokens"));
      }
      if (ids == null) {
        if (requireTokenIds) {
          throw new IllegalArgumentException("no sampled token ids: neither 'choices[0].token_ids' nor "
              + "'logprobs.tokens' as \"token_id:N\" (vLLM gives them with return_tokens_as_token_ids, which was"
              + " sent); build the policy with optRequireTokenIds(false) to accept text only");
        }
        return new Generation(text, p.promptIds, null, null, finish);
      }
      float[] lps = logprobs == null ? null : floats(logprobs.get("token_logprobs"));
      if (lps == null) {
        throw new IllegalArgumentException("no 'logprobs.token_logprobs' for the " + ids.length + " sampled tokens");
      }
      if (lps.length != ids.length) {
        throw new IllegalArgumentException(ids.length + " token ids but " + lps.length + " log-probabilities");
      }
      int[] promptIds = ints(choice.get("prompt_token_ids"), "choices[0].prompt_token_ids");
      if (p.promptIds != null) {
        promptIds = p.promptIds; // what was sent is what the server saw
      }
      return new Generation(text, promptIds, ids, lps, finish);
    } catch (RuntimeException e) {
      throw new RemotePolicyException(endpoint, 200, "request " + p.index + ": endpoint " + endpoint
          + "/v1/completions answered 200 with an unusable body: " + e.getMessage() + "; body: "
          + ErrorBodies.shorten(body), e);
    }
  }

  private static FinishReason finishReason(JsonElement e) {
    String s = e == null || e.isJsonNull() ? "null" : e.getAsString();
    switch (s) {
      case "stop":
        return FinishReason.STOP;
      case "length":
        return FinishReason.LENGTH;
      default:
        throw new IllegalArgumentException("finish_reason '" + s + "' (expected stop or length)");
    }
  }

  private static int[] ints(JsonElement e, String field) {
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonArray()) {
      throw new IllegalArgumentException("'" + field + "' is not an array");
    }
    JsonArray a = e.getAsJsonArray();
    int[] out = new int[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).getAsInt();
    }
    return out;
  }

  private static int[] tokenIdStrings(JsonElement e) {
    if (e == null || !e.isJsonArray()) {
      return null;
    }
    JsonArray a = e.getAsJsonArray();
    int[] out = new int[a.size()];
    for (int i = 0; i < out.length; i++) {
      JsonElement t = a.get(i);
      String s = t.isJsonPrimitive() ? t.getAsString() : "";
      if (!s.startsWith(TOKEN_ID_PREFIX)) {
        return null; // plain token strings: the ids are not known
      }
      try {
        out[i] = Integer.parseInt(s.substring(TOKEN_ID_PREFIX.length()));
      } catch (NumberFormatException bad) {
        throw new IllegalArgumentException("logprobs.tokens[" + i + "] is '" + s + "', not token_id:<int>");
      }
    }
    return out;
  }

  private static float[] floats(JsonElement e) {
    if (e == null || !e.isJsonArray()) {
      return null;
    }
    JsonArray a = e.getAsJsonArray();
    float[] out = new float[a.size()];
    for (int i = 0; i < out.length; i++) {
      if (a.get(i).isJsonNull()) {
        throw new IllegalArgumentException("logprobs.token_logprobs[" + i + "] is null");
      }
      out[i] = a.get(i).getAsFloat();
    }
    return out;
  }

  /** Stops the request threads; calls in progress fail with an {@link IllegalStateException}. Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (Runnable never : pool.shutdownNow()) {
      if (never instanceof Future) {
        ((Future<?>) never).cancel(false); // a caller waiting on it gets a CancellationException, not a hang
      }
    }
  }

  /** One request, ready to send. */
  private record Prepared(int index, int[] promptIds, String body) {}

  /** The server refused the prompt itself (context length or body size): that request is rejected. */
  private static final class PromptRejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PromptRejected(String message) {
      super(message, null, false, false);
    }
  }

  /** Builds an {@link OpenAiCompletionsPolicy}: at least one endpoint and the model name are required. */
  public static final class Builder {
    private final List<String> endpoints = new ArrayList<>();
    private String model;
    private String name;
    private UnaryOperator<String> formatter = UnaryOperator.identity();
    private Function<String, int[]> tokenizer;
    private String apiKey;
    private int maxInFlight = 16;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration requestTimeout = Duration.ofMinutes(10);
    private int maxAttempts = 4;
    private Duration initialBackoff = Duration.ofMillis(500);
    private Duration maxBackoff = Duration.ofSeconds(30);
    private boolean requireTokenIds = true;
    private Duration cooldown = Duration.ofSeconds(5);

    private Builder() {}

    /**
     * @param baseUrl a server's base URL, such as {@code http://127.0.0.1:8000} (a trailing {@code /v1} is
     *     accepted); add several for a fleet
     * @return this builder
     */
    public Builder addEndpoint(String baseUrl) {
      endpoints.add(Endpoints.normalize(Objects.requireNonNull(baseUrl, "baseUrl")));
      return this;
    }

    /**
     * @param m the model name the servers serve (for a vLLM LoRA adapter, the adapter's name)
     * @return this builder
     */
    public Builder setModel(String m) {
      this.model = Objects.requireNonNull(m, "model");
      return this;
    }

    /**
     * @param n the policy's name in logs and metrics (default {@code remote:MODEL})
     * @return this builder
     */
    public Builder optName(String n) {
      this.name = Objects.requireNonNull(n, "name");
      return this;
    }

    /**
     * @param f turns a request's prompt into the text sent (or tokenized), for example the checkpoint's chat
     *     template around one user message; default: the prompt as it is
     * @return this builder
     */
    public Builder optPromptFormatter(UnaryOperator<String> f) {
      this.formatter = Objects.requireNonNull(f, "formatter");
      return this;
    }

    /**
     * @param t encodes the formatted prompt into the served model's token ids; the prompt is then sent as ids.
     *     Called from the thread that calls {@link #generate}, one prompt at a time.
     * @return this builder
     */
    public Builder optTokenizer(Function<String, int[]> t) {
      this.tokenizer = Objects.requireNonNull(t, "tokenizer");
      return this;
    }

    /**
     * @param key sent as {@code Authorization: Bearer KEY} (vLLM's {@code --api-key})
     * @return this builder
     */
    public Builder optApiKey(String key) {
      this.apiKey = Objects.requireNonNull(key, "apiKey");
      return this;
    }

    /**
     * @param n the most requests in flight at once over all endpoints and calls (default 16)
     * @return this builder
     */
    public Builder optMaxInFlight(int n) {
      this.maxInFlight = n;
      return this;
    }

    /**
     * @param d the TCP connect timeout (default 10 s)
     * @return this builder
     */
    public Builder optConnectTimeout(Duration d) {
      this.connectTimeout = Objects.requireNonNull(d, "connectTimeout");
      return this;
    }

    /**
     * @param d how long one request may take, generation included (default 10 min)
     * @return this builder
     */
    public Builder optRequestTimeout(Duration d) {
      this.requestTimeout = Objects.requireNonNull(d, "requestTimeout");
      return this;
    }

    /**
     * @param n attempts per request on connection errors, timeouts and 5xx answers, the first included (default 4)
     * @return this builder
     */
    public Builder optMaxAttempts(int n) {
      this.maxAttempts = n;
      return this;
    }

    /**
     * @param initial the wait before the second attempt, doubled for each further one (default 500 ms)
     * @param max the longest wait (default 30 s)
     * @return this builder
     */
    public Builder optBackoff(Duration initial, Duration max) {
      this.initialBackoff = Objects.requireNonNull(initial, "initial");
      this.maxBackoff = Objects.requireNonNull(max, "max");
      return this;
    }

    /**
     * @param d how long an endpoint that failed (connection error, timeout, 5xx) is passed over while others are
     *     available (default 5 s)
     * @return this builder
     */
    public Builder optEndpointCooldown(Duration d) {
      this.cooldown = Objects.requireNonNull(d, "cooldown");
      return this;
    }

    /**
     * @param on whether a response without sampled token ids is an error (default true); false accepts text-only
     *     generations, which evaluation can use but training cannot
     * @return this builder
     */
    public Builder optRequireTokenIds(boolean on) {
      this.requireTokenIds = on;
      return this;
    }

    /**
     * @return the policy
     * @throws IllegalStateException when no endpoint or model is given or a limit is not positive
     */
    public OpenAiCompletionsPolicy build() {
      if (endpoints.isEmpty()) {
        throw new IllegalStateException("addEndpoint(...) is required: at least one server base URL");
      }
      if (model == null || model.isBlank()) {
        throw new IllegalStateException("setModel(...) is required: the served model's name");
      }
      if (maxInFlight < 1) {
        throw new IllegalStateException("maxInFlight must be >= 1, got " + maxInFlight);
      }
      if (maxAttempts < 1) {
        throw new IllegalStateException("maxAttempts must be >= 1, got " + maxAttempts);
      }
      if (connectTimeout.isNegative() || connectTimeout.isZero() || requestTimeout.isNegative()
          || requestTimeout.isZero()) {
        throw new IllegalStateException("timeouts must be positive, got connect " + connectTimeout + ", request "
            + requestTimeout);
      }
      if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalStateException("backoff must satisfy 0 <= initial <= max, got " + initialBackoff + ", "
            + maxBackoff);
      }
      return new OpenAiCompletionsPolicy(this);
    }
  }
}
