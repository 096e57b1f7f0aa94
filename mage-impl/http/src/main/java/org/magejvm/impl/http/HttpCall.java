package org.magejvm.impl.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

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
}
