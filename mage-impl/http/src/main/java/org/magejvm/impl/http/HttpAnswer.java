package org.magejvm.impl.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a {@link JsonHttpServer.Handler} answers: a status, a content type and either the whole body or, for a
 * streamed answer ({@link #stream}), a {@link Streamer} that writes the body in parts after the status and headers
 * have been sent.
 *
 * @param status the HTTP status
 * @param contentType the {@code Content-Type} header
 * @param body the body; empty for a streamed answer
 * @param streamer writes a streamed body part by part, or null for an answer whose whole body is {@code body}
 */
public record HttpAnswer(int status, String contentType, byte[] body, Streamer streamer) {

  /**
   * Writes the parts of a streamed body. It runs on the worker thread that ran the handler, after the status and
   * headers were sent (so it can no longer change them), and the answer ends when it returns.
   */
  @FunctionalInterface
  public interface Streamer {
    /**
     * @param out where the parts go; each {@link HttpStream#write} blocks until the part is written
     * @throws Exception when the body cannot be completed; the connection is then closed without the final chunk, so
     *     the client sees a cut answer rather than a complete one
     */
    void stream(HttpStream out) throws Exception;
  }

  /** The open body of a streamed answer. */
  public interface HttpStream {
    /**
     * Writes one part and sends it at once (chunked transfer encoding).
     *
     * @param part the bytes
     * @throws java.io.IOException when the client has gone away, or has not read for the idle timeout
     */
    void write(byte[] part) throws java.io.IOException;

    /**
     * Writes text as UTF-8, as {@link #write(byte[])}.
     *
     * @param part the text
     * @throws java.io.IOException when the client has gone away, or has not read for the idle timeout
     */
    default void write(String part) throws java.io.IOException {
      write(part.getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * Checks the status and nulls.
   *
   * @param status the HTTP status
   * @param contentType the content type
   * @param body the body
   * @param streamer the streamer of a streamed answer, or null
   */
  public HttpAnswer {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("status must be in [100, 599], got " + status);
    }
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
  }

  /**
   * An answer whose whole body is known.
   *
   * @param status the HTTP status
   * @param contentType the content type
   * @param body the body
   */
  public HttpAnswer(int status, String contentType, byte[] body) {
    this(status, contentType, body, null);
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

  /**
   * A streamed answer, sent with chunked transfer encoding and {@code Cache-Control: no-cache}, such as Server-Sent
   * Events ({@code text/event-stream}).
   *
   * @param status the HTTP status
   * @param contentType the content type
   * @param streamer writes the body's parts
   * @return the answer
   */
  public static HttpAnswer stream(int status, String contentType, Streamer streamer) {
    return new HttpAnswer(status, contentType, new byte[0], Objects.requireNonNull(streamer, "streamer"));
  }
}
