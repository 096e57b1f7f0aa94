package org.magejvm.examples.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.openai.OpenAiCompletionsPolicy;
import org.magejvm.impl.serve.CompletionServer;

/**
 * Throughput and latency of {@code mage serve} with concurrent clients while idle connections are held open: a
 * {@link CompletionServer} (as {@code mage serve} builds it) on 127.0.0.1, {@code idle} connected sockets that send
 * nothing, and for each client count C, C threads that each send one-prompt {@link OpenAiCompletionsPolicy#generate}
 * calls one after another until {@code requests} are answered; request {@code r} is the prompt {@code "request r:
 * your move?"} with seed {@code r}, and every response is exactly {@code tokens} tokens (stop tokens suppressed).
 * Prints requests/s, tokens/s, p50 and p99 latency per request, the server's batch sizes and how many idle connections
 * were still open after the row, next to the same requests generated in process in batches of C (the ceiling: no
 * HTTP, no JSON, no batching window; each request of a batch has the batch's time as its latency).
 *
 * <p>Idle connections are closed by the server after its idle timeout (30 s, as {@code mage serve}'s default); the
 * benchmark opens new ones before each row so that {@code idle} are open when it starts.
 *
 * <p>Run with {@code ./mage bench serve [clients=1,4,16,64] [requests=128] [tokens=16] [idle=200] [max-batch=32]
 * [window-ms=5] [model=DIR]} (default: the tiny checkpoint the tests use, on the CPU).
 */
public final class ServeBench {
  private ServeBench() {}

  /**
   * One row of the table.
   *
   * @param clients concurrent clients
   * @param requestsPerSecond requests answered per second through the server
   * @param tokensPerSecond tokens generated per second through the server
   * @param p50Millis median request latency through the server
   * @param p99Millis 99th percentile request latency through the server
   * @param meanBatch mean rows per generation call of the server
   * @param idleOpen idle connections still open after the row
   * @param inProcessRequestsPerSecond the same requests in process, batches of C
   * @param inProcessP50Millis median latency in process (a request's batch's time)
   * @param inProcessP99Millis 99th percentile latency in process
   */
  public record Row(int clients, double requestsPerSecond, double tokensPerSecond, double p50Millis, double p99Millis,
      double meanBatch, int idleOpen, double inProcessRequestsPerSecond, double inProcessP50Millis,
      double inProcessP99Millis) {}

  /**
   * Runs the benchmark and prints the table to standard output.
   *
   * @param args {@code key=value} options (see the class comment)
   * @throws Exception when a request fails or the checkpoint cannot be written
   */
  public static void main(String[] args) throws Exception {
    run(args, System.out);
  }

