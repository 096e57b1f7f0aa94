package org.magejvm.impl.http;

import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A request whose headers and whole body have arrived: what a {@link JsonHttpServer.Handler} answers.
 *
 * @param method the method, as sent ({@code GET}, {@code POST})
 * @param path the decoded path, such as {@code /v1/completions}
 * @param rawQuery the raw query string without {@code ?}, or null
 * @param headers the request headers, names in lower case (the first value of each)
 * @param body the body, empty when there was none
 */
public record HttpCall(String method, String path, String rawQuery, Map<String, String> headers, byte[] body) {

  /**
   * Checks for nulls and copies the headers.
   *
   * @param method the method
   * @param path the decoded path
   * @param rawQuery the raw query, or null
   * @param headers the headers by lower-case name
   * @param body the body
   */
  public HttpCall {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    headers = Map.copyOf(headers);
    Objects.requireNonNull(body, "body");
  }

  /**
   * @param name a header name, in any case
   * @return its first value, or null
   */
  public String header(String name) {
    return headers.get(name.toLowerCase(java.util.Locale.ROOT));
  }

  /** @return the body decoded as UTF-8 */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /**
   * Says why this request's body is not valid JSON, for the client: the JSON parser's reason without Java class
   * names or the parser's advice to Java programmers, and, for a body that ends before its JSON value does, that the
   * server read as many bytes as its {@code Content-Length} declares (a {@code Content-Length} smaller than the JSON
   * sent cuts it there). Callers prefix it: {@code "the request body is not valid JSON: " +
   * call.jsonSyntaxError(e)}.
   *
   * @param parseError what the JSON parser threw (Gson's {@code JsonParseException}, for example)
   * @return the reason, one line, never a class name
   */
  public String jsonSyntaxError(Throwable parseError) {
    Throwable inner = parseError;
    while (inner.getCause() != null && inner.getCause() != inner) {
      inner = inner.getCause();
    }
    String reason = inner.getMessage() == null ? parseError.getMessage() : inner.getMessage();
    reason = reason == null ? "" : reason.strip();
    int nl = reason.indexOf('\n');
    if (nl >= 0) {
      reason = reason.substring(0, nl).strip();   // Gson adds a line with a link to its troubleshooting page
    }
    reason = JAVA_CLASS.matcher(reason).replaceAll("").strip();
    reason = reason.replace("Use JsonReader.setStrictness(Strictness.LENIENT) to accept malformed JSON",
        "text after the JSON value");
    if (inner instanceof EOFException || reason.startsWith("End of input")) {
      String where = reason.startsWith("End of input") ? reason.substring("End of input".length()).strip() : "";
      String declared = header("content-length");
      return "it ends before its JSON value is complete" + (where.isEmpty() ? "" : " (" + where + ")")
          + (declared == null ? "" : "; the server read the " + declared.strip() + " bytes its Content-Length"
              + " declares, so the JSON sent may be longer than its Content-Length");
    }
    return reason.isEmpty() ? "the JSON parser gave no reason" : reason;
  }

  /** A fully qualified Java class name of an exception or error, with the colon after it. */
  private static final Pattern JAVA_CLASS = Pattern.compile(
      "\\b(?:[a-z_$][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error)\\b:?\\s*");
}
