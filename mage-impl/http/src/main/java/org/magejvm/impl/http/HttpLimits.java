package org.magejvm.impl.http;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits a {@link JsonHttpServer} enforces on every connection and request, so that no client, slow, idle or
 * malformed, can hold the server or its threads.
 *
 * @param idleTimeout how long a connection may stay silent (no byte read or written) before it is closed; a request
 *     whose body stalls that long gets 408
 * @param requestTimeout how long a request may take from its headers to the last byte of its body (a client that
 *     trickles its body gets 408 once it is over); the time to generate the answer is not counted
 * @param maxHeaderBytes the largest request line plus headers; larger ones get 431 (414 for a long request line)
 * @param maxBodyBytes the largest request body; larger ones get 413, declared ({@code Content-Length}) or not
 *     (chunked)
 * @param maxConnections the most connections open at once; beyond it the server stops accepting until one closes
 *     (new clients wait in the operating system's accept queue)
 * @param acceptQueue the operating system's accept queue length (the listen backlog)
 */
public record HttpLimits(Duration idleTimeout, Duration requestTimeout, int maxHeaderBytes, long maxBodyBytes,
    int maxConnections, int acceptQueue) {

  /** The default idle timeout: 30 s. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
  /** The default request timeout: 60 s. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
  /** The default header limit: 8 KiB, as Jetty and most servers. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 8 * 1024;
  /** The default body limit: 1 MiB. */
  public static final long DEFAULT_MAX_BODY_BYTES = 1 << 20;
  /** The default connection limit: 1024. */
  public static final int DEFAULT_MAX_CONNECTIONS = 1024;

  /**
   * Checks the values.
   *
   * @param idleTimeout the idle timeout, &gt; 0
   * @param requestTimeout the request timeout, &gt; 0
   * @param maxHeaderBytes the header limit, at least 1024
   * @param maxBodyBytes the body limit, at least 1
   * @param maxConnections the connection limit, at least 1
   * @param acceptQueue the listen backlog, at least 1
   */
  public HttpLimits {
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    if (idleTimeout.isNegative() || idleTimeout.isZero() || requestTimeout.isNegative()
        || requestTimeout.isZero()) {
      throw new IllegalArgumentException("idleTimeout and requestTimeout must be > 0, got " + idleTimeout + ", "
          + requestTimeout);
    }
    if (maxHeaderBytes < 1024) {
      throw new IllegalArgumentException("maxHeaderBytes must be >= 1024, got " + maxHeaderBytes);
    }
    if (maxBodyBytes < 1 || maxBodyBytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("maxBodyBytes must be in [1, 2^31 - 9], got " + maxBodyBytes);
    }
    if (maxConnections < 1 || acceptQueue < 1) {
      throw new IllegalArgumentException("maxConnections and acceptQueue must be >= 1, got " + maxConnections + ", "
          + acceptQueue);
    }
  }

  /** @return idle timeout 30 s, request timeout 60 s, headers 8 KiB, body 1 MiB, 1024 connections, backlog 128 */
  public static HttpLimits defaults() {
    return new HttpLimits(DEFAULT_IDLE_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_HEADER_BYTES,
        DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, 128);
  }

  /**
   * @param v the idle timeout
   * @return these limits with it
   */
  public HttpLimits withIdleTimeout(Duration v) {
    return new HttpLimits(v, requestTimeout, maxHeaderBytes, maxBodyBytes, maxConnections, acceptQueue);
  }

  /**
   * @param v the request timeout
   * @return these limits with it
   */
  public HttpLimits withRequestTimeout(Duration v) {
    return new HttpLimits(idleTimeout, v, maxHeaderBytes, maxBodyBytes, maxConnections, acceptQueue);
  }

  /**
   * @param v the header limit in bytes
   * @return these limits with it
   */
  public HttpLimits withMaxHeaderBytes(int v) {
    return new HttpLimits(idleTimeout, requestTimeout, v, maxBodyBytes, maxConnections, acceptQueue);
  }

  /**
   * @param v the body limit in bytes
   * @return these limits with it
   */
  public HttpLimits withMaxBodyBytes(long v) {
    return new HttpLimits(idleTimeout, requestTimeout, maxHeaderBytes, v, maxConnections, acceptQueue);
  }

  /**
   * @param v the connection limit
   * @return these limits with it
   */
  public HttpLimits withMaxConnections(int v) {
    return new HttpLimits(idleTimeout, requestTimeout, maxHeaderBytes, maxBodyBytes, v, acceptQueue);
  }

  /**
   * @param v the listen backlog
   * @return these limits with it
   */
  public HttpLimits withAcceptQueue(int v) {
    return new HttpLimits(idleTimeout, requestTimeout, maxHeaderBytes, maxBodyBytes, maxConnections, v);
  }
}
