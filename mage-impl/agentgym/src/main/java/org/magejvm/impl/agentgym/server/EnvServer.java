package org.magejvm.impl.agentgym.server;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonArray;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.api.plugin.PluginException;
import org.magejvm.impl.agentgym.EnvProtocol;
import org.magejvm.impl.agentgym.ProtocolException;
import org.magejvm.impl.http.HttpAnswer;
import org.magejvm.impl.http.HttpCall;
import org.magejvm.impl.http.HttpLimits;
import org.magejvm.impl.http.JsonHttpServer;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves environments of a registry over HTTP with the AgentGym-shaped protocol of docs/environments.md: {@code GET
 * /} (health), {@code GET /envs}, {@code GET /info}, {@code POST /create}, {@code /reset}, {@code /restart}, {@code
 * /step}, {@code /render}, {@code /close}, {@code GET /observation} and {@code /available_actions}.
 *
 * <pre>{@code
 * try (EnvServer server = EnvServer.builder()
 *     .setRegistry(EnvironmentRegistry.discover()).addEnvironment("mage-kuhn-poker")
 *     .optPort(0).build().start()) {
 *   System.out.println(server.url());   // http://127.0.0.1:PORT
 *   ...
 * }
 * }</pre>
 *
 * <p>Robustness: it binds 127.0.0.1 unless told otherwise and runs on the hardened HTTP layer {@link JsonHttpServer}
 * (Jetty 12): idle, one-byte and never-ending clients hold no thread, silent connections close after the idle
 * timeout, bodies must arrive within the request timeout ({@link Builder#optHttpLimits}), and the HTTP layer's own
 * errors (malformed request line, chunk size or {@code Content-Length}, headers over the limit, 408) are JSON
 * {@code {"error": ..., "code": ...}}. A body over {@link Builder#optMaxBodyBytes} gets 413; a
 * malformed request gets 400 with {@code {"error": ..., "field": ...}} naming the field; an unknown environment or
 * instance id gets 404; whatever an environment throws gets 500 with {@code {"error": ..., "exception": ...}}, and
 * the server keeps serving. Calls on one instance are serialised by that instance's lock; different instances run in
 * parallel on the server's threads. An instance unused for {@link Builder#optIdleTimeout} is closed, and at most
 * {@link Builder#optMaxInstances} are open at once (503 beyond).
 */
public final class EnvServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EnvServer.class);

  private final EnvironmentRegistry registry;
  private final List<String> served;
  private final String host;
  private final int requestedPort;
  private final int maxBodyBytes;
  private final Duration idleTimeout;
  private final int maxInstances;
  private final int threads;
  private final HttpLimits limits;
  private final String apiKey;
  private final Map<Long, Instance> instances = new ConcurrentHashMap<>();
  private final AtomicLong nextId = new AtomicLong();
  private final AtomicLong answered = new AtomicLong();
  private JsonHttpServer server;
  private ScheduledExecutorService reaper;

  /** One created environment. */
  private static final class Instance {
    final long id;
    final String envId;
    final EnvironmentProvider provider;
    final Environment env;
    final PromptRenderer renderer;
    volatile long lastUsed = System.nanoTime();
    boolean closed;
    boolean reset;

    Instance(long id, String envId, EnvironmentProvider provider, Environment env, PromptRenderer renderer) {
      this.id = id;
      this.envId = envId;
      this.provider = provider;
      this.env = env;
      this.renderer = renderer;
    }
  }

  /** An HTTP error answer with a JSON body. */
  private static final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;
    final String field;

    HttpError(int status, String message, String field) {
      super(message, null, false, false);
      this.status = status;
      this.field = field;
    }
  }

  private EnvServer(Builder b) {
    this.registry = b.registry;
    this.served = List.copyOf(b.environments);
    this.host = b.host;
    this.requestedPort = b.port;
    this.maxBodyBytes = b.maxBodyBytes;
    this.idleTimeout = b.idleTimeout;
    this.maxInstances = b.maxInstances;
    this.threads = b.threads;
    this.limits = b.limits.withMaxBodyBytes(b.maxBodyBytes);
    this.apiKey = b.apiKey;
  }

  /** @return a builder */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds and starts serving.
   *
   * @return this server
   * @throws IOException if the address cannot be bound
   * @throws IllegalStateException if it was started before
   */
  public synchronized EnvServer start() throws IOException {
    if (server != null) {
      throw new IllegalStateException("the env server was started before");
    }
    JsonHttpServer s;
    try {
      s = JsonHttpServer.builder().optHost(host).optPort(requestedPort).optLimits(limits).optWorkerThreads(threads)
          .optName("mage-env-serve").optApiKey(apiKey, java.util.Set.of("/")).setErrorFormat(EnvServer::stackError).setHandler(this::handle).start();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    server = s;
    boundPort = s.port();
    reaper = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "mage-env-serve-reaper");
      t.setDaemon(true);
      return t;
    });
    long every = Math.max(50, Math.min(60_000, idleTimeout.toMillis() / 2));
    reaper.scheduleWithFixedDelay(this::closeIdle, every, every, TimeUnit.MILLISECONDS);
    LOG.info("serving {} at {}", served, url());
    return this;
  }

  private volatile int boundPort = -1;

  /** @return the port it listens (or, once closed, listened) on: the actual one when 0 was asked for */
  public int port() {
    if (boundPort < 0) {
      throw new IllegalStateException("the env server was never started");
    }
    return boundPort;
  }

  /** @return the base URL, {@code http://HOST:PORT} */
  public String url() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return "http://" + h + ":" + port();
  }

  /** @return the ids of the environments served */
  public List<String> environments() {
    return served;
  }

  /** @return how many requests were answered so far, errors included */
  public long requestsServed() {
    return answered.get();
  }

  /** @return how many instances are open */
  public int openInstances() {
    return instances.size();
  }

  /** Stops serving at once and closes every open instance. */
  @Override
  public synchronized void close() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (reaper != null) {
      reaper.shutdownNow();
    }
    for (Instance i : new ArrayList<>(instances.values())) {
      closeInstance(i);
    }
  }

  private void closeIdle() {
    long now = System.nanoTime();
    for (Instance i : new ArrayList<>(instances.values())) {
      if (now - i.lastUsed > idleTimeout.toNanos()) {
        LOG.info("closing instance {} of {}: idle for more than {} ms", i.id, i.envId, idleTimeout.toMillis());
        closeInstance(i);
      }
    }
  }

  private void closeInstance(Instance i) {
    synchronized (i) {
      if (i.closed) {
        return;
      }
      i.closed = true;
      instances.remove(i.id);
      try {
        i.env.close();
      } catch (Throwable t) {
        if (isFatal(t)) {
          throw t;
        }
        LOG.warn("closing instance {} of {} threw {}", i.id, i.envId, t.toString());
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ requests

  private HttpAnswer handle(HttpCall call) {
    int status;
    JsonElement answer;
    try {
      answer = route(call);
      status = 200;
    } catch (HttpError e) {
      status = e.status;
      JsonObject o = new JsonObject();
      o.addProperty("error", e.getMessage());
      if (e.field != null) {
        o.addProperty("field", e.field);
      }
      answer = o;
    } catch (Throwable t) {
      if (isFatal(t)) {
        LOG.error("fatal error while serving {} {}", call.method(), call.path(), t);
        throw t;   // the HTTP layer answers 500 and the error goes on
      }
      LOG.warn("{} {} failed", call.method(), call.path(), t);
      status = 500;
      JsonObject o = error("internal error: " + t);
      o.addProperty("exception", t.getClass().getName());
      answer = o;
    }
    answered.incrementAndGet();
    return new HttpAnswer(status, "application/json; charset=utf-8",
        answer.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** The body of the HTTP layer's own errors (400 for a malformed request, 408, 413, 431, ...). */
  private static String stackError(int status, String code, String message) {
    JsonObject o = error(message);
    o.addProperty("code", code);
    return o.toString();
  }

  private static JsonObject error(String message) {
    JsonObject o = new JsonObject();
    o.addProperty("error", message);
    return o;
  }

  private JsonElement route(HttpCall ex) {
    String method = ex.method();
    String path = ex.path();
    switch (path) {
      case "/":
        requireMethod(method, "GET", path);
        return new com.google.gson.JsonPrimitive("ok");
      case "/envs":
        requireMethod(method, "GET", path);
        return EnvProtocol.strings(served);
      case "/info":
        requireMethod(method, "GET", path);
        return info(provider(query(ex).get("env"), "env"));
      case "/observation": {
        requireMethod(method, "GET", path);
        Instance i = instance(queryId(ex));
        return locked(i, () -> new com.google.gson.JsonPrimitive(requireReset(i).observation()));
      }
      case "/available_actions": {
        requireMethod(method, "GET", path);
        Instance i = instance(queryId(ex));
        return locked(i, () -> EnvProtocol.strings(requireReset(i).legalActions()));
      }
      case "/create":
        requireMethod(method, "POST", path);
        return create(body(ex));
      case "/reset":
        requireMethod(method, "POST", path);
        return reset(body(ex));
      case "/restart": {
        requireMethod(method, "POST", path);
        Instance i = instance(bodyId(body(ex)));
        return locked(i, () -> {
          requireReset(i);
          i.env.restart();
          return snapshot(i);
        });
      }
      case "/step":
        requireMethod(method, "POST", path);
        return step(body(ex));
      case "/render":
        requireMethod(method, "POST", path);
        return render(body(ex));
      case "/close": {
        requireMethod(method, "POST", path);
        long id = bodyId(body(ex));
        Instance i = instances.get(id);
        JsonObject o = new JsonObject();
        if (i != null) {
          closeInstance(i);
        }
        o.addProperty("closed", i != null);
        return o;
      }
      default:
        throw new HttpError(404, "no such endpoint: " + method + " " + path + "; known: GET /, /envs, /info,"
            + " /observation, /available_actions; POST /create, /reset, /restart, /step, /render, /close", null);
    }
  }

  private static void requireMethod(String method, String expected, String path) {
    if (!expected.equals(method)) {
      throw new HttpError(405, path + " takes " + expected + ", got " + method, null);
    }
  }

  private static JsonObject body(HttpCall ex) {
    String text = ex.bodyText();
    if (text.isBlank()) {
      return new JsonObject();
    }
    JsonElement json;
    try {
      json = JsonParser.parseString(text);
    } catch (JsonParseException e) {
      throw new HttpError(400, "the request body is not valid JSON: " + ex.jsonSyntaxError(e), null);
    }
    if (!json.isJsonObject()) {
      throw new HttpError(400, "the request body must be a JSON object, got " + cut(json.toString()), null);
    }
    return json.getAsJsonObject();
  }

  private static Map<String, String> query(HttpCall ex) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = ex.rawQuery();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      out.put(k, v);
    }
    return out;
  }

  private static long queryId(HttpCall ex) {
    Map<String, String> q = query(ex);
    String v = q.containsKey("id") ? q.get("id") : q.get("env_idx");
    if (v == null) {
      throw new HttpError(400, "missing query parameter 'id' (the instance id from /create)", "id");
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new HttpError(400, "query parameter 'id' must be an integer, got '" + cut(v) + "'", "id");
    }
  }

  private static long bodyId(JsonObject body) {
    String key = body.has("id") || !body.has("env_idx") ? "id" : "env_idx";
    return protocol(() -> EnvProtocol.longValue(body, key, ""));
  }

  private EnvironmentProvider provider(String envId, String field) {
    if (envId == null || envId.isEmpty()) {
      if (served.size() == 1) {
        return registry.require(served.get(0));
      }
      throw new HttpError(400, "name the environment in '" + field + "': this server serves " + served, field);
    }
    if (!served.contains(envId)) {
      throw new HttpError(404, "unknown environment '" + envId + "'; this server serves " + served, field);
    }
    try {
      return registry.require(envId);
    } catch (PluginException e) {
      throw new HttpError(404, e.getMessage(), field);
    }
  }

  private Instance instance(long id) {
    Instance i = instances.get(id);
    if (i == null) {
      throw new HttpError(404, "no environment instance " + id + " (never created, closed, or closed after being"
          + " idle for " + idleTimeout.toMillis() + " ms)", "id");
    }
    return i;
  }

  private static Environment requireReset(Instance i) {
    if (!i.reset) {
      throw new HttpError(400, "instance " + i.id + " was never reset; POST /reset first", "id");
    }
    return i.env;
  }

  /** Runs a call on an instance under its lock; what the environment throws becomes a 500 naming the call. */
  private JsonElement locked(Instance i, java.util.function.Supplier<JsonElement> call) {
    synchronized (i) {
      if (i.closed) {
        throw new HttpError(404, "no environment instance " + i.id + " (it was closed)", "id");
      }
      i.lastUsed = System.nanoTime();
      try {
        return call.get();
      } catch (HttpError e) {
        throw e;
      } catch (Throwable t) {
        if (isFatal(t)) {
          throw t;
        }
        throw new HttpError(500, "environment '" + i.envId + "' (instance " + i.id + ") threw " + t, null);
      } finally {
        i.lastUsed = System.nanoTime();
      }
    }
  }

  private JsonObject info(EnvironmentProvider p) {
    JsonObject o = new JsonObject();
    o.addProperty("id", p.id());
    o.addProperty("version", p.version());
    o.addProperty("description", p.description());
    o.addProperty("two_player", p.twoPlayer());
    o.add("defaults", EnvProtocol.defaults(p.defaults()));
    OpponentPool pool = p.opponents();
    JsonObject opp = new JsonObject();
    JsonArray training = new JsonArray();
    for (OpponentPool.Entry e : pool.training()) {
      JsonObject t = new JsonObject();
      t.addProperty("id", e.opponent().id());
      t.addProperty("description", e.opponent().description());
      t.addProperty("weight", e.weight());
      training.add(t);
    }
    JsonArray heldOut = new JsonArray();
    for (Opponent h : pool.heldOut()) {
      JsonObject t = new JsonObject();
      t.addProperty("id", h.id());
      t.addProperty("description", h.description());
      heldOut.add(t);
    }
    opp.add("training", training);
    opp.add("held_out", heldOut);
    o.add("opponents", opp);
    o.addProperty("evaluation_opponent", p.evaluationOpponent());
    o.addProperty("evaluation_seat", p.evaluationSeat().label());
    o.add("validation_opponents", EnvProtocol.strings(p.validationOpponents()));
    JsonObject options = new JsonObject();
    p.options().forEach(options::addProperty);
    o.add("options", options);
    o.add("scripted_policies", EnvProtocol.strings(p.scriptedPolicies()));
    return o;
  }

  private JsonObject create(JsonObject body) {
    String envId = body.has("env") && !body.get("env").isJsonNull()
        ? protocol(() -> EnvProtocol.string(body, "env", "")) : null;
    EnvironmentProvider p = provider(envId, "env");
    Map<String, String> options = new LinkedHashMap<>();
    if (body.has("options") && !body.get("options").isJsonNull()) {
      JsonObject o = protocol(() -> EnvProtocol.object(body.get("options"), "options"));
      for (String k : o.keySet()) {
        options.put(k, protocol(() -> EnvProtocol.string(o, k, "options")));
      }
    }
    if (instances.size() >= maxInstances) {
      throw new HttpError(503, "this server already holds " + instances.size() + " open instances (the limit);"
          + " close some with POST /close", null);
    }
    Environment env;
    PromptRenderer renderer;
    try {
      env = p.create(options);
      if (env == null) {
        throw new IllegalStateException(p.getClass().getName() + ".create returned null");
      }
      renderer = env.promptRenderer();
    } catch (IllegalArgumentException e) {
      throw new HttpError(400, "environment '" + p.id() + "' rejected options " + options + ": " + e.getMessage(),
          "options");
    } catch (Throwable t) {
      if (isFatal(t)) {
        throw t;
      }
      throw new HttpError(500, "environment '" + p.id() + "' could not be created: " + t, null);
    }
    long id = nextId.getAndIncrement();
    instances.put(id, new Instance(id, p.id(), p, env, renderer));
    JsonObject o = new JsonObject();
    o.addProperty("id", id);
    o.addProperty("env", p.id());
    // the game's sentences travel only when its renderer is exactly the standard one, so that the client renders the
    // same prompts itself; any other renderer renders on POST /render
    if (renderer != null && renderer.getClass() == StandardPromptRenderer.class) {
      o.add("game_text", EnvProtocol.gameText(((StandardPromptRenderer) renderer).gameText()));
    }
    return o;
  }

  private JsonElement reset(JsonObject body) {
    Instance i = instance(bodyId(body));
    // the seed is required (docs/environments.md); AgentGym's 'game' and 'session_id' are accepted in its place, and
    // a body with none of the three is told about 'seed', the protocol's own name
    String seedKey = body.has("seed") ? "seed" : body.has("game") ? "game" : body.has("session_id") ? "session_id"
        : null;
    if (seedKey == null) {
      throw new HttpError(400, "field 'seed' is missing: POST /reset needs the task seed, an integer, in 'seed' (or"
          + " AgentGym's 'game' or 'session_id')", "seed");
    }
    long seed = protocol(() -> EnvProtocol.longValue(body, seedKey, ""));
    Seat seat = Seat.FIRST;
    if (body.has("seat") && !body.get("seat").isJsonNull()) {
      String s = protocol(() -> EnvProtocol.string(body, "seat", ""));
      try {
        seat = Seat.parse(s);
      } catch (IllegalArgumentException e) {
        throw new HttpError(400, "field 'seat': " + e.getMessage(), "seat");
      }
    }
    Opponent opponent = null;
    if (i.provider.twoPlayer()) {
      String id = body.has("opponent") && !body.get("opponent").isJsonNull()
          ? protocol(() -> EnvProtocol.string(body, "opponent", "")) : i.provider.evaluationOpponent();
      if (id == null || id.isEmpty()) {
        throw new HttpError(400, "environment '" + i.envId + "' is a two-player game: name the opponent in"
            + " 'opponent' (known: " + i.provider.opponents().ids() + ")", "opponent");
      }
      Optional<Opponent> o = i.provider.opponents().find(id);
      if (o.isEmpty()) {
        throw new HttpError(400, "unknown opponent '" + id + "' for environment '" + i.envId + "'; known: "
            + i.provider.opponents().ids(), "opponent");
      }
      opponent = o.get();
    } else if (body.has("opponent") && !body.get("opponent").isJsonNull()) {
      throw new HttpError(400, "environment '" + i.envId + "' is single-player and takes no opponent", "opponent");
    }
    final Seat s = seat;
    final Opponent o = opponent;
    return locked(i, () -> {
      i.env.reset(seed, o, s);
      i.reset = true;
      return snapshot(i);
    });
  }

  private JsonElement step(JsonObject body) {
    Instance i = instance(bodyId(body));
    String action = protocol(() -> EnvProtocol.string(body, "action", ""));
    return locked(i, () -> {
      Environment env = requireReset(i);
      if (env.isDone()) {
        throw new HttpError(400, "the episode of instance " + i.id + " is over; POST /restart or /reset first",
            "id");
      }
      StepResult r = env.step(action);
      JsonObject o = snapshot(i);
      o.addProperty("observation", r.observation());
      o.addProperty("reward", r.reward());
      o.addProperty("done", r.done());
      o.addProperty("won", r.won());
      o.addProperty("draw", r.draw());
      o.addProperty("action_valid", r.actionValid());
      o.addProperty("score", r.score());
      o.addProperty("action", r.action());
      o.addProperty("message", r.message());
      o.add("step_anchor", EnvProtocol.anchor(r.anchor()));
      // AgentGym's WebShop field names, for its clients
      o.addProperty("state", r.observation());
      o.add("info", JsonNull.INSTANCE);
      return o;
    });
  }

  private JsonElement render(JsonObject body) {
    Instance i = instance(bodyId(body));
    String phase = protocol(() -> EnvProtocol.string(body, "phase", ""));
    if (!phase.equals("play") && !phase.equals("reflect")) {
      throw new HttpError(400, "field 'phase' must be 'play' or 'reflect', got '" + cut(phase) + "'", "phase");
    }
    PromptContext ctx = protocol(() -> EnvProtocol.context(EnvProtocol.object(body.get("context"), "context"),
        "context"));
    if (phase.equals("reflect") && ctx.outcome() == null) {
      throw new HttpError(400, "a reflect prompt needs 'context.outcome'", "context.outcome");
    }
    return locked(i, () -> {
      String prompt = phase.equals("play") ? i.renderer.renderPlay(ctx) : i.renderer.renderReflect(ctx);
      JsonObject o = new JsonObject();
      o.addProperty("prompt", prompt);
      return o;
    });
  }

  private static JsonObject snapshot(Instance i) {
    Environment env = i.env;
    JsonObject o = new JsonObject();
    o.addProperty("id", i.id);
    o.addProperty("observation", env.observation());
    o.add("available_actions", EnvProtocol.strings(env.legalActions()));
    o.addProperty("done", env.isDone());
    o.add("anchor", EnvProtocol.anchor(env.anchor()));
    o.addProperty("state_text", String.valueOf(env.state()));
    return o;
  }

  private static <T> T protocol(java.util.function.Supplier<T> read) {
    try {
      return read.get();
    } catch (ProtocolException e) {
      throw new HttpError(400, e.getMessage(), e.field());
    }
  }

  private static boolean isFatal(Throwable t) {
    return t instanceof VirtualMachineError && !(t instanceof StackOverflowError);
  }

  private static String cut(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }

  /** Builds an {@link EnvServer}: {@code set*} for the required values, {@code opt*} and {@code add*} for the rest. */
  public static final class Builder {
    private EnvironmentRegistry registry;
    private final List<String> environments = new ArrayList<>();
    private String host = "127.0.0.1";
    private int port = 0;
    private int maxBodyBytes = 1 << 20;
    private Duration idleTimeout = Duration.ofMinutes(30);
    private int maxInstances = 4096;
    private int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private HttpLimits limits = HttpLimits.defaults();
    private String apiKey;

    private Builder() {}

    /**
     * @param v where environment ids are looked up (required)
     * @return this builder
     */
    public Builder setRegistry(EnvironmentRegistry v) {
      registry = Objects.requireNonNull(v, "registry");
      return this;
    }

    /**
     * Serves an environment of the registry; with none added, every environment of the registry is served.
     *
     * @param id an environment id
     * @return this builder
     */
    public Builder addEnvironment(String id) {
      environments.add(Objects.requireNonNull(id, "id"));
      return this;
    }

    /**
     * @param v the address to bind (default 127.0.0.1, this machine only)
     * @return this builder
     */
    public Builder optHost(String v) {
      host = Objects.requireNonNull(v, "host");
      return this;
    }

    /**
     * @param v the port, 0 for a free one (default 0)
     * @return this builder
     */
    public Builder optPort(int v) {
      port = v;
      return this;
    }

    /**
     * @param v the largest request body accepted, in bytes (default 1 MiB); larger ones get 413
     * @return this builder
     */
    public Builder optMaxBodyBytes(int v) {
      maxBodyBytes = v;
      return this;
    }

    /**
     * @param v how long an instance may go unused before the server closes it (default 30 minutes)
     * @return this builder
     */
    public Builder optIdleTimeout(Duration v) {
      idleTimeout = Objects.requireNonNull(v, "idleTimeout");
      return this;
    }

    /**
     * @param v the most instances open at once (default 4096); {@code /create} beyond gets 503
     * @return this builder
     */
    public Builder optMaxInstances(int v) {
      maxInstances = v;
      return this;
    }

    /**
     * @param v the API key every request but {@code GET /} must send as {@code Authorization: Bearer KEY} (401
     *     {@code {"error", "code": "invalid_api_key"}} without it); null for none (the default)
     * @return this builder
     */
    public Builder optApiKey(String v) {
      apiKey = v;
      return this;
    }

    /**
     * @param v the HTTP layer's timeouts and limits (default {@link HttpLimits#defaults()}: idle timeout 30 s,
     *     request timeout 60 s, 8 KiB of headers, 1024 connections); the body limit is {@link #optMaxBodyBytes}'s
     * @return this builder
     */
    public Builder optHttpLimits(HttpLimits v) {
      limits = Objects.requireNonNull(v, "limits");
      return this;
    }

    /**
     * @param v the threads answering complete requests (default the number of processors, at least 2); connections
     *     and requests still arriving hold none
     * @return this builder
     */
    public Builder optThreads(int v) {
      threads = v;
      return this;
    }

    /**
     * @return the server, not yet started
     * @throws IllegalStateException if the registry is missing
     * @throws IllegalArgumentException if a value is out of range
     * @throws PluginException if an environment id is unknown (naming the known ones)
     */
    public EnvServer build() {
      if (registry == null) {
        throw new IllegalStateException("EnvServer needs a registry (setRegistry)");
      }
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
      }
      if (maxBodyBytes < 1024) {
        throw new IllegalArgumentException("maxBodyBytes must be >= 1024, got " + maxBodyBytes);
      }
      if (idleTimeout.isNegative() || idleTimeout.isZero()) {
        throw new IllegalArgumentException("idleTimeout must be > 0, got " + idleTimeout);
      }
      if (maxInstances < 1) {
        throw new IllegalArgumentException("maxInstances must be >= 1, got " + maxInstances);
      }
      if (threads < 1 || threads > 1024) {
        throw new IllegalArgumentException("threads must be in [1, 1024], got " + threads);
      }
      org.magejvm.impl.http.JsonHttpServer.checkApiKey(apiKey); // the rule (and message) every server shares
      if (host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      if (environments.isEmpty()) {
        for (EnvironmentProvider p : registry.all()) {
          environments.add(p.id());
        }
      }
      for (String id : environments) {
        registry.require(id);
      }
      return new EnvServer(this);
    }
  }
}
