package org.magejvm.impl.serve;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.magejvm.api.FinishReason;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.generate.TokenGenerator;
import org.magejvm.impl.llm.generate.TopLogProbs;
import org.magejvm.impl.llm.model.ProjectionAdapter;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.text.ChatMessage;
import org.magejvm.impl.http.HttpAnswer;
import org.magejvm.impl.http.HttpCall;
import org.magejvm.impl.http.HttpLimits;
import org.magejvm.impl.http.JsonHttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger LOG = LoggerFactory.getLogger(CompletionServer.class);
  private static final Gson GSON = new Gson();
  /** Error bodies keep {@code "param": null}, as OpenAI's do. */
  private static final Gson ERROR_GSON = new com.google.gson.GsonBuilder().serializeNulls().create();
  private static final int DEFAULT_MAX_TOKENS = 16;

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
  private final int maxBatch;
  private final long batchWindowNanos;
  private final int contextLength;
  private final int vocabSize;
  private final JsonHttpServer http;
  private final Thread generation;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final SplittableRandom seeds;
  private final AtomicLong requestIds = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong rows = new AtomicLong();
  private final AtomicInteger largestBatch = new AtomicInteger();
  private final AtomicLong generationFailures = new AtomicLong();
  private final AtomicLong cancelledRows = new AtomicLong();
  private final AtomicLong generationNanos = new AtomicLong();
  private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
  private volatile boolean running = true;
  private final boolean enableLora;
  private final int maxAdapters;
  /** The model whose adapter slot requests switch (with runtime LoRA), else null. */
  private final Qwen3Model loraModel;
  /** The adapter attached when the server started (served under the model name), or null. */
  private final ProjectionAdapter baseAdapter;
  /** Adapters loaded at runtime, by name; written only on the generation thread. */
  private final Map<String, Served> adapters = new java.util.concurrent.ConcurrentHashMap<>();

  private CompletionServer(Builder b) {
    this.policy = b.policy;
    this.ownsPolicy = b.ownsPolicy;
    this.modelName = b.modelName == null ? policy.name() : b.modelName;
    this.maxBatch = b.maxBatch;
    this.batchWindowNanos = b.batchWindow.toNanos();
    this.seeds = new SplittableRandom(b.seed);
    this.enableLora = b.enableLora;
    this.maxAdapters = b.maxAdapters;
    if (enableLora && !(policy.generator() instanceof Qwen3Generator)) {
      throw new IllegalStateException("runtime LoRA loading needs a policy generating with a Qwen3Generator; '"
          + policy.name() + "' generates with " + policy.generator().getClass().getName());
    }
    this.loraModel = enableLora ? ((Qwen3Generator) policy.generator()).model() : null;
    this.baseAdapter = loraModel == null ? null : loraModel.adapter().orElse(null);
    if (policy.generator() instanceof Qwen3Generator) {
      Qwen3Generator q = (Qwen3Generator) policy.generator();
      this.contextLength = q.model().config().maxPositionEmbeddings();
      this.vocabSize = q.model().config().vocabSize();
    } else {
      this.contextLength = Integer.MAX_VALUE;
      this.vocabSize = policy.tokenizer().vocabSize();
    }
    this.generation = new Thread(this::generationLoop, "mage-serve-generation");
    generation.setDaemon(true);
    generation.start();
    try {
      this.http = JsonHttpServer.builder().optHost(b.host).optPort(b.port).optName("mage-serve-http")
          .optLimits(b.limits.withMaxBodyBytes(b.maxBodyBytes)).optWorkerThreads(b.handlerThreads)
          .optApiKey(b.apiKey, java.util.Set.of("/health"))
          .setErrorFormat(CompletionServer::errorJson).setHandler(this::handle).start();
    } catch (RuntimeException e) {
      running = false;
      generation.interrupt();
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
    return new Stats(batches.get(), rows.get(), largestBatch.get(), generationFailures.get(),
        generationNanos.get(), cancelledRows.get());
  }

  /**
   * Stops listening, closes open connections, lets the batch being generated finish (its answers go nowhere),
   * answers queued requests with 503, and closes the policy when the server owns it. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (!running) {
      return;
    }
    running = false;
    http.close();
    generation.interrupt();
    try {
      generation.join(TimeUnit.MINUTES.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Pending p; (p = queue.poll()) != null; ) {
      p.fail(shuttingDown());
    }
    if (!generation.isAlive()) {
      if (loraModel != null) {
        loraModel.setAdapter(baseAdapter);
      }
      adapters.values().forEach(a -> a.adapter.close());
      adapters.clear();
    }
    if (ownsPolicy && !generation.isAlive()) {
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

  private static HttpError shuttingDown() {
    return new HttpError(503, "server_error", null, "shutting_down", "the server is shutting down");
  }

  // ---------------------------------------------------------------- HTTP

  private HttpAnswer handle(HttpCall call) {
    try {
      return route(call);
    } catch (HttpError e) {
      return errorAnswer(e);
    } catch (RuntimeException | StackOverflowError e) {
      LOG.error("request {} {} failed", call.method(), call.path(), e);
      return errorAnswer(new HttpError(500, "server_error", null, null, "internal error: " + e));
    }
  }

  private HttpAnswer route(HttpCall call) {
    String path = call.path();
    String method = call.method().toUpperCase(Locale.ROOT);
    switch (path) {
      case "/health":
        requireMethod(method, "GET");
        return json(200, health());
      case "/v1/models":
        requireMethod(method, "GET");
        return json(200, models());
      case "/v1/completions":
        requireMethod(method, "POST");
        return completions(readJson(call));
      case "/v1/chat/completions":
        requireMethod(method, "POST");
        return chatCompletions(readJson(call));
      case "/v1/load_lora_adapter":
      case "/v1/unload_lora_adapter":
        if (!enableLora) {
          throw new HttpError(404, "not_found_error", null, "unknown_path", "no route " + path + ": runtime LoRA"
              + " loading is off; start the server with --enable-lora");
        }
        requireMethod(method, "POST");
        return HttpAnswer.text(200, path.equals("/v1/load_lora_adapter") ? loadAdapter(readJson(call))
            : unloadAdapter(readJson(call)));
      default:
        throw new HttpError(404, "not_found_error", null, "unknown_path", "no route " + path
            + "; this server has POST /v1/completions, POST /v1/chat/completions, GET /v1/models, GET /health"
            + (enableLora ? ", POST /v1/load_lora_adapter, POST /v1/unload_lora_adapter" : ""));
    }
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw new HttpError(405, "invalid_request_error", null, "method_not_allowed", "method " + method
          + " not allowed here; use " + expected);
    }
  }

  private static JsonObject readJson(HttpCall call) {
    JsonElement root;
    try {
      root = JsonParser.parseString(call.bodyText());
    } catch (JsonParseException e) {
      throw HttpError.badRequest(null, "invalid_json", "the request body is not valid JSON: "
          + call.jsonSyntaxError(e));
    }
    if (!root.isJsonObject()) {
      throw HttpError.badRequest(null, "invalid_json", "the request body must be a JSON object, got "
          + Fields.shown(root));
    }
    return root.getAsJsonObject();
  }

  private static HttpAnswer json(int status, JsonObject body) {
    return HttpAnswer.json(status, GSON.toJson(body));
  }

  private static HttpAnswer errorAnswer(HttpError e) {
    return HttpAnswer.json(e.status, errorJson(e.status, e.type, e.param, e.code, e.getMessage()));
  }

  /** The error body of the HTTP layer's own errors, in this server's shape. */
  private static String errorJson(int status, String code, String message) {
    return errorJson(status, status >= 500 ? "server_error" : "invalid_request_error", null, code, message);
  }

  private static String errorJson(int status, String type, String param, String code, String message) {
    JsonObject err = new JsonObject();
    err.addProperty("message", message);
    err.addProperty("type", type);
    err.addProperty("param", param);
    err.addProperty("code", code);
    JsonObject root = new JsonObject();
    root.add("error", err);
    return ERROR_GSON.toJson(root);
  }

  private JsonObject health() {
    JsonObject o = new JsonObject();
    o.addProperty("status", running ? "ok" : "shutting_down");
    o.addProperty("model", modelName);
    o.addProperty("queued", queue.size());
    return o;
  }

  private JsonObject models() {
    JsonObject card = new JsonObject();
    card.addProperty("id", modelName);
    card.addProperty("object", "model");
    card.addProperty("created", 0);
    card.addProperty("owned_by", "mage");
    if (contextLength != Integer.MAX_VALUE) {
      card.addProperty("max_model_len", contextLength);
    }
    JsonArray data = new JsonArray();
    data.add(card);
    for (Served a : adapters.values()) {
      JsonObject c = new JsonObject();
      c.addProperty("id", a.name);
      c.addProperty("object", "model");
      c.addProperty("created", 0);
      c.addProperty("owned_by", "mage");
      c.addProperty("root", a.path);
      c.addProperty("parent", modelName);
      data.add(c);
    }
    JsonObject o = new JsonObject();
    o.addProperty("object", "list");
    o.add("data", data);
    return o;
  }

  // ---------------------------------------------------------------- the two generation endpoints

  /**
   * What a request asks for, parsed and checked on the handler thread.
   *
   * @param n the number of choices, each a row of its own with a seed derived from {@code seed}
   * @param stops the stop strings, empty for none
   * @param includeStop whether an answer cut by a stop string ends with it ({@code include_stop_str_in_output})
   * @param stream whether the answer is streamed as Server-Sent Events
   * @param includeUsage whether a stream ends with a usage chunk ({@code stream_options.include_usage})
   * @param topLogprobs the alternatives asked for per token, 0 for none
   */
  private record Ask(SamplingConfig sampling, long seed, boolean logprobs, int topLogprobs, boolean tokenIdStrings,
      Served adapter, int n, List<String> stops, boolean includeStop, boolean stream, boolean includeUsage) {}

  private Ask commonFields(JsonObject o, boolean chat) {
    JsonElement model = Fields.present(o, "model");
    Served adapter = null;
    if (model != null && !Fields.string(model, "model").equals(modelName)) {
      adapter = adapters.get(model.getAsString());
      if (adapter == null) {
        throw new HttpError(404, "not_found_error", "model", "model_not_found", "the model '"
            + model.getAsString() + "' does not exist here; this server serves '" + modelName + "'"
            + (adapters.isEmpty() ? "" : " and the adapters " + new java.util.TreeSet<>(adapters.keySet())));
      }
    }
    boolean stream = Fields.bool(o, "stream", false);
    boolean includeUsage = false;
    JsonElement streamOptions = Fields.present(o, "stream_options");
    if (streamOptions != null) {
      if (!stream) {
        throw HttpError.badRequest("stream_options", "invalid_value", "'stream_options' needs 'stream': true");
      }
      if (!streamOptions.isJsonObject()) {
        throw HttpError.badRequest("stream_options", "invalid_type", "'stream_options' must be an object, got "
            + Fields.shown(streamOptions));
      }
      JsonObject so = streamOptions.getAsJsonObject();
      includeUsage = flag(so, "include_usage", "stream_options.include_usage");
      if (flag(so, "continuous_usage_stats", "stream_options.continuous_usage_stats")) {
        throw HttpError.badRequest("stream_options.continuous_usage_stats", "unsupported",
            "'stream_options.continuous_usage_stats' is not supported by this server; the usage chunk comes once, at"
            + " the end");
      }
    }
    int n = (int) Fields.integer(o, "n", 1, 1, MAX_CHOICES);
    JsonElement bestOf = Fields.present(o, "best_of");
    if (bestOf != null && Fields.integer(bestOf, "best_of", 1, Integer.MAX_VALUE) != n) {
      throw HttpError.badRequest("best_of", "unsupported", "'best_of' must equal 'n' (" + n + ") or be left out:"
          + " this server returns every sample it draws and does not rank them");
    }
    if (Fields.bool(o, "echo", false)) {
      throw HttpError.badRequest("echo", "unsupported", "echo is not supported by this server");
    }
    List<String> stops = stopStrings(o);
    boolean includeStop = Fields.bool(o, "include_stop_str_in_output", false);
    int cap = contextLength;
    String maxName = chat && Fields.present(o, "max_completion_tokens") != null ? "max_completion_tokens"
        : "max_tokens";
    int maxTokens = (int) Fields.integer(o, maxName, DEFAULT_MAX_TOKENS, 1, cap);
    int minTokens = (int) Fields.integer(o, "min_tokens", 0, 0, maxTokens);
    double temperature = Fields.real(o, "temperature", 1.0);
    if (temperature < 0 || (temperature > 0 && temperature < MIN_TEMPERATURE)) {
      throw HttpError.badRequest("temperature", "invalid_value", "'temperature' must be 0 (greedy) or >= "
          + MIN_TEMPERATURE + ", got " + Fields.shown(o.get("temperature")));
    }
    double topP = Fields.real(o, "top_p", 1.0);
    if (!(topP > 0 && topP <= 1)) {
      throw HttpError.badRequest("top_p", "invalid_value", "'top_p' must be in (0, 1], got " + topP);
    }
    // -1 and 0 both switch the filter off, as in vLLM
    int topK = (int) Fields.integer(o, "top_k", 0, -1, Integer.MAX_VALUE);
    JsonElement seedElement = Fields.present(o, "seed");
    long seed = seedElement == null ? nextSeed() : Fields.integer(seedElement, "seed", Long.MIN_VALUE,
        Long.MAX_VALUE);
    SamplingConfig sampling = SamplingConfig.builder().optTemperature(temperature).optTopP(topP)
        .optTopK(Math.max(topK, 0)).optMaxNewTokens(maxTokens).optMinNewTokens(minTokens).build();
    boolean logprobs;
    int top;
    if (chat) {
      logprobs = Fields.bool(o, "logprobs", false);
      top = (int) Fields.integer(o, "top_logprobs", 0, 0, MAX_LOGPROBS);
      if (top > 0 && !logprobs) {
        throw HttpError.badRequest("top_logprobs", "invalid_value", "'top_logprobs' needs 'logprobs': true");
      }
    } else {
      JsonElement lp = Fields.present(o, "logprobs");
      top = lp == null ? 0 : (int) Fields.integer(lp, "logprobs", 0, MAX_LOGPROBS);
      logprobs = lp != null;
    }
    return new Ask(sampling, seed, logprobs, top, Fields.bool(o, "return_tokens_as_token_ids", false), adapter, n,
        stops, includeStop, stream, includeUsage);
  }

  /** Reads a nested boolean, false when absent; a wrong type is a 400 naming {@code shownAs}. */
  private static boolean flag(JsonObject o, String key, String shownAs) {
    JsonElement e = Fields.present(o, key);
    if (e == null) {
      return false;
    }
    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
      throw HttpError.badRequest(shownAs, "invalid_type", "'" + shownAs + "' must be true or false, got "
          + Fields.shown(e));
    }
    return e.getAsBoolean();
  }

  /** Reads {@code stop}: absent, null, a string or a list of at most {@link #MAX_STOP_STRINGS} non-empty strings. */
  private static List<String> stopStrings(JsonObject o) {
    JsonElement stop = Fields.present(o, "stop");
    if (stop == null) {
      return List.of();
    }
    if (!stop.isJsonArray()) {
      String one = Fields.string(stop, "stop");
      if (one.isEmpty()) {
        throw HttpError.badRequest("stop", "invalid_value", "'stop' must not be an empty string");
      }
      return List.of(one);
    }
    JsonArray a = stop.getAsJsonArray();
    if (a.size() > MAX_STOP_STRINGS) {
      throw HttpError.badRequest("stop", "invalid_value", "'stop' holds at most " + MAX_STOP_STRINGS
          + " strings, got " + a.size());
    }
    List<String> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      String field = "stop[" + i + "]";
      String s = Fields.string(a.get(i), field);
      if (s.isEmpty()) {
        throw HttpError.badRequest(field, "invalid_value", "'" + field + "' must not be an empty string");
      }
      out.add(s);
    }
    return List.copyOf(out);
  }

  private synchronized long nextSeed() {
    return seeds.nextLong();
  }

  private HttpAnswer completions(JsonObject o) {
    JsonElement prompt = Fields.present(o, "prompt");
    if (prompt == null) {
      throw HttpError.badRequest("prompt", "missing_field", "'prompt' is required: a string or a list of token ids");
    }
    Ask ask = commonFields(o, false);
    Prompt source;
    if (prompt.isJsonPrimitive() && prompt.getAsJsonPrimitive().isString()) {
      String text = prompt.getAsString();
      source = () -> encode(text);
    } else if (prompt.isJsonArray()) {
      JsonArray a = prompt.getAsJsonArray();
      if (!a.isEmpty() && !(a.get(0).isJsonPrimitive() && a.get(0).getAsJsonPrimitive().isNumber())) {
        throw HttpError.badRequest("prompt", "unsupported", "one prompt per request: a string or a list of token"
            + " ids, not a list of prompts");
      }
      int[] ids = new int[a.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = (int) Fields.integer(a.get(i), "prompt[" + i + "]", 0, vocabSize - 1);
      }
      source = () -> ids;
    } else {
      throw HttpError.badRequest("prompt", "invalid_type", "'prompt' must be a string or a list of token ids, got "
          + Fields.shown(prompt));
    }
    Job job = submit(source, ask);
    if (ask.stream) {
      return stream(job, ask, false);
    }
    Done[] done = job.awaitAll();
    JsonArray choices = new JsonArray();
    for (Done d : done) {
      choices.add(completionChoice(d, d.text, 0, d.tokenIds.length, ask, true));
    }
    return json(200, envelope("cmpl-", "text_completion", choices, done));
  }

  /**
   * Tokenizes a prompt text on the generation thread; a text whose length in characters alone proves it beyond the
   * prompt limit is refused without being tokenized (a megabyte would take the generation thread seconds).
   */
  private int[] encode(String text) {
    long least = policy.tokenizer().minTokens(text);
    int limit = policy.promptLimit();
    if (least > limit) {
      throw HttpError.badRequest("prompt", "context_length_exceeded", limit == contextLength
          ? org.magejvm.impl.llm.model.Qwen3Config.promptTooLong(least, text.length(), contextLength)
          : "the prompt is at least " + least + " tokens (" + text.length() + " characters), more than this"
              + " server's prompt limit of " + limit + " tokens");
    }
    return policy.tokenizer().encode(text);
  }

  /** A {@code /v1/completions} choice, or a streamed chunk's choice, for the text and tokens {@code [from, to)}. */
  private static JsonObject completionChoice(Done d, String text, int from, int to, Ask ask, boolean whole) {
    JsonObject choice = new JsonObject();
    choice.addProperty("index", d.index);
    choice.addProperty("text", text);
    if (ask.logprobs) {
      JsonObject lp = new JsonObject();
      lp.add("tokens", tokenStrings(d, from, to, ask.tokenIdStrings));
      lp.add("token_logprobs", floats(d.logProbs, from, to));
      lp.add("top_logprobs", ask.topLogprobs > 0 ? completionTops(d, from, to, ask) : JsonNull.INSTANCE);
      choice.add("logprobs", lp);
    } else {
      choice.add("logprobs", JsonNull.INSTANCE);
    }
    if (whole) {
      choice.addProperty("finish_reason", finish(d.finish));
      choice.addProperty("stop_reason", d.stopReason);
      choice.add("token_ids", ints(d.tokenIds, from, to));
      choice.add("prompt_token_ids", ints(d.promptIds, 0, d.promptIds.length));
    }
    return choice;
  }

  private HttpAnswer chatCompletions(JsonObject o) {
    JsonElement messagesElement = Fields.present(o, "messages");
    if (messagesElement == null || !messagesElement.isJsonArray() || messagesElement.getAsJsonArray().isEmpty()) {
      throw HttpError.badRequest("messages", messagesElement == null ? "missing_field" : "invalid_type",
          "'messages' is required: a non-empty list of {\"role\", \"content\"} objects");
    }
    List<ChatMessage> messages = new ArrayList<>();
    JsonArray a = messagesElement.getAsJsonArray();
    for (int i = 0; i < a.size(); i++) {
      String field = "messages[" + i + "]";
      if (!a.get(i).isJsonObject()) {
        throw HttpError.badRequest(field, "invalid_type", "'" + field + "' must be an object");
      }
      JsonObject m = a.get(i).getAsJsonObject();
      JsonElement role = Fields.present(m, "role");
      JsonElement content = Fields.present(m, "content");
      if (role == null || content == null) {
        throw HttpError.badRequest(field, "missing_field", "'" + field + "' needs 'role' and 'content'");
      }
      String r = Fields.string(role, field + ".role");
      if (r.isBlank()) {
        throw HttpError.badRequest(field + ".role", "invalid_value", "'" + field + ".role' must not be blank");
      }
      messages.add(new ChatMessage(r, Fields.string(content, field + ".content")));
    }
    Map<String, Object> vars = new LinkedHashMap<>(policy.templateVariables());
    JsonElement kwargs = Fields.present(o, "chat_template_kwargs");
    if (kwargs != null) {
      if (!kwargs.isJsonObject()) {
        throw HttpError.badRequest("chat_template_kwargs", "invalid_type", "'chat_template_kwargs' must be an"
            + " object");
      }
      for (Map.Entry<String, JsonElement> e : kwargs.getAsJsonObject().entrySet()) {
        JsonElement v = e.getValue();
        String field = "chat_template_kwargs." + e.getKey();
        if (!v.isJsonPrimitive()) {
          throw HttpError.badRequest(field, "invalid_type", "'" + field + "' must be a string, number or boolean");
        }
        vars.put(e.getKey(), v.getAsJsonPrimitive().isBoolean() ? (Object) v.getAsBoolean()
            : v.getAsJsonPrimitive().isNumber() ? (Object) v.getAsDouble() : v.getAsString());
      }
    }
    Ask ask = commonFields(o, true);
    Map<String, Object> frozen = Map.copyOf(vars);
    Job job = submit(() -> encode(policy.chatTemplate().render(messages, true, frozen)), ask);
    if (ask.stream) {
      return stream(job, ask, true);
    }
    Done[] done = job.awaitAll();
    JsonArray choices = new JsonArray();
    for (Done d : done) {
      JsonObject message = new JsonObject();
      message.addProperty("role", "assistant");
      message.addProperty("content", d.text);
      JsonObject choice = new JsonObject();
      choice.addProperty("index", d.index);
      choice.add("message", message);
      choice.add("logprobs", ask.logprobs ? chatLogprobs(d, 0, d.tokenIds.length, ask) : JsonNull.INSTANCE);
      choice.addProperty("finish_reason", finish(d.finish));
      choice.addProperty("stop_reason", d.stopReason);
      choice.add("token_ids", ints(d.tokenIds, 0, d.tokenIds.length));
      choice.add("prompt_token_ids", ints(d.promptIds, 0, d.promptIds.length));
      choices.add(choice);
    }
    return json(200, envelope("chatcmpl-", "chat.completion", choices, done));
  }

  /**
   * OpenAI's legacy {@code top_logprobs}: per token, the K most likely tokens (most likely first) and then the
   * sampled token when it is not among them, each as {@code text: logprob} (tokens with the same text collapse
   * into one key, as in OpenAI's and vLLM's answers; {@code return_tokens_as_token_ids} keeps them apart).
   */
  private static JsonArray completionTops(Done d, int from, int to, Ask ask) {
    JsonArray a = new JsonArray(to - from);
    for (int i = from; i < to; i++) {
      Top top = d.tops[i];
      JsonObject m = new JsonObject();
      for (int j = 0; j < top.ids.length; j++) {
        String key = ask.tokenIdStrings ? "token_id:" + top.ids[j] : top.texts[j];
        if (!m.has(key)) {
          m.addProperty(key, top.logProbs[j]);
        }
      }
      String sampled = ask.tokenIdStrings ? "token_id:" + d.tokenIds[i] : d.tokenTexts[i];
      if (!m.has(sampled)) {
        m.addProperty(sampled, d.logProbs[i]);
      }
      a.add(m);
    }
    return a;
  }

  private static JsonObject chatLogprob(JsonElement token, String text, float logProb) {
    JsonObject t = new JsonObject();
    t.add("token", token);
    t.addProperty("logprob", logProb);
    JsonArray bytes = new JsonArray();
    for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      bytes.add(b & 0xFF);
    }
    t.add("bytes", bytes);
    return t;
  }

  private static JsonObject chatLogprobs(Done d, int from, int to, Ask ask) {
    JsonArray content = new JsonArray();
    JsonArray tokens = tokenStrings(d, from, to, ask.tokenIdStrings);
    for (int i = from; i < to; i++) {
      JsonObject t = chatLogprob(tokens.get(i - from), d.tokenTexts[i], d.logProbs[i]);
      JsonArray alternatives = new JsonArray();
      if (ask.topLogprobs > 0) {
        Top top = d.tops[i];
        for (int j = 0; j < top.ids.length; j++) {
          alternatives.add(chatLogprob(new com.google.gson.JsonPrimitive(ask.tokenIdStrings
              ? "token_id:" + top.ids[j] : top.texts[j]), top.texts[j], top.logProbs[j]));
        }
      }
      t.add("top_logprobs", alternatives);
      content.add(t);
    }
    JsonObject lp = new JsonObject();
    lp.add("content", content);
    return lp;
  }

  private static JsonObject usage(Done[] done) {
    int prompt = 0;
    int completion = 0;
    for (Done d : done) {
      if (d != null) {
        prompt = d.promptIds.length;
        completion += d.tokenIds.length;
      }
    }
    JsonObject usage = new JsonObject();
    usage.addProperty("prompt_tokens", prompt);
    usage.addProperty("completion_tokens", completion);
    usage.addProperty("total_tokens", prompt + completion);
    return usage;
  }

  private JsonObject envelope(String idPrefix, String object, JsonArray choices, Done[] done) {
    JsonObject root = new JsonObject();
    root.addProperty("id", idPrefix + requestIds.incrementAndGet());
    root.addProperty("object", object);
    root.addProperty("created", System.currentTimeMillis() / 1000);
    root.addProperty("model", done[0].model);
    root.add("choices", choices);
    root.add("usage", usage(done));
    return root;
  }

  private static JsonArray tokenStrings(Done d, int from, int to, boolean asIds) {
    JsonArray a = new JsonArray();
    for (int i = from; i < to; i++) {
      a.add(asIds ? "token_id:" + d.tokenIds[i] : d.tokenTexts[i]);
    }
    return a;
  }

  private static String finish(FinishReason r) {
    return r == FinishReason.STOP ? "stop" : "length";
  }

  private static JsonArray ints(int[] v, int from, int to) {
    JsonArray a = new JsonArray(to - from);
    for (int i = from; i < to; i++) {
      a.add(v[i]);
    }
    return a;
  }

  private static JsonArray floats(float[] v, int from, int to) {
    JsonArray a = new JsonArray(to - from);
    for (int i = from; i < to; i++) {
      a.add(v[i]);
    }
    return a;
  }

  // ---------------------------------------------------------------- streaming (Server-Sent Events)

  /**
   * Waits for the request's first row to be taken into a batch (so that a prompt the generation thread refuses is
   * still an ordinary JSON error with its status), then answers 200 {@code text/event-stream} and writes each part
   * as the generation thread hands it over. When the client goes away the write fails and the request's rows are
   * cancelled: the generation thread drops them from their batch at the next token.
   */
  private HttpAnswer stream(Job job, Ask ask, boolean chat) {
    Object first = job.next();
    if (first instanceof HttpError) {
      job.cancel();
      throw (HttpError) first;
    }
    String id = (chat ? "chatcmpl-" : "cmpl-") + requestIds.incrementAndGet();
    long created = System.currentTimeMillis() / 1000;
    return HttpAnswer.stream(200, "text/event-stream; charset=utf-8", out -> {
      try {
        writeStream(out, job, ask, chat, id, created, first);
      } catch (HttpError e) {
        // the server is shutting down (the handler was interrupted): say so if the client still listens
        out.write("data: " + errorJson(e.status, e.type, e.param, e.code, e.getMessage()) + "\n\ndata: [DONE]\n\n");
      } finally {
        job.cancel();
      }
    });
  }

  private void writeStream(HttpAnswer.HttpStream out, Job job, Ask ask, boolean chat, String id, long created,
      Object first) throws java.io.IOException {
    String object = chat ? "chat.completion.chunk" : "text_completion";
    Done[] done = new Done[ask.n];
    Started[] started = new Started[ask.n];
    int[] sent = new int[ask.n];
    int finished = 0;
    String model = null;
    for (Object e = first; ; e = job.next()) {
      if (e instanceof HttpError) {
        HttpError err = (HttpError) e;
        out.write("data: " + errorJson(err.status, err.type, err.param, err.code, err.getMessage()) + "\n\n");
        out.write("data: [DONE]\n\n");
        return;
      }
      JsonObject choice;
      if (e instanceof Started) {
        Started s = (Started) e;
        started[s.index] = s;
        model = s.model;
        if (!chat) {
          continue;
        }
        JsonObject delta = new JsonObject();
        delta.addProperty("role", "assistant");
        delta.addProperty("content", "");
        choice = chatChunkChoice(s.index, delta, JsonNull.INSTANCE, null, null);
      } else if (e instanceof Delta) {
        Delta d = (Delta) e;
        Started s = started[d.index];
        Done view = new Done(d.index, d.text, s.promptIds, d.tokenIds, d.logProbs, d.tokenTexts, d.tops, null, null,
            s.model);
        choice = chunkChoice(view, d.text, ask, chat, sent[d.index] == 0 ? s.promptIds : null);
        sent[d.index] += d.tokenIds.length;
      } else {
        Done d = (Done) e;
        done[d.index] = d;
        finished++;
        if (chat) {
          choice = chatChunkChoice(d.index, new JsonObject(), JsonNull.INSTANCE, finish(d.finish), d.stopReason);
        } else {
          choice = new JsonObject();
          choice.addProperty("index", d.index);
          choice.addProperty("text", "");
          choice.add("logprobs", JsonNull.INSTANCE);
          choice.addProperty("finish_reason", finish(d.finish));
          choice.addProperty("stop_reason", d.stopReason);
        }
      }
      out.write(chunk(id, object, created, model, choice));
      if (finished == ask.n) {
        break;
      }
    }
    if (ask.includeUsage) {
      JsonObject root = chunkRoot(id, object, created, model);
      root.add("choices", new JsonArray());
      root.add("usage", usage(done));
      out.write("data: " + GSON.toJson(root) + "\n\n");
    }
    out.write("data: [DONE]\n\n");
  }

  /** A streamed part's choice: its text (as {@code text} or {@code delta.content}), tokens and log-probs. */
  private static JsonObject chunkChoice(Done view, String text, Ask ask, boolean chat, int[] promptIds) {
    JsonObject choice;
    int n = view.tokenIds.length;
    if (chat) {
      JsonObject delta = new JsonObject();
      delta.addProperty("content", text);
      choice = chatChunkChoice(view.index, delta, ask.logprobs ? chatLogprobs(view, 0, n, ask) : JsonNull.INSTANCE,
          null, null);
    } else {
      choice = completionChoice(view, text, 0, n, ask, false);
      choice.add("finish_reason", JsonNull.INSTANCE);
    }
    choice.add("token_ids", ints(view.tokenIds, 0, n));
    if (promptIds != null) {
      choice.add("prompt_token_ids", ints(promptIds, 0, promptIds.length));
    }
    return choice;
  }

  private static JsonObject chatChunkChoice(int index, JsonObject delta, JsonElement logprobs, String finish,
      String stopReason) {
    JsonObject choice = new JsonObject();
    choice.addProperty("index", index);
    choice.add("delta", delta);
    choice.add("logprobs", logprobs);
    choice.addProperty("finish_reason", finish);
    if (finish != null) {
      choice.addProperty("stop_reason", stopReason);
    }
    return choice;
  }

  private static JsonObject chunkRoot(String id, String object, long created, String model) {
    JsonObject root = new JsonObject();
    root.addProperty("id", id);
    root.addProperty("object", object);
    root.addProperty("created", created);
    root.addProperty("model", model);
    return root;
  }

  /** One Server-Sent Event: {@code data: {json}} and a blank line; {@code null} fields are written as null. */
  private static String chunk(String id, String object, long created, String model, JsonObject choice) {
    JsonObject root = chunkRoot(id, object, created, model);
    JsonArray choices = new JsonArray();
    choices.add(choice);
    root.add("choices", choices);
    return "data: " + ERROR_GSON.toJson(root) + "\n\n";
  }

  // ---------------------------------------------------------------- requests and their rows

  /** Queues the request's {@code n} rows, choice {@code i} with seed {@link Qwen3Generator#rowSeed rowSeed(seed, i)}. */
  private Job submit(Prompt source, Ask ask) {
    if (!running) {
      throw shuttingDown();
    }
    Job job = new Job(source, ask);
    List<Pending> rowsOfJob = new ArrayList<>(ask.n);
    for (int i = 0; i < ask.n; i++) {
      rowsOfJob.add(new Pending(job, i, Qwen3Generator.rowSeed(ask.seed, i), null));
    }
    queue.addAll(rowsOfJob);
    return job;
  }

  /**
   * One request on its way through the generation thread: its rows send what happens to them to {@link #events}
   * ({@link Started}, {@link Delta} for streamed requests, {@link Done}, or an {@link HttpError}), which the
   * request's handler thread reads.
   */
  private final class Job {
    final Prompt source;
    final Ask ask;
    final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    /** Set when the handler stopped listening (its client went away, or one row failed); its rows are dropped. */
    volatile boolean cancelled;
    /** The prompt's ids once a row has prepared them (generation thread only). */
    int[] promptIds;

    Job(Prompt source, Ask ask) {
      this.source = source;
      this.ask = ask;
    }

    /** The prompt's ids, computed once on the generation thread for all the rows. */
    int[] prompt() {
      if (promptIds == null) {
        promptIds = source.ids();
      }
      return promptIds;
    }

    /** Whether the generation thread follows the rows' text token by token. */
    boolean followsText() {
      return ask.stream || !ask.stops.isEmpty();
    }

    void cancel() {
      cancelled = true;
    }

    /** @return the next event, waiting for it; 503 when the server shuts down meanwhile */
    Object next() {
      try {
        return events.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        cancel();
        throw shuttingDown();
      }
    }

    /** @return every row's answer, by choice index; throws the first row's failure */
    Done[] awaitAll() {
      Done[] out = new Done[ask.n];
      for (int left = ask.n; left > 0; ) {
        Object e = next();
        if (e instanceof HttpError) {
          cancel();
          throw (HttpError) e;
        }
        if (e instanceof Done) {
          Done d = (Done) e;
          out[d.index] = d;
          left--;
        }
      }
      return out;
    }
  }

  /** A row was taken into a batch: its prompt was accepted. */
  private record Started(int index, int[] promptIds, String model) {}

  /** A streamed row's next part: text and the tokens whose text it completes (with their alternatives, or null). */
  private record Delta(int index, String text, int[] tokenIds, float[] logProbs, String[] tokenTexts, Top[] tops) {}

  /** One token's alternatives as sent: ids, log-probabilities (largest first) and decoded texts. */
  private record Top(int[] ids, float[] logProbs, String[] texts) {}

  // ---------------------------------------------------------------- the generation thread

  /** Produces a request's prompt token ids; runs on the generation thread (tokenizer and template included). */
  private interface Prompt {
    int[] ids();
  }

  /**
   * A request's row waiting for generation, or (with {@code control}) an adapter change to run on the generation
   * thread between two batches, whose result is null.
   */
  private static final class Pending {
    final Job job;
    final int index;
    final long seed;
    final Runnable control;
    final CompletableFuture<Void> result = new CompletableFuture<>();
    int[] ids;

    Pending(Job job, int index, long seed, Runnable control) {
      this.job = job;
      this.index = index;
      this.seed = seed;
      this.control = control;
    }

    SamplingConfig sampling() {
      return job.ask.sampling;
    }

    Served adapter() {
      return job.ask.adapter;
    }

    /** Whether {@code p} may share this row's generation call. */
    boolean batchesWith(Pending p) {
      return p.control == null && p.sampling().equals(sampling()) && p.adapter() == adapter();
    }

    /** Tells the waiting handler that this row (or adapter change) failed. */
    void fail(HttpError e) {
      if (control != null) {
        result.completeExceptionally(e);
      } else {
        job.events.add(e);
      }
    }
  }

  /** An adapter loaded at runtime. */
  private static final class Served {
    final String name;
    final String path;
    final LoraAdapter adapter;
    volatile boolean unloaded;

    Served(String name, String path, LoraAdapter adapter) {
      this.name = name;
      this.path = path;
      this.adapter = adapter;
    }
  }

  /**
   * A row's answer.
   *
   * @param index the choice index
   * @param tokenIds the tokens kept (see {@link RowText} for a stop string)
   * @param tops each token's alternatives, or null when none were asked for
   * @param stopReason the stop string that ended it, or null
   */
  private record Done(int index, String text, int[] promptIds, int[] tokenIds, float[] logProbs, String[] tokenTexts,
      Top[] tops, FinishReason finish, String stopReason, String model) {}

  // ---------------------------------------------------------------- runtime LoRA adapters

  private String loadAdapter(JsonObject o) {
    String name = optionalString(o, "lora_name");
    String path = optionalString(o, "lora_path");
    if (name == null || name.isEmpty() || path == null || path.isEmpty()) {
      throw HttpError.badRequest(name == null || name.isEmpty() ? "lora_name" : "lora_path", "missing_field",
          "Both 'lora_name' and 'lora_path' must be provided.");
    }
    if (name.equals(modelName)) {
      throw HttpError.badRequest("lora_name", "invalid_value", "the lora adapter name '" + name + "' is the served"
          + " model's name; choose another");
    }
    java.nio.file.Path dir;
    try {
      dir = java.nio.file.Path.of(path);
    } catch (java.nio.file.InvalidPathException e) {
      throw HttpError.badRequest("lora_path", "invalid_value", "'lora_path' is not a valid path: " + e.getMessage());
    }
    runControl(() -> {
      if (adapters.containsKey(name)) {
        throw HttpError.badRequest("lora_name", "invalid_value", "The lora adapter '" + name + "' has already been"
            + " loaded.");
      }
      if (adapters.size() >= maxAdapters) {
        throw HttpError.badRequest("lora_name", "invalid_value", "this server holds at most " + maxAdapters
            + " adapters; unload one of " + new java.util.TreeSet<>(adapters.keySet()) + " first");
      }
      if (!java.nio.file.Files.isDirectory(dir)) {
        throw new HttpError(404, "not_found_error", "lora_path", "adapter_not_found", "No adapter found at '" + path
            + "': " + (java.nio.file.Files.exists(dir) ? "not a directory" : "no such directory on this server"));
      }
      LoraAdapter adapter;
      try {
        adapter = PeftAdapters.load(dir, loraModel);
        adapter.checkCompatible(loraModel.config(), loraModel.dtype(), loraModel.device());
      } catch (RuntimeException e) {
        throw HttpError.badRequest("lora_path", "invalid_adapter", "cannot load the lora adapter '" + name
            + "' from " + path + ": " + e.getMessage());
      }
      adapters.put(name, new Served(name, path, adapter));
      LOG.info("loaded LoRA adapter '{}' from {}", name, path);
    });
    return "Success: LoRA adapter '" + name + "' added successfully.";
  }

  private String unloadAdapter(JsonObject o) {
    String name = optionalString(o, "lora_name");
    if (name == null || name.isEmpty()) {
      throw HttpError.badRequest("lora_name", "missing_field", "'lora_name' must be provided.");
    }
    runControl(() -> {
      Served s = adapters.remove(name);
      if (s == null) {
        throw new HttpError(404, "not_found_error", "lora_name", "adapter_not_found", "The lora adapter '" + name
            + "' cannot be found.");
      }
      s.unloaded = true;
      if (loraModel.adapter().orElse(null) == s.adapter) {
        loraModel.setAdapter(baseAdapter);
      }
      s.adapter.close();
      LOG.info("unloaded LoRA adapter '{}'", name);
    });
    return "Success: LoRA adapter '" + name + "' removed successfully.";
  }

  private static String optionalString(JsonObject o, String field) {
    JsonElement e = Fields.present(o, field);
    return e == null ? null : Fields.string(e, field);
  }

  /** Runs an adapter change on the generation thread between two batches and waits for it. */
  private void runControl(Runnable change) {
    if (!running) {
      throw shuttingDown();
    }
    Pending p = new Pending(null, 0, 0, change);
    queue.add(p);
    try {
      p.result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw shuttingDown();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof HttpError) {
        throw (HttpError) e.getCause();
      }
      throw new HttpError(500, "server_error", null, null, "the adapter change failed: " + e.getCause());
    }
  }

  private static void runControl(Pending p) {
    try {
      p.control.run();
      p.result.complete(null);
    } catch (RuntimeException | Error e) {
      p.result.completeExceptionally(e);
    }
  }

  private void generationLoop() {
    ArrayDeque<Pending> deferred = new ArrayDeque<>();
    while (running) {
      try {
        Pending first = deferred.isEmpty() ? queue.poll(100, TimeUnit.MILLISECONDS) : deferred.poll();
        if (first == null) {
          continue;
        }
        if (first.control != null) {
          runControl(first);
          continue;
        }
        List<Pending> batch = new ArrayList<>();
        batch.add(first);
        boolean control = false;
        for (var it = deferred.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
          Pending p = it.next();
          if (p.control != null) {
            control = true;   // an adapter change waits: requests after it go in a later batch
            break;
          }
          if (first.batchesWith(p)) {
            batch.add(p);
            it.remove();
          }
        }
        long deadline = System.nanoTime() + batchWindowNanos;
        while (!control && batch.size() < maxBatch) {
          long left = deadline - System.nanoTime();
          Pending p = left <= 0 ? queue.poll() : queue.poll(left, TimeUnit.NANOSECONDS);
          if (p == null) {
            break;
          }
          if (first.batchesWith(p)) {
            batch.add(p);
          } else {
            deferred.add(p);
            control = p.control != null;
          }
        }
        generate(batch);
      } catch (InterruptedException e) {
        if (!running) {
          break;
        }
      } catch (RuntimeException | Error e) {
        // generate() answers its own failures; this is a bug in the loop itself: log it and keep serving
        LOG.error("the generation loop failed; going on", e);
      }
    }
    for (Pending p : deferred) {
      p.fail(shuttingDown());
    }
    if (loraModel != null) {
      loraModel.setAdapter(baseAdapter);
    }
  }

  private void generate(List<Pending> batch) {
    long start = System.nanoTime();
    try {
      generateTimed(batch);
    } finally {
      generationNanos.addAndGet(System.nanoTime() - start);
    }
  }

  private void generateTimed(List<Pending> batch) {
    Served adapter = batch.get(0).adapter();
    if (adapter != null && adapter.unloaded) {
      HttpError gone = new HttpError(404, "not_found_error", "model", "model_not_found", "the lora adapter '"
          + adapter.name + "' was unloaded before this request was generated");
      batch.forEach(p -> p.fail(gone));
      return;
    }
    if (loraModel != null) {
      loraModel.setAdapter(adapter == null ? baseAdapter : adapter.adapter);
    }
    String served = adapter == null ? modelName : adapter.name;
    List<Pending> ready = new ArrayList<>(batch.size());
    int limit = policy.promptLimit();
    for (Pending p : batch) {
      if (p.job.cancelled) {
        cancelledRows.incrementAndGet();
        continue;
      }
      try {
        int[] ids = p.job.prompt();
        if (ids.length == 0) {
          throw HttpError.badRequest("prompt", "invalid_value", "the prompt encodes to no tokens");
        }
        if (ids.length > contextLength) {
          throw HttpError.badRequest("prompt", "context_length_exceeded",
              org.magejvm.impl.llm.model.Qwen3Config.promptTooLong(String.valueOf(ids.length), contextLength));
        }
        if (ids.length > limit) {
          throw HttpError.badRequest("prompt", "context_length_exceeded", "the prompt is " + ids.length
              + " tokens, more than this server's prompt limit of " + limit + " tokens");
        }
        if ((long) ids.length + p.sampling().maxNewTokens() > contextLength) {
          throw HttpError.badRequest("max_tokens", "context_length_exceeded", "this model's maximum context length"
              + " is " + contextLength + " tokens; the prompt is " + ids.length + " tokens and max_tokens "
              + p.sampling().maxNewTokens());
        }
        p.ids = ids;
        ready.add(p);
      } catch (HttpError e) {
        p.fail(e);
      } catch (RuntimeException e) {
        p.fail(HttpError.badRequest("prompt", "invalid_value", "the prompt could not be prepared: "
            + e.getMessage()));
      }
    }
    if (ready.isEmpty()) {
      return;
    }
    List<int[]> prompts = new ArrayList<>(ready.size());
    long[] rowSeeds = new long[ready.size()];
    RowText[] texts = new RowText[ready.size()];
    List<List<TopLogProbs>> rowTops = new ArrayList<>(ready.size());
    boolean follow = false;
    int topK = 0;
    for (int i = 0; i < ready.size(); i++) {
      Pending p = ready.get(i);
      topK = Math.max(topK, p.job.ask.topLogprobs);
      rowTops.add(new ArrayList<>());
      prompts.add(p.ids);
      rowSeeds[i] = p.seed;
      p.job.events.add(new Started(p.index, p.ids, served));
      if (p.job.followsText()) {
        texts[i] = new RowText(ids -> policy.tokenizer().decodeGenerated(ids, true), policy.stopTokenIds(), p.job.ask.stops,
            p.job.ask.includeStop);
        follow = true;
      }
    }
    batches.incrementAndGet();
    rows.addAndGet(ready.size());
    largestBatch.accumulateAndGet(ready.size(), Math::max);
    List<GeneratedSequence> out;
    try {
      TokenGenerator.TokenListener listener = !follow ? null : new TokenGenerator.TokenListener() {
        @Override
        public boolean onToken(int row, int token, float logProb) {
          return onToken(row, token, logProb, null);
        }

        @Override
        public boolean onToken(int row, int token, float logProb, TopLogProbs top) {
          rowTops.get(row).add(top);
          return follow(ready.get(row), texts[row], rowTops.get(row), token, logProb);
        }
      };
      out = topK > 0
          ? policy.generator().generate(prompts, ready.get(0).sampling(), policy.stopTokenIds(), rowSeeds, listener,
              topK)
          : follow
          ? policy.generator().generate(prompts, ready.get(0).sampling(), policy.stopTokenIds(), rowSeeds, listener)
          : policy.generator().generate(prompts, ready.get(0).sampling(), policy.stopTokenIds(), rowSeeds);
      if (out == null || out.size() != ready.size()) {
        throw new IllegalStateException("the generator returned " + (out == null ? "null" : out.size())
            + " sequences for " + ready.size() + " prompts");
      }
    } catch (RuntimeException | Error e) {
      generationFailures.incrementAndGet();
      LOG.error("generation of a batch of {} failed; answering 500 and going on", ready.size(), e);
      HttpError err = new HttpError(500, "server_error", null, "generation_failed", "generation failed: " + e);
      ready.forEach(p -> p.fail(err));
      return;
    }
    for (int i = 0; i < ready.size(); i++) {
      Pending p = ready.get(i);
      if (p.job.cancelled) {
        continue;
      }
      try {
        p.job.events.add(texts[i] == null ? done(p, out.get(i), served) : done(p, out.get(i), texts[i], served));
      } catch (RuntimeException e) {
        p.fail(new HttpError(500, "server_error", null, "decode_failed", "decoding the response failed: " + e));
      }
    }
  }

  /** The generation listener of a followed row: finds stop strings, hands out streamed parts, drops cancelled rows. */
  private boolean follow(Pending p, RowText text, List<TopLogProbs> tops, int token, float logProb) {
    if (text == null) {
      return true;
    }
    if (p.job.cancelled) {
      cancelledRows.incrementAndGet();
      return false;
    }
    try {
      boolean goOn = text.add(token, logProb);
      if (goOn && p.job.ask.stream) {
        RowText.Part part = text.next(false);
        if (!part.isEmpty()) {
          p.job.events.add(delta(p, text, tops, part));
        }
      }
      return goOn;
    } catch (RuntimeException e) {
      // a decoding failure ends this row only; done() reports it
      LOG.warn("following the text of a row failed; ending the row", e);
      return false;
    }
  }

  private Delta delta(Pending p, RowText text, List<TopLogProbs> tops, RowText.Part part) {
    int[] ids = text.ids(part.fromToken(), part.toToken());
    return new Delta(p.index, part.text(), ids, text.logProbs(part.fromToken(), part.toToken()), tokenTexts(ids),
        tops(p, tops, part.fromToken(), part.toToken()));
  }

  /** The row's alternatives {@code [from, to)} cut to what its request asked for, decoded; null when none. */
  private Top[] tops(Pending p, List<TopLogProbs> all, int from, int to) {
    int k = p.job.ask.topLogprobs;
    if (k == 0) {
      return null;
    }
    if (all.size() < to) {
      throw new IllegalStateException("the generator gave alternatives for " + all.size() + " tokens of row "
          + p.index + ", not " + to);
    }
    Top[] out = new Top[to - from];
    for (int i = from; i < to; i++) {
      TopLogProbs t = all.get(i);
      if (t == null) {
        throw new IllegalStateException("the generator gave no alternatives for token " + i + " of row " + p.index);
      }
      t = t.first(k);
      int[] ids = t.tokenIds();
      out[i - from] = new Top(ids, t.logProbs(), tokenTexts(ids));
    }
    return out;
  }

  private String[] tokenTexts(int[] ids) {
    String[] texts = new String[ids.length];
    for (int j = 0; j < ids.length; j++) {
      texts[j] = policy.tokenizer().decodeGenerated(new int[] {ids[j]}, false);
    }
    return texts;
  }

  /** The answer of a row generated without following its text: the whole sequence. */
  private Done done(Pending p, GeneratedSequence s, String served) {
    int[] ids = s.tokenIds();
    return new Done(p.index, policy.tokenizer().decodeGenerated(s.contentTokenIds(), true), p.ids, ids, s.logProbs(),
        tokenTexts(ids), tops(p, s.topLogProbs(), 0, ids.length), s.finishReason(), null, served);
  }

  /**
   * The answer of a followed row: the text and tokens {@link RowText} kept, finish reason {@code stop} after a stop
   * string; a streamed row first gets its last part.
   */
  private Done done(Pending p, GeneratedSequence s, RowText text, String served) {
    if (text.count() != s.length()) {
      throw new IllegalStateException("the generator told " + text.count() + " tokens of row " + p.index
          + " but returned " + s.length());
    }
    if (p.job.ask.stream) {
      RowText.Part part = text.next(true);
      if (!part.isEmpty()) {
        p.job.events.add(delta(p, text, s.topLogProbs(), part));
      }
    }
    int kept = text.kept();
    int[] ids = text.ids(0, kept);
    FinishReason finish = text.stopReason() != null ? FinishReason.STOP : s.finishReason();
    return new Done(p.index, text.answer(), p.ids, ids, text.logProbs(0, kept), tokenTexts(ids),
        tops(p, s.topLogProbs(), 0, kept), finish, text.stopReason(), served);
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
      if (key != null && (key.isBlank() || !key.strip().equals(key))) {
        throw new IllegalArgumentException("the API key must not be blank or begin or end with white space");
      }
      this.apiKey = key;
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
