package org.magejvm.impl.openai;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** A scripted HTTP server on a loopback port: answers each request with what the script says, and records it. */
final class FakeServer implements AutoCloseable {

  /** One answer. */
  record Reply(int status, String body, long delayMillis) {
    static Reply ok(String body) {
      return new Reply(200, body, 0);
    }
  }

  /** Chooses the answer to a request. */
  interface Script {
    Reply answer(int hit, String path, String body);
  }

  /** One recorded request. */
  record Hit(String path, String body) {}

  private final HttpServer server;
  final List<Hit> hits = new CopyOnWriteArrayList<>();
  private final AtomicInteger count = new AtomicInteger();

  FakeServer(Script script) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-server");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/", ex -> {
      try (ex) {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String path = ex.getRequestURI().getPath();
        hits.add(new Hit(path, body));
        Reply r = script.answer(count.incrementAndGet(), path, body);
        if (r.delayMillis() > 0) {
          try {
            Thread.sleep(r.delayMillis());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
        byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(r.status(), bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(bytes);
        }
      } catch (IOException ignored) {
        // the client went away
      }
    });
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  int hitCount() {
    return hits.size();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
