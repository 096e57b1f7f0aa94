package org.magejvm.impl.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTP/1.1 server for JSON APIs that holds on hostile networks, on Jetty 12's non-blocking core server (no
 * servlet API): the HTTP layer of {@code mage serve} and {@code mage env-serve}.
 *
 * <ul>
 *   <li><b>No thread per connection.</b> Connections, headers and bodies are read by Jetty's selector without
 *       blocking a thread; only a request whose whole body has arrived reaches the {@link Handler}, on a fixed pool
 *       of worker threads. An idle client, one that sent one byte, or one whose chunked body never ends holds a
 *       connection slot and a few kilobytes, never a worker, so the next well-formed request is answered at once.
 *   <li><b>Timeouts.</b> A connection silent for {@link HttpLimits#idleTimeout} is closed (408 when a request body
 *       was being read); a body not complete {@link HttpLimits#requestTimeout} after its headers gets 408.
 *   <li><b>Sizes.</b> Request line and headers beyond {@link HttpLimits#maxHeaderBytes} get 431 (414 for the
 *       request line alone); a body beyond {@link HttpLimits#maxBodyBytes} gets 413, whether declared or chunked;
 *       at most {@link HttpLimits#maxConnections} connections are open at once.
 *   <li><b>An API key</b> ({@link Builder#optApiKey}): every path but the open ones (health checks) needs {@code
 *       Authorization: Bearer KEY}, else 401 before the body is read; keys are compared in constant time.
 *   <li><b>Streamed answers</b> ({@link HttpAnswer#stream}) are sent with chunked transfer encoding, each part as
 *       the handler writes it, on the handler's worker thread; a client that goes away ends the stream with an
 *       {@link IOException} in the handler, and the connection is closed.
 *   <li><b>Errors are JSON.</b> Every error answer, the HTTP stack's own included (a malformed request line, chunk
 *       size or {@code Content-Length}, too many headers, a timeout), has a JSON body in the caller's {@link
 *       ErrorFormat}, with {@code Connection: close} where the rest of the connection cannot be trusted.
 * </ul>
 *
 * <p>Malformed input that leaves no request to answer (a client that sends nothing, or part of a request line and
 * then waits) is closed at the idle timeout without an answer: HTTP has no status for it.
 */
public final class JsonHttpServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JsonHttpServer.class);

  /** Answers one complete request; runs on a worker thread and may block (for example on generation). */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param call the request, with its whole body
     * @return the answer
     * @throws Exception when the request cannot be answered; the client gets 500 in the {@link ErrorFormat}
     */
    HttpAnswer handle(HttpCall call) throws Exception;
  }

  /** Writes an error answer's JSON body in the server's own error format. */
  @FunctionalInterface
  public interface ErrorFormat {
    /**
     * @param status the HTTP status
     * @param code a short machine-readable code, such as {@code bad_request}, {@code request_timeout}, {@code
     *     request_too_large}, {@code headers_too_large}
     * @param message what went wrong, for a person
     * @return the JSON body
     */
    String render(int status, String code, String message);
  }

  private final Server server;
  private final ServerConnector connector;
  private final ThreadPoolExecutor workers;
  private final Handler handler;
  private final ErrorFormat errors;
  private final HttpLimits limits;
  private final String host;
  private final byte[] apiKey;
  private final Set<String> openPaths;

  private JsonHttpServer(Builder b) throws Exception {
    this.handler = b.handler;
    this.errors = b.errors;
    this.limits = b.limits;
    this.host = b.host;
    this.apiKey = b.apiKey == null ? null : ("Bearer " + b.apiKey).getBytes(StandardCharsets.UTF_8);
    this.openPaths = Set.copyOf(b.openPaths);
    AtomicInteger n = new AtomicInteger();
    this.workers = new ThreadPoolExecutor(b.workerThreads, b.workerThreads, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, b.name + "-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    QueuedThreadPool io = new QueuedThreadPool(32, 2);
    io.setName(b.name + "-io");
    io.setDaemon(true);
    io.setReservedThreads(0);
    this.server = new Server(io);
    HttpConfiguration config = new HttpConfiguration();
    config.setRequestHeaderSize(limits.maxHeaderBytes());
    config.setSendServerVersion(false);
    config.setSendXPoweredBy(false);
    // no leniency: bare LF line ends, obsolete line folding, a body with both Content-Length and chunked encoding
    // and the like are 400s; a proxy in front might read them another way (request smuggling)
    config.setHttpCompliance(HttpCompliance.STRICT);
    this.connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
    connector.setHost(b.host);
    connector.setPort(b.port);
    connector.setIdleTimeout(limits.idleTimeout().toMillis());
    connector.setAcceptQueueSize(limits.acceptQueue());
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
    server.setErrorHandler(new JsonErrors());
    server.setHandler(new Dispatch());
    server.setStopTimeout(0);
    try {
      server.start();
    } catch (Exception e) {
      workers.shutdownNow();
      try {
        server.stop();
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the port it listens on (the one chosen when built with port 0) */
  public int port() {
    return connector.getLocalPort();
  }

  /** @return the address it is bound to */
  public InetSocketAddress address() {
    return new InetSocketAddress(host, port());
  }

  /** @return the limits it enforces */
  public HttpLimits limits() {
    return limits;
  }

  /** @return how many connections are open now */
  public int openConnections() {
    return connector.getConnectedEndPoints().size();
  }

  /**
   * Stops listening, closes every connection and stops the worker threads (interrupting handlers still running).
   * Idempotent.
   */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.debug("stopping the HTTP server: {}", e.toString());
    }
    workers.shutdownNow();
  }

  /**
   * Checks an API key as {@link Builder#optApiKey} does, for a server's own builder that takes the key before it
   * builds this one (so that a bad key fails where it is given, with the same message).
   *
   * @param key the key, or null for none
   * @return {@code key}
   * @throws IllegalArgumentException when the key is blank or begins or ends with white space
   */
  public static String checkApiKey(String key) {
    if (key != null && (key.isBlank() || !key.strip().equals(key))) {
      throw new IllegalArgumentException("the API key must not be blank or begin or end with white space");
    }
    return key;
  }

  // ------------------------------------------------------------------------------------------------ internals

  private byte[] errorBody(int status, String message) {
    return errors.render(status, codeOf(status), message).getBytes(StandardCharsets.UTF_8);
  }

  /** @return the code an error of the HTTP layer carries */
  static String codeOf(int status) {
    switch (status) {
      case 400:
        return "bad_request";
      case 401:
        return "invalid_api_key";
      case 408:
        return "request_timeout";
      case 413:
        return "request_too_large";
      case 414:
        return "uri_too_long";
      case 431:
        return "headers_too_large";
      case 501:
        return "not_implemented";
      case 503:
        return "server_busy";
      case 505:
        return "http_version_not_supported";
      default:
        return status >= 500 ? "server_error" : "http_" + status;
    }
  }

  private static String describe(int status, String reason) {
    String what = HttpStatus.getMessage(status);
    String detail = reason == null || reason.isBlank() || reason.equals(what) ? "" : ": " + reason;
    switch (status) {
      case 400:
        return "malformed HTTP request" + detail;
      case 414:
        return "the request line is too long" + detail;
      case 431:
        return "the request headers are too large" + detail;
      default:
        return what + detail;
    }
  }

  private void writeError(Response response, Callback callback, int status, String message) {
    byte[] body = errorBody(status, message);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /** Turns Jetty's own error answers (parser errors, failures before the handler answers) into JSON. */
  private final class JsonErrors extends ErrorHandler {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      Object s = request.getAttribute(ERROR_STATUS);
      int status = s instanceof Integer ? (Integer) s : response.getStatus();
      Object m = request.getAttribute(ERROR_MESSAGE);
      Object cause = request.getAttribute(ERROR_EXCEPTION);
      String reason = m instanceof String ? (String) m : cause instanceof Throwable ? ((Throwable) cause).getMessage()
          : null;
      String message = describe(status, reason);
      if (status == HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505) {
        // Jetty's parser answers 505 for a request line without a version (HTTP/0.9, "GET /health") or with one it
        // cannot read ("FOO/1.1"): both are malformed request lines, a 400 bad_request (serving.md)
        status = HttpStatus.BAD_REQUEST_400;
        message = "malformed HTTP request: the request line must end with the version HTTP/1.1 (or HTTP/1.0), as in"
            + " 'GET /health HTTP/1.1'" + (reason != null && reason.contains("0.9") ? "; HTTP/0.9 is not supported"
            : "");
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
      }
      byte[] body = errorBody(status, message);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
      response.write(true, ByteBuffer.wrap(body), callback);
      return true;
    }
  }

  /** Reads each request's body without blocking, then hands the request to a worker. */
  private final class Dispatch extends org.eclipse.jetty.server.Handler.Abstract.NonBlocking {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      if (apiKey != null && !openPaths.contains(request.getHttpURI().getDecodedPath())) {
        String given = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        if (given == null || !MessageDigest.isEqual(apiKey, given.getBytes(StandardCharsets.UTF_8))) {
          response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
          writeError(response, callback, 401, given == null ? "this server needs an API key: send the header"
              + " 'Authorization: Bearer KEY'" : "the API key in the Authorization header is not this server's");
          return true;
        }
      }
      long declared = request.getLength();
      if (declared > limits.maxBodyBytes()) {
        writeError(response, callback, 413, "the request body of " + declared + " bytes is over this server's"
            + " limit of " + limits.maxBodyBytes() + " bytes");
        return true;
      }
      new BodyReader(request, response, callback).start();
      return true;
    }
  }

  /** Collects one request body as it arrives, within the size limit and the request timeout. */
  private final class BodyReader implements Runnable {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private final AtomicBoolean settled = new AtomicBoolean();
    private Scheduler.Task timeout;

    BodyReader(Request request, Response response, Callback callback) {
      this.request = request;
      this.response = response;
      this.callback = callback;
    }

    void start() {
      timeout = request.getComponents().getScheduler().schedule(() -> {
        if (settled.compareAndSet(false, true)) {
          writeError(response, callback, 408, "the request body did not arrive within "
              + limits.requestTimeout().toMillis() + " ms");
        }
      }, limits.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
      run();
    }

    @Override
    public void run() {
      while (!settled.get()) {
        Content.Chunk chunk = request.read();
        if (chunk == null) {
          request.demand(this);
          return;
        }
        if (Content.Chunk.isFailure(chunk)) {
          failed(chunk.getFailure());
          return;
        }
        boolean last = chunk.isLast();
        int n = chunk.remaining();
        if ((long) body.size() + n > limits.maxBodyBytes()) {
          chunk.release();
          if (settle()) {
            writeError(response, callback, 413, "the request body is over this server's limit of "
                + limits.maxBodyBytes() + " bytes");
          }
          return;
        }
        if (n > 0) {
          ByteBuffer b = chunk.getByteBuffer();
          byte[] copy = new byte[n];
          b.get(copy);
          body.write(copy, 0, n);
        }
        chunk.release();
        if (last) {
          if (settle()) {
            dispatch(body.toByteArray());
          }
          return;
        }
      }
    }

    private boolean settle() {
      if (!settled.compareAndSet(false, true)) {
        return false;
      }
      timeout.cancel();
      return true;
    }

    private void failed(Throwable failure) {
      if (!settle()) {
        return;
      }
      if (failure instanceof HttpException) {
        HttpException e = (HttpException) failure;
        boolean chunked = request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING, "chunked");
        long declared = request.getLength();
        // the headers were fine, so what broke is the body's framing; Jetty's reason alone ("Early EOF") hides that
        writeError(response, callback, e.getCode(), e.getCode() == 400 && chunked
            ? "malformed chunked request body (a chunk size must be hexadecimal, each chunk end with CRLF): "
                + e.getReason()
            : e.getCode() == 400 && declared >= 0 && body.size() < declared
            ? "the request body ended after " + body.size() + " of its Content-Length of " + declared + " bytes:"
                + " the client closed its side of the connection before sending the rest"
            : describe(e.getCode(), e.getReason()));
      } else if (failure instanceof TimeoutException) {
        writeError(response, callback, 408, "the connection was idle for more than "
            + limits.idleTimeout().toMillis() + " ms while the request body was read");
      } else {
        // the client went away or the connection broke: there is no one to answer
        callback.failed(failure);
      }
    }

    private void dispatch(byte[] bytes) {
      Map<String, String> headers = new LinkedHashMap<>();
      for (HttpField f : request.getHeaders()) {
        headers.putIfAbsent(f.getLowerCaseName(), f.getValue());
      }
      String path = request.getHttpURI().getDecodedPath();
      HttpCall call = new HttpCall(request.getMethod(), path == null ? "/" : path, request.getHttpURI().getQuery(),
          headers, bytes);
      try {
        workers.execute(() -> answer(call, response, callback));
      } catch (RejectedExecutionException e) {
        writeError(response, callback, 503, "the server is shutting down");
      }
    }
  }

  private void answer(HttpCall call, Response response, Callback callback) {
    HttpAnswer a;
    try {
      a = handler.handle(call);
    } catch (Throwable e) {
      LOG.error("{} {} failed", call.method(), call.path(), e);
      writeError(response, callback, 500, "internal error: " + e);
      if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
        throw (VirtualMachineError) e;   // answered; the JVM may be unusable, so the error goes on
      }
      return;
    }
    response.setStatus(a.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, a.contentType());
    if (a.streamer() != null) {
      stream(call, a.streamer(), response, callback);
      return;
    }
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, a.body().length);
    response.write(true, ByteBuffer.wrap(a.body()), callback);
  }

  /**
   * Sends a streamed answer: headers without a length (chunked), then each part as the streamer writes it, each
   * write blocking this worker until Jetty has written it; a client that went away or stopped reading fails the
   * write (at once, or at the idle timeout), which ends the streamer with an {@link IOException}.
   */
  private void stream(HttpCall call, HttpAnswer.Streamer streamer, Response response, Callback callback) {
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    HttpAnswer.HttpStream out = part -> Content.Sink.write(response, false, ByteBuffer.wrap(part));
    try {
      streamer.stream(out);
      Content.Sink.write(response, true, ByteBuffer.allocate(0));
      callback.succeeded();
    } catch (IOException e) {
      LOG.debug("{} {}: the client went away while the answer was streamed: {}", call.method(), call.path(),
          e.toString());
      callback.failed(e);
    } catch (Throwable e) {
      LOG.error("{} {}: streaming the answer failed", call.method(), call.path(), e);
      callback.failed(e);
      if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
        throw (VirtualMachineError) e;
      }
    }
  }

  /** Builds and starts a {@link JsonHttpServer}: the handler and the error format are required. */
  public static final class Builder {
    private Handler handler;
    private ErrorFormat errors;
    private String host = "127.0.0.1";
    private int port;
    private HttpLimits limits = HttpLimits.defaults();
    private int workerThreads = 16;
    private String name = "mage-http";
    private String apiKey;
    private Set<String> openPaths = Set.of();

    private Builder() {}

    /**
     * Requires an API key: every request to a path other than {@code openPaths} must carry {@code Authorization:
     * Bearer KEY}, else it gets 401 (code {@code invalid_api_key}) without its body being read.
     *
     * @param key the key, not blank; null for none (the default)
     * @param openPaths paths served without the key, such as {@code /health}
     * @return this builder
     * @throws IllegalArgumentException when the key is blank or begins or ends with white space
     */
    public Builder optApiKey(String key, Set<String> openPaths) {
      this.apiKey = checkApiKey(key);
      this.openPaths = Set.copyOf(openPaths);
      return this;
    }

    /**
     * @param h answers complete requests (on a worker thread)
     * @return this builder
     */
    public Builder setHandler(Handler h) {
      this.handler = Objects.requireNonNull(h, "handler");
      return this;
    }

    /**
     * @param f writes the JSON body of every error answer, the HTTP layer's own included
     * @return this builder
     */
    public Builder setErrorFormat(ErrorFormat f) {
      this.errors = Objects.requireNonNull(f, "errorFormat");
      return this;
    }

    /**
     * @param h the address to bind (default 127.0.0.1)
     * @return this builder
     */
    public Builder optHost(String h) {
      this.host = Objects.requireNonNull(h, "host");
      return this;
    }

    /**
     * @param p the port, 0 for a free one (default 0)
     * @return this builder
     */
    public Builder optPort(int p) {
      this.port = p;
      return this;
    }

    /**
     * @param l the limits (default {@link HttpLimits#defaults()})
     * @return this builder
     */
    public Builder optLimits(HttpLimits l) {
      this.limits = Objects.requireNonNull(l, "limits");
      return this;
    }

    /**
     * @param n the worker threads that run the handler, the most requests answered at once (default 16); complete
     *     requests beyond wait in a queue, which the connection limit bounds
     * @return this builder
     */
    public Builder optWorkerThreads(int n) {
      this.workerThreads = n;
      return this;
    }

    /**
     * @param n the prefix of the threads' names (default {@code mage-http})
     * @return this builder
     */
    public Builder optName(String n) {
      this.name = Objects.requireNonNull(n, "name");
      return this;
    }

    /**
     * Binds and starts the server.
     *
     * @return the running server
     * @throws IllegalStateException when the handler or the error format is missing, or a value is out of range
     * @throws UncheckedIOException when the address cannot be bound
     */
    public JsonHttpServer start() {
      if (handler == null || errors == null) {
        throw new IllegalStateException("setHandler(...) and setErrorFormat(...) are required");
      }
      if (port < 0 || port > 65_535) {
        throw new IllegalStateException("port must be in [0, 65535], got " + port);
      }
      if (workerThreads < 1 || workerThreads > 4096) {
        throw new IllegalStateException("workerThreads must be in [1, 4096], got " + workerThreads);
      }
      try {
        return new JsonHttpServer(this);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new UncheckedIOException("cannot start the HTTP server on " + host + ":" + port + ": " + e,
            new IOException(e));
      }
    }
  }

  @Override
  public String toString() {
    return "JsonHttpServer[" + host + ":" + port() + ", " + limits + "]";
  }
}
