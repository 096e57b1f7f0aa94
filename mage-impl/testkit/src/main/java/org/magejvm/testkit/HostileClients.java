package org.magejvm.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Raw-socket clients that misbehave, for the tests of the servers' HTTP layer: connections that send one byte and
 * wait, chunked bodies that never end, and single malformed requests whose answer (or silence) is recorded. Every
 * connection goes to 127.0.0.1 only; {@link #close} closes all of them.
 */
public final class HostileClients implements AutoCloseable {

  private final int port;
  private final List<Socket> open = new ArrayList<>();

  /** @param port the loopback port of the server under test */
  public HostileClients(int port) {
    this.port = port;
  }

  /**
   * Opens connections that each send one byte ({@code G}, the start of a request line) and then wait.
   *
   * @param n how many
   * @throws IOException when a connection cannot be opened
   */
  public void openOneByteConnections(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      Socket s = connect(Duration.ofSeconds(5));
      s.getOutputStream().write('G');
      s.getOutputStream().flush();
      open.add(s);
    }
  }

  /**
   * Opens connections that each send a {@code POST} with {@code Transfer-Encoding: chunked} headers and one chunk of
   * the body, and never finish it.
   *
   * @param n how many
   * @param path the request path, such as {@code /v1/completions}
   * @throws IOException when a connection cannot be opened
   */
  public void openEndlessChunkedBodies(int n, String path) throws IOException {
    byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n").getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < n; i++) {
      Socket s = connect(Duration.ofSeconds(5));
      s.getOutputStream().write(head);
      s.getOutputStream().flush();
      open.add(s);
    }
  }

  /** @return how many of the connections opened here the server has not closed (a read would not see the end) */
  public int stillOpen() {
    int n = 0;
    for (Socket s : open) {
      try {
        s.setSoTimeout(1);
        if (s.getInputStream().read() >= 0) {
          n++;   // an answer arrived: the connection is open
        } else {
          continue;
        }
      } catch (SocketTimeoutException e) {
        n++;
      } catch (IOException e) {
        // reset: closed
      }
    }
    return n;
  }

  /** Closes every connection opened here. */
  @Override
  public void close() {
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    open.clear();
  }

  private Socket connect(Duration timeout) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) timeout.toMillis());
    return s;
  }

  /**
   * What a server did with one raw request.
   *
   * @param status the status of the answer, or -1 when none came
   * @param headers the answer's headers, names in lower case
   * @param body the answer's body
   * @param closed whether the server closed the connection (after the answer, or without one)
   * @param millis how long it took from the first byte sent to the answer or the close (or the timeout)
   */
  public record Answer(int status, Map<String, String> headers, String body, boolean closed, long millis) {
    /** @return whether an answer arrived */
    public boolean answered() {
      return status > 0;
    }
  }

  /**
   * Sends one raw request on a new loopback connection and reads the answer: a status line, headers and a body of
   * {@code Content-Length} bytes, or whatever arrives until the server closes the connection.
   *
   * @param port the server's port
   * @param request the bytes to send (sent whole; if the server closes first, the rest is dropped)
   * @param timeout how long to wait for an answer or a close
   * @return what came back
   * @throws IOException when no connection can be opened
   */
  public static Answer exchange(int port, byte[] request, Duration timeout) throws IOException {
    long start = System.nanoTime();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
      s.setSoTimeout((int) Math.max(1, timeout.toMillis()));
      try {
        OutputStream out = s.getOutputStream();
        out.write(request);
        out.flush();
      } catch (IOException e) {
        // the server closed before reading everything: read what it answered
      }
      return read(s.getInputStream(), start);
    }
  }

  private static Answer read(InputStream in, long start) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    boolean closed = false;
    int headerEnd = -1;
    long contentLength = -1;
    try {
      byte[] chunk = new byte[8192];
      while (true) {
        int n = in.read(chunk);
        if (n < 0) {
          closed = true;
          break;
        }
        buf.write(chunk, 0, n);
        if (headerEnd < 0) {
          headerEnd = indexOf(buf.toByteArray(), "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          if (headerEnd >= 0) {
            contentLength = contentLength(buf.toString(StandardCharsets.ISO_8859_1).substring(0, headerEnd));
          }
        }
        if (headerEnd >= 0 && contentLength >= 0 && buf.size() >= headerEnd + 4 + contentLength) {
          if (!buf.toString(StandardCharsets.ISO_8859_1).substring(0, headerEnd).toLowerCase(Locale.ROOT)
              .contains("\r\nconnection: close")) {
            break;
          }
          // the server said it closes: wait for the close (until the timeout)
        }
      }
    } catch (SocketTimeoutException e) {
      closed = false;
    } catch (IOException e) {
      closed = true;   // reset
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    String text = buf.toString(StandardCharsets.ISO_8859_1);
    if (headerEnd < 0 || !text.startsWith("HTTP/")) {
      return new Answer(-1, Map.of(), text, closed, millis);
    }
    String[] lines = text.substring(0, headerEnd).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
    }
    byte[] all = buf.toByteArray();
    int from = headerEnd + 4;
    int to = contentLength >= 0 ? (int) Math.min(all.length, from + contentLength) : all.length;
    String body = new String(all, from, Math.max(0, to - from), StandardCharsets.UTF_8);
    return new Answer(status, headers, body, closed, millis);
  }

  private static long contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        return Long.parseLong(line.substring("content-length:".length()).trim());
      }
    }
    return -1;
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /**
   * The malformed requests every server must answer with a 4xx (or, where HTTP gives no way to answer, close),
   * each as raw bytes, by name.
   *
   * @param path a path that takes {@code POST} with a JSON body on the server under test
   * @return the requests, in a fixed order
   */
  public static Map<String, byte[]> malformedRequests(String path) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    out.put("malformed chunk size", ascii("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type:"
        + " application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"));
    out.put("bare LF line ends", ascii("POST " + path + " HTTP/1.1\nHost: 127.0.0.1\nContent-Type:"
        + " application/json\nContent-Length: 2\n\n{}"));
    byte[] junk = new byte[4096];
    new SplittableRandom(23).nextBytes(junk);
    out.put("4 KB of binary junk", junk);
    out.put("Content-Length: abc", ascii("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type:"
        + " application/json\r\nContent-Length: abc\r\n\r\n{}"));
    StringBuilder many = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (int i = 0; i < 2000; i++) {
      many.append("X-Header-").append(i).append(": ").append(i).append("\r\n");
    }
    out.put("2,000 headers", ascii(many.append("Content-Length: 2\r\n\r\n{}").toString()));
    return out;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
