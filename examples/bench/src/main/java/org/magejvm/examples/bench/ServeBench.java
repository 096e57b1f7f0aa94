package org.magejvm.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Throughput of {@code mage serve} with concurrent clients: a {@link CompletionServer} on a loopback port, and for
 * each client count C, C threads that each send one-prompt {@link OpenAiCompletionsPolicy#generate} calls one after
 * another until {@code requests} are answered; every response is exactly {@code tokens} tokens (stop tokens
 * suppressed). Prints requests/s, generated tokens/s and the server's batch sizes, next to the same requests
 * generated in process in batches of C (the ceiling: no HTTP, no JSON, no batching window).
 *
 * <p>Run with {@code ./mage bench serve [clients=1,4,16] [requests=64] [tokens=16] [max-batch=32] [window-ms=5]
 * [model=DIR]} (default: the tiny checkpoint the tests use, on the CPU).
 */
public final class ServeBench {
  private ServeBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args {@code key=value} options (see the class comment)
   * @throws Exception when a request fails or the checkpoint cannot be written
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("clients", "1,4,16");
    o.put("requests", "64");
    o.put("tokens", "16");
    o.put("max-batch", "32");
    o.put("window-ms", "5");
    o.put("model", "");
    BenchArgs.apply(o, args);
    int requests = Integer.parseInt(o.get("requests"));
    int tokens = Integer.parseInt(o.get("tokens"));
    Path model = o.get("model").isEmpty() ? tiny() : Path.of(o.get("model"));
    Qwen3Checkpoint.Options options = Qwen3Checkpoint.Options.cpu().withThinking(false);
    System.out.printf(Locale.ROOT, "mage serve on %s: %d requests of %d tokens each, max batch %s, window %s ms,"
        + " %d cores%n", model, requests, tokens, o.get("max-batch"), o.get("window-ms"),
        Runtime.getRuntime().availableProcessors());
    System.out.println("clients  req/s  tokens/s  mean batch  largest so far  busy  | in process, batches of C: req/s");
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
      for (String c : o.get("clients").split(",")) {
        int clients = Integer.parseInt(c.strip());
        run(server, local, clients, requests, tokens);
      }
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

  private static void run(CompletionServer server, DjlLanguagePolicy local, int clients, int requests, int tokens)
      throws Exception {
    CompletionServer.Stats before = server.stats();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
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
            n += policy.generate(List.of(PolicyRequest.of("request " + r + ": your move?")), sampling(tokens, r))
                .get(0).responseTokenIds().length;
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
    // the same requests in process, C prompts per call
    long t0 = System.nanoTime();
    for (int r = 0; r < requests; r += clients) {
      List<PolicyRequest> batch = new ArrayList<>();
      for (int k = r; k < Math.min(requests, r + clients); k++) {
        batch.add(PolicyRequest.of("request " + k + ": your move?"));
      }
      local.generate(batch, sampling(tokens, r));
    }
    double inProcess = (System.nanoTime() - t0) / 1e9;
    // busy: the share of the wall time the generation thread spent generating (the rest is HTTP, JSON, waiting)
    double busy = (after.generationNanos() - before.generationNanos()) / 1e9 / seconds;
    System.out.printf(Locale.ROOT, "%7d  %5.1f  %8.0f  %10.2f  %15d  %3.0f%%  | %5.1f%n", clients,
        requests / seconds, generated / seconds, batches == 0 ? 0 : (double) rows / batches, after.largestBatch(),
        100 * busy, requests / inProcess);
  }
}