  /**
   * Runs the benchmark.
   *
   * @param args {@code key=value} options (see the class comment)
   * @param out where the table goes
   * @return the rows, one per client count
   * @throws Exception when a request fails or the checkpoint cannot be written
   */
  public static List<Row> run(String[] args, PrintStream out) throws Exception {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("clients", "1,4,16,64");
    o.put("requests", "128");
    o.put("tokens", "16");
    o.put("idle", "200");
    o.put("max-batch", "32");
    o.put("window-ms", "5");
    o.put("model", "");
    BenchArgs.apply(o, args);
    int requests = Integer.parseInt(o.get("requests"));
    int tokens = Integer.parseInt(o.get("tokens"));
    int idle = Integer.parseInt(o.get("idle"));
    Path model = o.get("model").isEmpty() ? tiny() : Path.of(o.get("model"));
    Qwen3Checkpoint.Options options = Qwen3Checkpoint.Options.cpu().withThinking(false);
    out.printf(Locale.ROOT, "mage serve on %s: %d requests of %d tokens each, %d idle connections held open, max"
        + " batch %s, window %s ms, %d cores, load average %s%n", model, requests, tokens, idle, o.get("max-batch"),
        o.get("window-ms"), Runtime.getRuntime().availableProcessors(), loadAverage());
    out.println("clients  req/s  tokens/s  p50 ms  p99 ms  mean batch  idle open  | in process, batches of C:"
        + " req/s  p50 ms  p99 ms");
    List<Row> rows = new ArrayList<>();
    List<Socket> idleSockets = new ArrayList<>();
    try (DjlLanguagePolicy local = Qwen3Checkpoint.loadPolicy(model, options);
        CompletionServer server = CompletionServer.builder().setPolicy(Qwen3Checkpoint.loadPolicy(model, options),
            true).optPort(0).optMaxBatch(Integer.parseInt(o.get("max-batch")))
            .optBatchWindow(Duration.ofMillis(Long.parseLong(o.get("window-ms")))).start()) {
      // warm-up (JIT, first native calls), not measured
      try (OpenAiCompletionsPolicy warm = OpenAiCompletionsPolicy.builder().addEndpoint(server.baseUrl())
          .setModel(server.modelName()).build()) {
        for (int i = 0; i < 4; i++) {
          warm.generate(List.of(PolicyRequest.of("warm-up")), sampling(tokens, i));
          local.generate(List.of(PolicyRequest.of("warm-up")), sampling(tokens, i));
        }
      }
      URI base = URI.create(server.baseUrl());
      InetSocketAddress address = new InetSocketAddress(base.getHost(), base.getPort());
      for (String c : o.get("clients").split(",")) {
        int clients = Integer.parseInt(c.strip());
        topUp(idleSockets, idle, address);
        Row row = row(server, local, clients, requests, tokens, idleSockets);
        rows.add(row);
        out.printf(Locale.ROOT, "%7d  %5.1f  %8.0f  %6.0f  %6.0f  %10.2f  %9d  | %5.1f  %6.0f  %6.0f%n", row.clients(),
            row.requestsPerSecond(), row.tokensPerSecond(), row.p50Millis(), row.p99Millis(), row.meanBatch(),
            row.idleOpen(), row.inProcessRequestsPerSecond(), row.inProcessP50Millis(), row.inProcessP99Millis());
        out.flush();
      }
    } finally {
      for (Socket s : idleSockets) {
        s.close();
      }
    }
    return rows;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip().split("\\s+", 4)[0];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** Drops the idle sockets the server closed and opens new ones until {@code n} are open. */
  private static void topUp(List<Socket> sockets, int n, InetSocketAddress address) throws IOException {
    sockets.removeIf(s -> !isOpen(s));
    while (sockets.size() < n) {
      Socket s = new Socket();
      s.connect(address, 5000);
      sockets.add(s);
    }
  }

  /** Whether the server still holds the connection open (a read that times out rather than reaching the end). */
  private static boolean isOpen(Socket s) {
    try {
      s.setSoTimeout(1);
      return s.getInputStream().read() >= 0;
    } catch (SocketTimeoutException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Path tiny() throws IOException {
    Path dir = Files.createTempDirectory("mage-serve-bench").resolve("tiny");
    TinyCheckpoint.write(dir, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action> Your move?", 7));
    return dir;
  }

  private static SamplingConfig sampling(int tokens, long seed) {
    return SamplingConfig.builder().optMaxNewTokens(tokens).optMinNewTokens(tokens).optSeed(seed).build();
  }

  private static Row row(CompletionServer server, DjlLanguagePolicy local, int clients, int requests, int tokens,
      List<Socket> idleSockets) throws Exception {
    CompletionServer.Stats before = server.stats();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long[] latencies = new long[requests];
    long start;
    long generated = 0;
    try (OpenAiCompletionsPolicy policy = OpenAiCompletionsPolicy.builder().addEndpoint(server.baseUrl())
        .setModel(server.modelName()).optMaxInFlight(clients).optPromptFormatter(local::renderPrompt).build()) {
      start = System.nanoTime();
      List<Future<Integer>> futures = new ArrayList<>();
      for (int k = 0; k < clients; k++) {
        int client = k;
        futures.add(pool.submit(() -> {
          int n = 0;
          for (int r = client; r < requests; r += clients) {
            long t = System.nanoTime();
            n += policy.generate(List.of(PolicyRequest.of("request " + r + ": your move?")), sampling(tokens, r))
                .get(0).responseTokenIds().length;
            latencies[r] = System.nanoTime() - t;
          }
          return n;
        }));
      }
      for (Future<Integer> f : futures) {
        generated += f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    CompletionServer.Stats after = server.stats();
    long batches = after.batches() - before.batches();
    long rows = after.rows() - before.rows();
    int idleOpen = (int) idleSockets.stream().filter(ServeBench::isOpen).count();
    // the same requests in process, C prompts per call (seeded by the batch's first request)
    long[] inProcessLatencies = new long[requests];
    long t0 = System.nanoTime();
    for (int r = 0; r < requests; r += clients) {
      List<PolicyRequest> batch = new ArrayList<>();
      for (int k = r; k < Math.min(requests, r + clients); k++) {
        batch.add(PolicyRequest.of("request " + k + ": your move?"));
      }
      long t = System.nanoTime();
      local.generate(batch, sampling(tokens, r));
      Arrays.fill(inProcessLatencies, r, Math.min(requests, r + clients), System.nanoTime() - t);
    }
    double inProcess = (System.nanoTime() - t0) / 1e9;
    return new Row(clients, requests / seconds, generated / seconds, percentile(latencies, 50),
        percentile(latencies, 99), batches == 0 ? 0 : (double) rows / batches, idleOpen, requests / inProcess,
        percentile(inProcessLatencies, 50), percentile(inProcessLatencies, 99));
  }

  /** The nearest-rank percentile of nanosecond durations, in milliseconds. */
  static double percentile(long[] nanos, double p) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1e6;
  }
}
