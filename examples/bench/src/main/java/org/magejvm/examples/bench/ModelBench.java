package org.magejvm.examples.bench;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.OperatorProfiler;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Measures the Qwen3 decoder on the CPU with random weights: prefill and decoding throughput at several batch sizes,
 * with and without the KV cache, peak memory, and the machine's own matrix-multiply and matrix-vector ceilings for
 * comparison.
 *
 * <p>Arguments are {@code key=value} pairs, all optional:
 *
 * <ul>
 *   <li>{@code sizes=10m,100m} which model sizes to run ({@code 10m}: hidden 256, 8 layers, vocab 12000;
 *       {@code 100m}: hidden 768, 12 layers, vocab 32000; both tied, 4:1 or 2:1 grouped-query attention);
 *   <li>{@code prompt=64} prompt tokens per row for the decoding runs; {@code new=256} new tokens per row;
 *   <li>{@code batches=1,8,64} decoding batch sizes;
 *   <li>{@code rounds=1} how many times to run the cached decoding of every batch size, in turn (batch 1, 8, 64, then
 *       again); with more than one round a summary gives each batch's median rate and range, which on a shared
 *       machine says more than any single run;
 *   <li>{@code nocache10m=1:256,8:256,64:32} and {@code nocache100m=1:64,8:32} the recompute-every-step runs as
 *       batch:newTokens (recomputation is quadratic, so the long ones are kept feasible on two cores);
 *   <li>{@code profile=FILE} after the measurements of the first size, decode its first batch size once more under
 *       libtorch's operator profiler, write the Chrome trace to FILE and print the operators' self time per step
 *       (profiling slows every call, so the step times printed then are not the program's);
 *   <li>{@code scripted=true} how the cached decoding steps run: {@code true} as one TorchScript call per step
 *       ({@link Qwen3Model#setScriptedDecoding}, the library's default), {@code false} as one DJL call per
 *       operation, {@code both} alternating the two within every round (the Java way first) and printing each way's
 *       medians and their ratio;
 *   <li>{@code ceiling=true} whether to measure matmul/matvec throughput first (the small products the 10M model's
 *       decode runs are measured either way).
 * </ul>
 *
 * <p>Run with {@code ./mage bench model [key=value...]} after {@code mvn -B -q package -DskipTests} (docs/benchmarks.md
 * has the options used for its figures).
 */
public final class ModelBench {
  private ModelBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args {@code key=value} options (see the class comment)
   */
  public static void main(String[] args) {
    Map<String, String> opt = new LinkedHashMap<>();
    opt.put("sizes", "10m,100m");
    opt.put("prompt", "64");
    opt.put("new", "256");
    opt.put("batches", "1,8,64");
    opt.put("nocache10m", "1:256,8:256,64:32");
    opt.put("nocache100m", "1:64,8:32");
    opt.put("ceiling", "true");
    opt.put("rounds", "1");
    opt.put("profile", "");
    opt.put("scripted", "true");
    BenchArgs.apply(opt, args);
    // refused now rather than after the first measurements
    ways(opt);
    if (BenchArgs.intList(opt, "batches", 1).isEmpty()) {
      throw new IllegalArgumentException("batches= names no batch size");
    }
    BenchArgs.pairList(opt, "nocache10m", 1);
    BenchArgs.pairList(opt, "nocache100m", 1);
    BenchArgs.intOption(opt, "prompt", 1);
    BenchArgs.intOption(opt, "new", 1);
    BenchArgs.intOption(opt, "rounds", 1);
    Path traceDir = opt.get("profile").isEmpty() ? null : Path.of(opt.get("profile")).toAbsolutePath().getParent();
    if (traceDir != null && !Files.isDirectory(traceDir)) {
      // said now rather than after every measurement has run
      throw new IllegalArgumentException("profile=" + opt.get("profile") + ": " + traceDir + " is not a directory");
    }
    Engine engine = Engine.getEngine("PyTorch");
    System.out.printf(Locale.ROOT, "ModelBench: %s %s, %d cores visible, libtorch threads %s, Java %s%n",
        engine.getEngineName(), engine.getVersion(), Runtime.getRuntime().availableProcessors(),
        System.getProperty("ai.djl.pytorch.num_threads", "default"), System.getProperty("java.version"));
    System.out.println("options: " + opt);
    double[] ceiling = {Double.NaN, Double.NaN};
    if (Boolean.parseBoolean(opt.get("ceiling"))) {
      ceiling = ceiling();
    }
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      smallProducts(m);
    }
    for (String size : opt.get("sizes").split(",")) {
      runSize(size.trim(), opt, ceiling);
    }
    System.out.printf(Locale.ROOT, "peak RSS (VmHWM) %.0f MiB%n", ProcStatus.peakRssMiB());
  }

  /** @return the ways the {@code scripted} option asks for: false for Java calls, true for the TorchScript step */
  private static List<Boolean> ways(Map<String, String> opt) {
    return switch (opt.get("scripted")) {
      case "true" -> List.of(true);
      case "false" -> List.of(false);
      case "both" -> List.of(false, true);
      default -> throw new IllegalArgumentException("scripted=" + opt.get("scripted") + ": true, false or both");
    };
  }

  static Qwen3Config config(String size) {
    switch (size) {
      case "10m":
        return Qwen3Config.builder().setVocabSize(12000).setHiddenSize(256).setIntermediateSize(768)
            .setNumHiddenLayers(8).setNumAttentionHeads(4).optNumKeyValueHeads(2).optHeadDim(64)
            .optTieWordEmbeddings(true).build();
      case "100m":
        return Qwen3Config.builder().setVocabSize(32000).setHiddenSize(768).setIntermediateSize(2048)
            .setNumHiddenLayers(12).setNumAttentionHeads(12).optNumKeyValueHeads(4).optHeadDim(64)
            .optTieWordEmbeddings(true).build();
      default:
        throw new IllegalArgumentException("unknown size " + size + " (10m or 100m)");
    }
  }

  /**
   * The matmul ceiling: the best of 12 float32 1024 x 1024 x 1024 products on the CPU, with the thread's current
   * libtorch settings.
   *
   * @return {GFLOP/s, best seconds}
   */
  static double[] matmulCeiling() {
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      int n = 1024;
      NDArray a = m.randomUniform(-1, 1, new Shape(n, n));
      NDArray b = m.randomUniform(-1, 1, new Shape(n, n));
      double best = Double.MAX_VALUE;
      for (int i = 0; i < 12; i++) {
        long t0 = System.nanoTime();
        try (NDArray c = a.matMul(b)) {
          c.toFloatArray(); // force completion
        }
        best = Math.min(best, (System.nanoTime() - t0) / 1e9);
      }
      return new double[] {2.0 * n * n * n / best / 1e9, best};
    }
  }

  /** @return {matmul GFLOP/s, matvec GB/s} */
  private static double[] ceiling() {
    double[] mm = matmulCeiling();
    double gflops = mm[0];
    double best = mm[1];
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      // matrix-vector: y = x W^T with W 4096 x 4096 float32 (64 MiB, far beyond the caches)
      int d = 4096;
      NDArray w = m.randomUniform(-1, 1, new Shape(d, d));
      double[] perBatch = new double[3];
      int[] rows = {1, 8, 64};
      for (int k = 0; k < rows.length; k++) {
        NDArray x = m.randomUniform(-1, 1, new Shape(rows[k], d));
        double t = Double.MAX_VALUE;
        for (int i = 0; i < 15; i++) {
          long t0 = System.nanoTime();
          try (NDArray y = x.getNDArrayInternal().linear(x, w, null).singletonOrThrow()) {
            y.toFloatArray();
          }
          t = Math.min(t, (System.nanoTime() - t0) / 1e9);
        }
        perBatch[k] = t;
      }
      double bytes = 4.0 * d * d;
      System.out.printf(Locale.ROOT, "ceiling: matmul 1024^3 f32 %.1f GFLOP/s (best of 12, %.2f ms)%n",
          gflops, best * 1e3);
      for (int k = 0; k < rows.length; k++) {
        System.out.printf(Locale.ROOT,
            "ceiling: (%d x 4096)·(4096 x 4096)^T f32 %.2f ms = %.1f GB/s of weights, %.1f GFLOP/s%n",
            rows[k], perBatch[k] * 1e3, bytes / perBatch[k] / 1e9, 2.0 * rows[k] * d * d / perBatch[k] / 1e9);
      }
      return new double[] {gflops, bytes / perBatch[0] / 1e9};
    }
  }

  /**
   * The products that set the 10M model's decode, as `decode_eager.py` measures them in eager PyTorch: rows times a
   * 768 x 256 weight (its MLP's gate and up projections), the mean of 2016 calls after warm-up. With one weight the
   * weight stays in the caches; with 48 different ones (37.7 MB, more than this machine's 32 MiB L3) each call reads
   * its weight from memory, as every product of a decoding step does.
   */
  private static void smallProducts(NDManager m) {
    smallProduct(m, 1, 1);
    smallProduct(m, 1, 48);
    smallProduct(m, 8, 48);
    for (int rows : new int[] {1, 2, 4, 8, 12, 16}) {
      headProduct(m, rows, 12000, 256, 3);
    }
    for (int rows : new int[] {2, 8, 12}) {
      headProduct(m, rows, 32000, 768, 1);
    }
  }

  /**
   * An output head (the 10M model's 12000 x 256 or the 100M model's 32000 x 768) times a few rows, from memory (the
   * small head in three copies, 36.9 MB, in turn), both ways round: as {@code x W^T} (libtorch's linear) and as
   * {@code W x^T}, laid out row by row again as {@code Qwen3Model.logits} does for 2 to 8 rows; the mean of 60
   * products each way, after 6 warm-up products each way.
   */
  private static void headProduct(NDManager parent, int rows, int vocab, int hidden, int copies) {
    try (NDManager m = parent.newSubManager()) {
      NDArray[] w = new NDArray[copies];
      for (int i = 0; i < w.length; i++) {
        w[i] = m.randomUniform(-1, 1, new Shape(vocab, hidden));
      }
      NDArray x = m.randomUniform(-1, 1, new Shape(rows, hidden));
      // the two ways alternate call by call, so that a change in the machine's speed affects both alike
      long[] nanos = new long[2];
      int n = 60;
      for (int i = -6; i < n; i++) {
        for (int way = 0; way < 2; way++) {
          long t0 = System.nanoTime();
          try (NDManager step = m.newSubManager()) {
            NDArray xs = x.duplicate();
            xs.attach(step);
            NDArray head = w[(2 * i + way + 12) % w.length];
            NDArray y = way == 0 ? xs.getNDArrayInternal().linear(xs, head, null).singletonOrThrow()
                : head.matMul(xs.transpose()).transpose().reshape(-1).reshape(rows, vocab);
            y.attach(step);
            y.toFloatArray(); // force completion
          }
          if (i >= 0) {
            nanos[way] += System.nanoTime() - t0;
          }
        }
      }
      double[] took = {nanos[0] / 1e9 / n, nanos[1] / 1e9 / n};
      System.out.printf(Locale.ROOT,
          "the head, (%d x %d)·(%d x %d)^T from memory: x W^T %.2f ms, W x^T %.2f ms (%.2fx)%n",
          rows, hidden, vocab, hidden, took[0] * 1e3, took[1] * 1e3, took[0] / took[1]);
    }
  }

  private static void smallProduct(NDManager parent, int rows, int count) {
    try (NDManager m = parent.newSubManager()) {
      NDArray[] w = new NDArray[count];
      for (int i = 0; i < count; i++) {
        w[i] = m.randomUniform(-1, 1, new Shape(768, 256));
      }
      NDArray x = m.randomUniform(-1, 1, new Shape(rows, 1, 256));
      for (int i = 0; i < 2 * count + 50; i++) {
        x.getNDArrayInternal().linear(x, w[i % count], null).singletonOrThrow().close();
      }
      int n = 2016;
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        x.getNDArrayInternal().linear(x, w[i % count], null).singletonOrThrow().close();
      }
      double took = (System.nanoTime() - t0) / 1e9 / n;
      System.out.printf(Locale.ROOT, "one (%d x 256)·(768 x 256)^T product, %s: %.1f us, %.2f GB/s of weights%n",
          rows, count == 1 ? "in cache" : count + " weights, from memory", took * 1e6, 768.0 * 256 * 4 / took / 1e9);
    }
  }

  private static List<int[]> prompts(int batch, int len, int vocab, long seed) {
    Random r = new Random(seed);
    List<int[]> out = new ArrayList<>();
    for (int i = 0; i < batch; i++) {
      int[] p = new int[len];
      for (int j = 0; j < len; j++) {
        p[j] = r.nextInt(vocab);
      }
      out.add(p);
    }
    return out;
  }

  /** Seconds for one generate call. */
  private static double time(Qwen3Generator gen, List<int[]> prompts, int newTokens) {
    SamplingConfig cfg = SamplingConfig.builder().optTemperature(1).optMaxNewTokens(newTokens).optSeed(1).build();
    long t0 = System.nanoTime();
    List<GeneratedSequence> out = gen.generate(prompts, cfg, Set.of());
    double s = (System.nanoTime() - t0) / 1e9;
    for (GeneratedSequence q : out) {
      if (q.length() != newTokens) {
        throw new IllegalStateException("expected " + newTokens + " tokens, got " + q.length());
      }
    }
    return s;
  }

  private static void runSize(String size, Map<String, String> opt, double[] ceiling) {
    Qwen3Config c = config(size);
    long t0 = System.nanoTime();
    try (Qwen3Model model = Qwen3Model.random(c, 1, Device.cpu(), DataType.FLOAT32)) {
      double build = (System.nanoTime() - t0) / 1e9;
      long params = c.parameterCount();
      long embed = (long) c.vocabSize() * c.hiddenSize();
      // per generated token every matrix is multiplied once, except the embedding, which is only looked up
      // (with tied embeddings the head multiplies that same matrix)
      long matrixParams = c.tieWordEmbeddings() ? params : params - embed;
      double weightBytes = 4.0 * params;
      System.out.printf(Locale.ROOT,
          "%n== %s: %,d parameters (%.0f MiB f32), hidden %d, %d layers, %d/%d heads x %d, mlp %d, vocab %d;"
              + " random init %.1f s, RSS %.0f MiB%n",
          size, params, weightBytes / (1 << 20), c.hiddenSize(), c.numHiddenLayers(), c.numAttentionHeads(),
          c.numKeyValueHeads(), c.headDim(), c.intermediateSize(), c.vocabSize(), build, ProcStatus.rssMiB());
      Qwen3Generator cached = Qwen3Generator.of(model);
      Qwen3Generator recompute = Qwen3Generator.builder().setModel(model).optKvCache(false).build();
      time(cached, prompts(2, 16, c.vocabSize(), 0), 8); // warm-up
      for (int[] bl : new int[][] {{1, 512}, {8, 128}}) {
        double s = time(cached, prompts(bl[0], bl[1], c.vocabSize(), 1), 1);
        System.out.printf(Locale.ROOT, "prefill  batch %2d x %3d tokens: %7.3f s = %8.0f tokens/s%n",
            bl[0], bl[1], s, bl[0] * bl[1] / s);
      }
      int prompt = BenchArgs.intOption(opt, "prompt", 1);
      int n = BenchArgs.intOption(opt, "new", 1);
      int rounds = BenchArgs.intOption(opt, "rounds", 1);
      List<Integer> batches = BenchArgs.intList(opt, "batches", 1);
      List<Boolean> ways = ways(opt);
      Map<String, Double> cachedRate = new LinkedHashMap<>();
      // per way (Java calls, TorchScript) and batch, the rate of every round
      Map<Boolean, Map<Integer, double[]>> rates = new LinkedHashMap<>();
      for (int round = 0; round < rounds; round++) {
        for (int b : batches) {
          for (boolean scripted : ways) {
            model.setScriptedDecoding(scripted);
            String label = ways.size() > 1 ? (scripted ? "script   " : "Java     ") : "KV cache ";
            rates.computeIfAbsent(scripted, k -> new LinkedHashMap<>()).computeIfAbsent(b, k -> new double[rounds])
                [round] = decode(cached, label, b, prompt, n, c, matrixParams, weightBytes, ceiling);
          }
        }
      }
      model.setScriptedDecoding(ways.get(ways.size() - 1));
      Map<Integer, Double> javaMedian = new LinkedHashMap<>();
      for (boolean scripted : ways) {
        for (Map.Entry<Integer, double[]> e : rates.get(scripted).entrySet()) {
          double[] r = e.getValue().clone();
          Arrays.sort(r);
          double median = QuickStartIterationBench.median(r);
          int b = e.getKey();
          if (scripted == ways.get(ways.size() - 1)) {
            cachedRate.put(b + ":" + n, median);
          }
          if (!scripted) {
            javaMedian.put(b, median);
          }
          if (rounds > 1 || ways.size() > 1) {
            String way = ways.size() > 1 ? (scripted ? "script  " : "Java    ") : "KV cache";
            System.out.printf(Locale.ROOT,
                "decode %s batch %2d, median of %d rounds: %8.1f tokens/s (%.1f to %.1f), %6.1f ms/step%s%n",
                way, b, rounds, median, r[0], r[r.length - 1], 1e3 * b / median,
                scripted && javaMedian.containsKey(b) ? String.format(Locale.ROOT, ", %.2fx the Java calls'",
                    median / javaMedian.get(b)) : "");
          }
        }
      }
      String profile = opt.get("profile");
      if (!profile.isEmpty() && size.equals(opt.get("sizes").split(",")[0].trim())) {
        int b = batches.get(0);
        List<int[]> ps = prompts(b, prompt, c.vocabSize(), 2);
        time(cached, ps, n);
        OperatorProfiler.start();
        double s = time(cached, ps, n);
        Path trace = Path.of(profile);
        OperatorProfiler.stop(trace);
        System.out.printf(Locale.ROOT, "profiled: decode batch %d, %d new tokens, %.1f ms/step under the profiler;"
            + " trace %s%n", b, n, 1e3 * s / n, trace.toAbsolutePath());
        try {
          OperatorTraceSummary.print(trace, n, 25);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      for (int[] bn : opt.containsKey("nocache" + size) ? BenchArgs.pairList(opt, "nocache" + size, 1)
          : List.<int[]>of()) {
        int b = bn[0];
        int nn = bn[1];
        Double withCache = cachedRate.get(b + ":" + nn);
        if (withCache == null) {
          withCache = decode(cached, "KV cache ", b, prompt, nn, c, matrixParams, weightBytes, ceiling);
        }
        double without = decode(recompute, "recompute", b, prompt, nn, c, matrixParams, weightBytes, ceiling);
        System.out.printf(Locale.ROOT, "         -> the KV cache is %.1fx faster at batch %d, %d new tokens%n",
            withCache / without, b, nn);
      }
      System.out.printf(Locale.ROOT, "%s done: RSS %.0f MiB, peak RSS %.0f MiB%n", size, ProcStatus.rssMiB(),
          ProcStatus.peakRssMiB());
    }
  }

  /** Runs one decoding measurement and prints it; returns decoded tokens per second. */
  private static double decode(Qwen3Generator gen, String label, int b, int prompt, int n, Qwen3Config c,
      long matrixParams, double weightBytes, double[] ceiling) {
    List<int[]> ps = prompts(b, prompt, c.vocabSize(), 2);
    double prefill = time(gen, ps, 1);
    double total = time(gen, ps, n);
    double decodeSeconds = Math.max(1e-9, total - prefill);
    double tokens = (double) b * (n - 1);
    double rate = tokens / decodeSeconds;
    double avgContext = prompt + n / 2.0;
    double attnFlops = 4.0 * c.numHiddenLayers() * avgContext * c.numAttentionHeads() * c.headDim();
    double flopsPerToken = 2.0 * matrixParams + attnFlops;
    double gflops = rate * flopsPerToken / 1e9;
    double stepsPerSecond = (n - 1) / decodeSeconds;
    double gbps = stepsPerSecond * weightBytes / 1e9;
    String shares = Double.isNaN(ceiling[0]) ? ""
        : String.format(Locale.ROOT, " (%.0f%% of matmul)", 100 * gflops / ceiling[0]);
    String streamShare = Double.isNaN(ceiling[1]) ? ""
        : String.format(Locale.ROOT, " (%.0f%% of matvec)", 100 * gbps / ceiling[1]);
    System.out.printf(Locale.ROOT,
        "decode %s batch %2d, prompt %d, %3d new: %7.2f s total (prefill %.2f s), %8.1f tokens/s,"
            + " %6.1f ms/step, %5.1f GFLOP/s%s, weights streamed %.1f GB/s%s%n",
        label, b, prompt, n, total, prefill, rate, 1e3 / stepsPerSecond, gflops, shares, gbps, streamShare);
    return rate;
  }
}
