package org.magejvm.impl.agentgym;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * A small JSON-over-HTTP client for environment servers, on the JDK's {@link HttpClient} (HTTP/1.1).
 *
 * <p>Every request has the settings' timeout. A request that could not connect (connection refused, connect
 * timeout: the server never saw it) is tried again up to {@link RemoteSettings#retries()} times with a doubling
 * backoff; anything else fails at once, since repeating a step could apply it twice. Every failure is a {@link
 * RemoteEnvironmentException} naming the method, URL and request body: no connection, a timeout, an HTTP status
 * other than 200, a body that is not JSON, or an AgentGym-style {@code {"error": "..."}} answer (AgentGym's ALFWorld
 * server reports errors that way with status 200).
 *
 * <p>Thread-safe; one client may serve many environments.
 */
public final class HttpEnvClient {

  /** The most characters of a request or answer body quoted in an error message. */
  static final int QUOTE_CHARS = 300;
  /** The largest answer read, 64 MiB; a larger one is an error. */
  static final long MAX_ANSWER_BYTES = 64L << 20;

  private final RemoteSettings settings;
  private final HttpClient http;

  /**
   * @param settings where the server is and how patient to be
   */
  public HttpEnvClient(RemoteSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(settings.timeout().compareTo(Duration.ofSeconds(10)) < 0
            ? settings.timeout() : Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  /** @return the settings */
  public RemoteSettings settings() {
    return settings;
  }

  /**
   * POSTs a JSON body.
   *
   * @param path the path, for example {@code /step}
   * @param body the body
   * @return the parsed answer
   * @throws RemoteEnvironmentException naming the URL and the request on any failure
   */
  public JsonElement post(String path, JsonObject body) {
    String text = body.toString();
    URI uri = URI.create(settings.baseUrl() + path);
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(settings.timeout())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(text, StandardCharsets.UTF_8))
        .build();
    return send(request, "POST " + uri + " " + quote(text));
  }

  /**
   * GETs a path with one query parameter.
   *
   * @param path the path, for example {@code /observation}
   * @param key the parameter's name, for example {@code env_idx}
   * @param value its value
   * @return the parsed answer
   * @throws RemoteEnvironmentException naming the URL on any failure
   */
  public JsonElement get(String path, String key, String value) {
    String query = key == null ? "" : "?" + URLEncoder.encode(key, StandardCharsets.UTF_8) + "="
        + URLEncoder.encode(value, StandardCharsets.UTF_8);
    URI uri = URI.create(settings.baseUrl() + path + query);
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(settings.timeout())
        .header("Accept", "application/json")
        .GET()
        .build();
    return send(request, "GET " + uri);
  }

  private JsonElement send(HttpRequest request, String what) {
    long wait = settings.backoff().toMillis();
    for (int attempt = 0; ; attempt++) {
      Answer response;
      try {
        HttpResponse<java.io.InputStream> raw = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        response = new Answer(raw.statusCode(), readLimited(raw.body(), what));
      } catch (ConnectException | HttpConnectTimeoutException e) {
        if (attempt < settings.retries()) {
          sleep(wait, what);
          wait = Math.max(1, wait * 2);
          continue;
        }
        throw new RemoteEnvironmentException(what + ": could not connect to the environment server after "
            + (attempt + 1) + (attempt == 0 ? " attempt" : " attempts") + " (" + describe(e)
            + "); is it running?", -1, e);
      } catch (HttpTimeoutException e) {
        throw new RemoteEnvironmentException(what + ": no answer within " + settings.timeout().toMillis()
            + " ms (timeout)", -1, e);
      } catch (IOException e) {
        throw new RemoteEnvironmentException(what + ": the connection failed (" + describe(e)
            + "); the server may have stopped", -1, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RemoteEnvironmentException(what + ": interrupted while waiting for the answer", -1, e);
      }
      return parse(response, what);
    }
  }

  /** The status and text of an answer. */
  private record Answer(int statusCode, String body) {}

  private static String readLimited(java.io.InputStream in, String what) throws IOException {
    try (in) {
      byte[] bytes = in.readNBytes((int) MAX_ANSWER_BYTES + 1);
      if (bytes.length > MAX_ANSWER_BYTES) {
        throw new RemoteEnvironmentException(what + ": the answer is larger than " + MAX_ANSWER_BYTES
            + " bytes", -1, null);
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private static JsonElement parse(Answer response, String what) {
    String body = response.body() == null ? "" : response.body();
    int status = response.statusCode();
    if (status != 200) {
      throw new RemoteEnvironmentException(what + ": HTTP " + status + ": " + quote(body), status, null);
    }
    JsonElement json;
    try {
      json = JsonParser.parseString(body);
    } catch (JsonParseException e) {
      throw new RemoteEnvironmentException(what + ": the answer is not JSON: " + quote(body), status, e);
    }
    if (json.isJsonObject() && json.getAsJsonObject().has("error")) {
      throw new RemoteEnvironmentException(what + ": the server reported an error: "
          + quote(json.getAsJsonObject().get("error").toString()), status, null);
    }
    return json;
  }

  private static void sleep(long millis, String what) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RemoteEnvironmentException(what + ": interrupted while waiting to retry", -1, e);
    }
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
  }

  /**
   * @param text a body
   * @return the body cut to {@link #QUOTE_CHARS} characters, with a note when cut
   */
  static String quote(String text) {
    if (text.length() <= QUOTE_CHARS) {
      return text;
    }
    return text.substring(0, QUOTE_CHARS) + "... (" + text.length() + " characters)";
  }

  /**
   * Reads a field of an answer object, naming the request when it is missing or of the wrong kind.
   *
   * @param answer the answer
   * @param field the field
   * @param what the request, for messages
   * @return the field's value
   * @throws RemoteEnvironmentException if the answer is not an object or lacks the field
   */
  static JsonElement field(JsonElement answer, String field, String what) {
    if (answer == null || !answer.isJsonObject()) {
      throw new RemoteEnvironmentException(what + ": expected a JSON object with '" + field + "', got "
          + quote(String.valueOf(answer)), 200, null);
    }
    JsonElement v = answer.getAsJsonObject().get(field);
    if (v == null || v.isJsonNull()) {
      throw new RemoteEnvironmentException(what + ": the answer has no '" + field + "': "
          + quote(answer.toString()), 200, null);
    }
    return v;
  }

  /**
   * @param v a JSON value
   * @param field its field name
   * @param what the request, for messages
   * @return the value as a string
   * @throws RemoteEnvironmentException if it is not a string
   */
  static String string(JsonElement v, String field, String what) {
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString()) {
      throw new RemoteEnvironmentException(what + ": '" + field + "' should be a string, got "
          + quote(String.valueOf(v)), 200, null);
    }
    return v.getAsString();
  }

  /**
   * @param v a JSON value
   * @param field its field name
   * @param what the request, for messages
   * @return the value as a finite number
   * @throws RemoteEnvironmentException if it is not a finite number
   */
  static double number(JsonElement v, String field, String what) {
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()) {
      throw new RemoteEnvironmentException(what + ": '" + field + "' should be a number, got "
          + quote(String.valueOf(v)), 200, null);
    }
    double d = v.getAsDouble();
    if (!Double.isFinite(d)) {
      throw new RemoteEnvironmentException(what + ": '" + field + "' is not finite: " + v, 200, null);
    }
    return d;
  }

  /**
   * @param v a JSON value
   * @param field its field name
   * @param what the request, for messages
   * @return the value as a boolean
   * @throws RemoteEnvironmentException if it is not a boolean
   */
  static boolean bool(JsonElement v, String field, String what) {
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isBoolean()) {
      throw new RemoteEnvironmentException(what + ": '" + field + "' should be true or false, got "
          + quote(String.valueOf(v)), 200, null);
    }
    return v.getAsBoolean();
  }

  /**
   * @param v a JSON value
   * @param field its field name
   * @param what the request, for messages
   * @return the value as a list of strings
   * @throws RemoteEnvironmentException if it is not an array of strings
   */
  static java.util.List<String> strings(JsonElement v, String field, String what) {
    if (v == null || !v.isJsonArray()) {
      throw new RemoteEnvironmentException(what + ": '" + field + "' should be a list of strings, got "
          + quote(String.valueOf(v)), 200, null);
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    for (JsonElement e : v.getAsJsonArray()) {
      out.add(string(e, field + "[]", what));
    }
    return java.util.List.copyOf(out);
  }
}
