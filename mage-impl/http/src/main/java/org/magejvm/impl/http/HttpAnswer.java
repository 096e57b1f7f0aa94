package org.magejvm.impl.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a {@link JsonHttpServer.Handler} answers: a status, a content type and the whole body.
 *
 * @param status the HTTP status
 * @param contentType the {@code Content-Type} header
 * @param body the body
 */
public record HttpAnswer(int status, String contentType, byte[] body) {

  /**
   * Checks the status and nulls.
   *
   * @param status the HTTP status
   * @param contentType the content type
   * @param body the body
   */
  public HttpAnswer {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("status must be in [100, 599], got " + status);
    }
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
  }

  /**
   * @param status the HTTP status
   * @param json a JSON document
   * @return an {@code application/json} answer
   */
  public static HttpAnswer json(int status, String json) {
    return new HttpAnswer(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @param status the HTTP status
   * @param text plain text
   * @return a {@code text/plain; charset=utf-8} answer
   */
  public static HttpAnswer text(int status, String text) {
    return new HttpAnswer(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
  }
}
