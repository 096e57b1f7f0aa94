package org.magejvm.impl.agentgym;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A tiny stand-in for an AgentGym environment server on a loopback port: it records every request and answers with
 * what the test's script returns, shaped like AgentGym's own servers ({@code agentenv_webshop/server.py}, {@code
 * agentenv_alfworld/server.py}). Python is never called.
 */
final class FakeAgentGymServer implements AutoCloseable {

  /** A recorded request. */
  record Request(String method, String path, String query, JsonElement body) {}

  /** A scripted answer: status and body text. */
  record Answer(int status, String body, long delayMillis) {
    static Answer ok(String body) {
      return new Answer(200, body, 0);
    }
  }

  final List<Request> requests = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  FakeAgentGymServer(Function<Request, Answer> script) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext("/", ex -> handle(ex, script));
    server.start();
  }

  private void handle(HttpExchange ex, Function<Request, Answer> script) throws IOException {
    String text = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    JsonElement body = text.isBlank() ? null : JsonParser.parseString(text);
    Request r = new Request(ex.getRequestMethod(), ex.getRequestURI().getPath(), ex.getRequestURI().getQuery(), body);
    requests.add(r);
    Answer a = script.apply(r);
    if (a.delayMillis() > 0) {
      try {
        Thread.sleep(a.delayMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    byte[] bytes = a.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(a.status(), bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<Request> requests(String path) {
    return requests.stream().filter(r -> r.path().equals(path)).toList();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
