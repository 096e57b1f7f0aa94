package org.magejvm.impl.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.testkit.HostileClients;

/** The HTTP layer on its own, with an echo handler, against idle, slow and malformed clients on loopback. */
class JsonHttpServerTest {

  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static String errorJson(int status, String code, String message) {
    return "{\"error\":{\"status\":" + status + ",\"code\":\"" + code + "\",\"message\":\""
        + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}}";
  }

  static JsonHttpServer echo(HttpLimits limits) {
    return JsonHttpServer.builder().setErrorFormat(JsonHttpServerTest::errorJson).optLimits(limits).optWorkerThreads(2)
        .setHandler(call -> call.path().equals("/echo")
            ? HttpAnswer.json(200, "{\"method\":\"" + call.method() + "\",\"bytes\":" + call.body().length + "}")
            : HttpAnswer.json(404, errorJson(404, "unknown_path", "no route " + call.path())))
        .start();
  }

  static HttpResponse<String> post(JsonHttpServer s, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/echo"))
        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void idleAndEndlessClientsDoNotDelayAWellFormedRequest() throws Exception {
    try (JsonHttpServer s = echo(HttpLimits.defaults()); HostileClients hostile = new HostileClients(s.port())) {
      hostile.openOneByteConnections(200);
      hostile.openEndlessChunkedBodies(50, "/echo");
      long start = System.nanoTime();
      HttpResponse<String> r = post(s, "{\"x\":1}");
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("{\"method\":\"POST\",\"bytes\":7}");
      assertThat(millis).as("answered with 250 hostile connections open").isLessThan(2000);
      assertThat(hostile.stillOpen()).isEqualTo(250);
    }
  }

  @Test
  void malformedRequestsGetAJson4xxAndTheServerGoesOn() throws Exception {
    try (JsonHttpServer s = echo(HttpLimits.defaults())) {
      String before = post(s, "{}").body();
      for (Map.Entry<String, byte[]> e : HostileClients.malformedRequests("/echo").entrySet()) {
        HostileClients.Answer a = HostileClients.exchange(s.port(), e.getValue(), Duration.ofSeconds(5));
        assertThat(a.status()).as(e.getKey() + ": " + a).isBetween(400, 499);
        assertThat(a.headers().get("content-type")).as(e.getKey()).startsWith("application/json");
        assertThat(a.body()).as(e.getKey()).startsWith("{\"error\":{\"status\":" + a.status() + ",\"code\":\"");
        assertThat(a.millis()).as(e.getKey()).isLessThan(5000);
        if (e.getKey().contains("chunk")) {
          assertThat(a.body()).as(e.getKey()).contains("malformed chunked request body");
        }
      }
      assertThat(post(s, "{}").body()).isEqualTo(before);
    }
  }

  @Test
  void aRequestLineWithoutAVersionGets400BadRequestNot505() throws Exception {
    // HTTP/0.9's request line (no version) and an unreadable version: Jetty's parser says 505, serving.md says 400
    try (JsonHttpServer s = echo(HttpLimits.defaults())) {
      for (String line : new String[] {"GET /health\r\n\r\n", "GET /echo FOO/1.1\r\nHost: x\r\n\r\n"}) {
        HostileClients.Answer a = HostileClients.exchange(s.port(), line.getBytes(StandardCharsets.US_ASCII),
            Duration.ofSeconds(5));
        assertThat(a.status()).as(line + ": " + a).isEqualTo(400);
        assertThat(a.headers().get("content-type")).as(line).startsWith("application/json");
        assertThat(a.body()).as(line).startsWith("{\"error\":{\"status\":400,\"code\":\"bad_request\",")
            .contains("HTTP/1.1");
        assertThat(a.closed()).as(line + ": the connection is closed").isTrue();
        assertThat(a.millis()).as(line).isLessThan(5000);
      }
      assertThat(HostileClients.exchange(s.port(), "GET /health\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
          Duration.ofSeconds(5)).body()).contains("HTTP/0.9 is not supported");
      assertThat(post(s, "{}").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void anHttp2RequestLineGets426UpgradeRequiredAsJson() throws Exception {
    // the servers speak HTTP/1.1 only; Jetty answers an HTTP/2 request line (or the cleartext preface) with 426
    try (JsonHttpServer s = echo(HttpLimits.defaults())) {
      for (String line : new String[] {"GET /health HTTP/2.0\r\nHost: x\r\n\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"}) {
        HostileClients.Answer a = HostileClients.exchange(s.port(), line.getBytes(StandardCharsets.US_ASCII),
            Duration.ofSeconds(5));
        assertThat(a.status()).as(line + ": " + a).isEqualTo(426);
        assertThat(a.headers().get("content-type")).as(line).startsWith("application/json");
        assertThat(a.millis()).as(line).isLessThan(5000);
      }
      assertThat(post(s, "{}").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aBodyShorterThanItsContentLengthGets400InPlainWords() throws Exception {
    try (JsonHttpServer s = echo(HttpLimits.defaults());
        java.net.Socket socket = new java.net.Socket("127.0.0.1", s.port())) {
      socket.setSoTimeout(5000);
      socket.getOutputStream().write("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a\""
          .getBytes(StandardCharsets.US_ASCII));
      socket.shutdownOutput();   // the body ends after 4 of its 10 bytes
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 400 ").contains("\"code\":\"bad_request\"")
          .contains("the request body ended after 4 of its Content-Length of 10 bytes")
          .doesNotContainPattern("[a-z]+\\.[a-z.]+\\.[A-Z]\\w*(Exception|Error)").doesNotContain("Early EOF");
      assertThat(post(s, "{}").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void jsonSyntaxErrorsAreTold() {
    HttpCall cut = new HttpCall("POST", "/x", null, Map.of("content-length", "10"),
        "{\"prompt\":".getBytes(StandardCharsets.UTF_8));
    String eof = cut.jsonSyntaxError(new RuntimeException("java.io.EOFException: End of input at line 1 column 11"
        + " path $.prompt", new java.io.EOFException("End of input at line 1 column 11 path $.prompt")));
    assertThat(eof).isEqualTo("it ends before its JSON value is complete (at line 1 column 11 path $.prompt); the"
        + " server read the 10 bytes its Content-Length declares, so the JSON sent may be longer than its"
        + " Content-Length");
    HttpCall chunked = new HttpCall("POST", "/x", null, Map.of(), "[1".getBytes(StandardCharsets.UTF_8));
    assertThat(chunked.jsonSyntaxError(new java.io.EOFException("End of input at line 1 column 3 path $[1]")))
        .isEqualTo("it ends before its JSON value is complete (at line 1 column 3 path $[1])");
    String malformed = chunked.jsonSyntaxError(new RuntimeException(new IllegalStateException(
        "com.google.gson.stream.MalformedJsonException: Expected ':' at line 1 column 7 path $.not\nSee https://x")));
    assertThat(malformed).isEqualTo("Expected ':' at line 1 column 7 path $.not");
  }

  @Test
  void bodiesOverTheLimitGet413DeclaredOrChunked() throws Exception {
    try (JsonHttpServer s = echo(HttpLimits.defaults().withMaxBodyBytes(1024))) {
      HttpResponse<String> declared = post(s, "x".repeat(2000));
      assertThat(declared.statusCode()).isEqualTo(413);
      assertThat(declared.body()).contains("request_too_large").contains("1024");
      byte[] chunked = ("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "400\r\n" + "y".repeat(1024) + "\r\n10\r\n" + "z".repeat(16) + "\r\n0\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
      HostileClients.Answer a = HostileClients.exchange(s.port(), chunked, Duration.ofSeconds(5));
      assertThat(a.status()).isEqualTo(413);
      assertThat(a.body()).contains("request_too_large");
      assertThat(post(s, "x".repeat(1024)).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aStalledBodyGets408AndSilentConnectionsAreClosed() throws Exception {
    HttpLimits quick = HttpLimits.defaults().withRequestTimeout(Duration.ofMillis(300))
        .withIdleTimeout(Duration.ofMillis(500));
    try (JsonHttpServer s = echo(quick); HostileClients hostile = new HostileClients(s.port())) {
      byte[] stalled = ("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n{\"a\"")
          .getBytes(StandardCharsets.US_ASCII);
      HostileClients.Answer a = HostileClients.exchange(s.port(), stalled, Duration.ofSeconds(5));
      assertThat(a.status()).isEqualTo(408);
      assertThat(a.body()).contains("request_timeout");
      assertThat(a.closed()).isTrue();
      hostile.openOneByteConnections(20);
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (hostile.stillOpen() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(hostile.stillOpen()).as("one-byte connections closed after the idle timeout").isZero();
      assertThat(post(s, "{}").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aHandlerSlowerThanTheIdleTimeoutStillAnswers() throws Exception {
    // generation may take longer than the idle timeout: a connection waiting for its answer is not idle
    HttpLimits quick = HttpLimits.defaults().withIdleTimeout(Duration.ofMillis(300));
    try (JsonHttpServer s = JsonHttpServer.builder().setErrorFormat(JsonHttpServerTest::errorJson).optLimits(quick)
        .setHandler(call -> {
          Thread.sleep(1200);
          return HttpAnswer.text(200, "slow");
        }).start()) {
      HttpResponse<String> r = post(s, "{}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("slow");
    }
  }

  @Test
  void withAnApiKeyOnlyTheOpenPathsAnswerWithoutIt() throws Exception {
    try (JsonHttpServer s = JsonHttpServer.builder().setErrorFormat(JsonHttpServerTest::errorJson)
        .optApiKey("s3cret", Set.of("/health"))
        .setHandler(call -> HttpAnswer.text(200, "ok " + call.path())).start()) {
      URI echo = URI.create("http://127.0.0.1:" + s.port() + "/echo");
      HttpResponse<String> none = HTTP.send(HttpRequest.newBuilder(echo).POST(HttpRequest.BodyPublishers.ofString("{}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("content-type")).hasValue("application/json");
      assertThat(none.headers().firstValue("www-authenticate")).hasValue("Bearer");
      assertThat(none.body()).contains("invalid_api_key").contains("Authorization: Bearer");
      HttpResponse<String> wrong = HTTP.send(HttpRequest.newBuilder(echo).header("Authorization", "Bearer s3cre")
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.body()).contains("not this server's").doesNotContain("s3cre");
      HttpResponse<String> right = HTTP.send(HttpRequest.newBuilder(echo).header("Authorization", "Bearer s3cret")
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(right.statusCode()).isEqualTo(200);
      assertThat(right.body()).isEqualTo("ok /echo");
      HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port()
          + "/health")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aStreamedAnswerArrivesInPartsAndAClientThatLeavesEndsTheStreamerWithAnIoException() throws Exception {
    java.util.concurrent.LinkedBlockingQueue<Object> outcomes = new java.util.concurrent.LinkedBlockingQueue<>();
    try (JsonHttpServer s = JsonHttpServer.builder().setErrorFormat(JsonHttpServerTest::errorJson)
        .optWorkerThreads(2).setHandler(call -> HttpAnswer.stream(200, "text/event-stream", out -> {
          try {
            int parts = call.path().equals("/three") ? 3 : 100_000;
            for (int i = 0; i < parts; i++) {
              out.write("data: " + (parts == 3 ? String.valueOf(i) : "x".repeat(1000)) + "\n\n");
            }
            outcomes.add("complete");
          } catch (Exception e) {
            outcomes.add(e);
            throw e;
          }
        })).start()) {
      URI three = URI.create("http://127.0.0.1:" + s.port() + "/three");
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(three).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
      assertThat(r.headers().firstValue("cache-control")).hasValue("no-cache");
      assertThat(r.body()).isEqualTo("data: 0\n\ndata: 1\n\ndata: 2\n\n");
      assertThat(outcomes.poll(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("complete");
      // 100 MB that the client does not read: it reads one part and leaves with a reset
      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", s.port())) {
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write("GET /long HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.UTF_8));
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
            socket.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        while (line != null && !line.startsWith("data: x")) {
          line = in.readLine();
        }
        assertThat(line).isNotNull();
        socket.setSoLinger(true, 0);
      }
      assertThat(outcomes.poll(30, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(java.io.IOException.class);
      // the worker is free again: the next request is answered
      assertThat(HTTP.send(HttpRequest.newBuilder(three).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString()).body()).startsWith("data: 0");
    }
  }

  @Test
  void anApiKeyIsCheckedAlikeByTheBuilderAndByServersThatTakeItFirst() {
    assertThat(JsonHttpServer.checkApiKey("sk-1")).isEqualTo("sk-1");
    assertThat(JsonHttpServer.checkApiKey(null)).isNull();
    for (String bad : new String[] {"", "  ", " sk-1", "sk-1\n"}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> JsonHttpServer.checkApiKey(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("the API key must not be blank or begin or end with white space");
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> JsonHttpServer.builder().optApiKey(bad, Set.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("the API key must not be blank or begin or end with white space");
    }
  }
}
