package org.magejvm.examples.bench;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyLoss;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.StepReport;

/**
 * Measures one policy-gradient update step on the CPU with random weights: teacher-forced log-probabilities and
 * entropies ({@link TeacherForcing}) inside a DJL {@code GradientCollector}, the GiGPO/PPO loss of the {@code gigpo}
 * policy optimizer (KL off, entropy bonus 0.001), {@code backward}, and one {@link AdamW} step (gradient norm,
 * clip, update, zeroing) over the trainable parameters, for full fine-tuning and for LoRA on all seven projections
 * (through {@link FineTuning}). Prints, per configuration, seconds per step (best and median, split into forward,
 * backward and optimizer; backward includes releasing the step's graph), tokens per second, peak resident memory and the share of the machine's matmul ceiling
 * measured by the same program (before the first configuration and after each one; a configuration is compared with
 * the mean of the two measurements around it).
 *
 * <p>FLOPs counted per token of the sequence (prompt and response): full fine-tuning {@code 6 x parameters}, as in
 * the issue; LoRA {@code 4 x base parameters + 6 x adapter parameters} (the frozen base costs its forward product
 * and the input-gradient half of its backward product, the adapter all three). A second figure counts the products
 * actually executed: the embedding is a lookup, the output head runs on the response positions only, and attention
 * adds {@code 4 x layers x sequence x heads x head_dim} per token forward (times 3 with the backward pass).
 *
 * <p>Arguments are {@code key=value} pairs, all optional:
 *
 * <ul>
 *   <li>{@code run=grid} what to run: {@code grid} (the configurations below) or {@code soak} (RSS over
 *       consecutive steps);
 *   <li>{@code sizes=10m,100m} model sizes, as {@link ModelBench} builds them; {@code batches=4,8};
 *       {@code modes=full,lora};
 *   <li>{@code prompt=96} and {@code response=32} tokens per row; {@code rank=16} LoRA rank (alpha twice the rank);
 *   <li>{@code warmup=1} unmeasured steps and {@code steps=3} measured steps per configuration;
 *   <li>{@code soak=200} steps, {@code soaksize=10m}, {@code soakbatch=4}, {@code soakmode=full} for the soak run,
 *       which prints the resident set size before and after the first step, and every {@code soakevery=50} steps
 *       with the minimum, mean and maximum after each step of the window.
 * </ul>
 *
 * <p>Run with {@code ./mage bench update [key=value...]} after {@code mvn -B -q package -DskipTests}
 * (docs/benchmarks.md has the options used for its figures).
 */
public final class UpdateBench {
  private UpdateBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args {@code key=value} options (see the class comment)
   */
  public static void main(String[] args) {
    Map<String, String> opt = new LinkedHashMap<>();
    opt.put("run", "grid");
    opt.put("sizes", "10m,100m");
    opt.put("batches", "4,8");
    opt.put("modes", "full,lora");
    opt.put("prompt", "96");
    opt.put("response", "32");
    opt.put("rank", "16");
    opt.put("warmup", "1");
    opt.put("steps", "3");
    opt.put("soak", "200");
    opt.put("soaksize", "10m");
    opt.put("soakbatch", "4");
    opt.put("soakmode", "full");
    opt.put("soakevery", "50");
    BenchArgs.apply(opt, args);
    Engine engine = Engine.getEngine("PyTorch");
    System.out.printf(Locale.ROOT, "UpdateBench: %s %s, %d cores visible, libtorch threads %s, Java %s, load %s%n",
        engine.getEngineName(), engine.getVersion(), Runtime.getRuntime().availableProcessors(),
        System.getProperty("ai.djl.pytorch.num_threads", "default"), System.getProperty("java.version"),
        ProcStatus.loadAverage());
    System.out.println("options: " + opt);
    switch (opt.get("run")) {
      case "grid":
        grid(opt);
        break;
      case "soak":
        soak(opt);
        break;
      default:
        throw new IllegalArgumentException("run must be grid or soak, got " + opt.get("run"));
    }
    System.out.printf(Locale.ROOT, "load %s at the end%n", ProcStatus.loadAverage());
  }

  /** The matmul ceiling in GFLOP/s, printed with the load average. */
  private static double ceiling(String when) {
    double gflops = ModelBench.matmulCeiling()[0];
    System.out.printf(Locale.ROOT, "ceiling (%s): matmul 1024^3 f32 %.1f GFLOP/s (best of 12), load %s%n", when,
        gflops, ProcStatus.loadAverage());
    return gflops;
  }

  private static int[] ints(String csv) {
    return Arrays.stream(csv.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
  }

  private static void grid(Map<String, String> opt) {
    // the ceiling is measured before the first configuration and after each one, and every configuration is
    // compared with the mean of the two measurements around it: on a shared machine the ceiling itself moves
    double ceiling = ceiling("start");
    int prompt = Integer.parseInt(opt.get("prompt"));
    int response = Integer.parseInt(opt.get("response"));
    int rank = Integer.parseInt(opt.get("rank"));
    int warmup = Integer.parseInt(opt.get("warmup"));
    int steps = Integer.parseInt(opt.get("steps"));
    List<String> summary = new ArrayList<>();
    Map<String, Double> bestSeconds = new LinkedHashMap<>();
    for (String size : opt.get("sizes").split(",")) {
      Qwen3Config c = ModelBench.config(size.trim());
      for (String mode : opt.get("modes").split(",")) {
        for (int b : ints(opt.get("batches"))) {
          try (Setup s = Setup.create(c, mode.trim(), rank)) {
            Batch batch = Batch.random(b, prompt, response, c.vocabSize(), 7);
            double rssBefore = ProcStatus.rssMiB();
            boolean reset = ProcStatus.resetPeak();
            for (int i = 0; i < warmup; i++) {
              s.step(batch);
            }
            double[][] phases = new double[steps][];
            for (int i = 0; i < steps; i++) {
              phases[i] = s.step(batch);
            }
            double peak = ProcStatus.peakRssMiB();
            double after = ceiling("after " + size.trim() + " " + mode.trim() + " batch " + b);
            Result r = report(size.trim(), mode.trim(), c, s, batch, phases, new double[] {ceiling, after},
                rssBefore, peak, reset);
            summary.add(r.line());
            bestSeconds.put(size.trim() + " " + mode.trim() + " " + b, r.best());
            ceiling = after;
          }
        }
      }
    }
    System.out.println();
    System.out.println("summary (shares of the mean of the ceilings measured just before and just after):");
    summary.forEach(System.out::println);
    for (String size : opt.get("sizes").split(",")) {
      for (int b : ints(opt.get("batches"))) {
        Double full = bestSeconds.get(size.trim() + " full " + b);
        Double lora = bestSeconds.get(size.trim() + " lora " + b);
        if (full != null && lora != null) {
          System.out.printf(Locale.ROOT, "  %-5s batch %d: LoRA step %.2fx faster than full fine-tuning (best times)%n",
              size.trim(), b, full / lora);
        }
      }
    }
  }

  /** One configuration's summary line and best seconds per step. */
  private record Result(String line, double best) {}

  /** Prints one configuration's figures; returns its summary. */
  private static Result report(String size, String mode, Qwen3Config c, Setup s, Batch batch, double[][] phases,
      double[] ceilings, double rssBefore, double peak, boolean reset) {
    int n = phases.length;
    double[] total = new double[n];
    for (int i = 0; i < n; i++) {
      total[i] = phases[i][0] + phases[i][1] + phases[i][2];
    }
    double[] sorted = total.clone();
    Arrays.sort(sorted);
    double best = sorted[0];
    double median = sorted[n / 2];
    int bestIndex = 0;
    for (int i = 0; i < n; i++) {
      if (total[i] == best) {
        bestIndex = i;
      }
    }
    double[] p = phases[bestIndex];
    long tokens = (long) batch.rows() * batch.length();
    long trained = (long) batch.rows() * batch.response();
    long params = c.parameterCount();
    long embed = (long) c.vocabSize() * c.hiddenSize();
    long adapter = s.adapterParameters();
    double attention = 4.0 * c.numHiddenLayers() * batch.length() * c.numAttentionHeads() * c.headDim();
    double nominal;
    double executed;
    if (adapter == 0) {
      nominal = 6.0 * params * tokens;
      executed = 6.0 * (params - embed) * tokens + 6.0 * embed * trained + 3 * attention * tokens;
    } else {
      nominal = 4.0 * params * tokens + 6.0 * adapter * tokens;
      executed = 4.0 * (params - embed) * tokens + 4.0 * embed * trained + 3 * attention * tokens
          + 6.0 * adapter * tokens;
    }
    double ceiling = (ceilings[0] + ceilings[1]) / 2;
    double low = Math.min(ceilings[0], ceilings[1]);
    double high = Math.max(ceilings[0], ceilings[1]);
    double gflopsNominal = nominal / best / 1e9;
    double gflopsExecuted = executed / best / 1e9;
    System.out.printf(Locale.ROOT,
        "%n== %s %s, batch %d x (%d prompt + %d response): %,d parameters, %,d trainable (%d arrays)%n",
        size, mode, batch.rows(), batch.prompt(), batch.response(), params, s.trainableParameters(),
        s.optimizer.parameters().size());
    for (int i = 0; i < n; i++) {
      System.out.printf(Locale.ROOT,
          "  step %d: %7.3f s = forward %.3f + backward %.3f + AdamW %.3f; grad norm %.3g%n",
          i + 1, total[i], phases[i][0], phases[i][1], phases[i][2], phases[i][3]);
    }
    System.out.printf(Locale.ROOT,
        "  best %.3f s (median %.3f s): %.0f tokens/s (%.0f response tokens/s); split of the best: forward %.0f%%,"
            + " backward %.0f%%, AdamW %.0f%%; load %s%n",
        best, median, tokens / best, trained / best, 100 * p[0] / best, 100 * p[1] / best, 100 * p[2] / best,
        ProcStatus.loadAverage());
    System.out.printf(Locale.ROOT,
        "  counted %.1f GFLOP/step -> %.1f GFLOP/s = %.0f%% of the ceiling (%.0f-%.0f%% against the two"
            + " measurements); executed %.1f GFLOP/step -> %.1f GFLOP/s = %.0f%%%n",
        nominal / 1e9, gflopsNominal, 100 * gflopsNominal / ceiling, 100 * gflopsNominal / high,
        100 * gflopsNominal / low, executed / 1e9, gflopsExecuted, 100 * gflopsExecuted / ceiling);
    System.out.printf(Locale.ROOT, "  RSS before the first step %.0f MiB, peak RSS over the steps %.0f MiB%s%n",
        rssBefore, peak, reset ? "" : " (peak not reset: the process's peak so far)");
    return new Result(String.format(Locale.ROOT,
        "  %-5s %-4s batch %d: best %.3f s/step (median %.3f), %.0f tokens/s, fwd/bwd/AdamW %.2f/%.2f/%.2f s,"
            + " %.0f%% of the ceiling counted (%.0f-%.0f%%; %.0f%% executed), peak RSS %.0f MiB",
        size, mode, batch.rows(), best, median, tokens / best, p[0], p[1], p[2], 100 * gflopsNominal / ceiling,
        100 * gflopsNominal / high, 100 * gflopsNominal / low, 100 * gflopsExecuted / ceiling, peak), best);
  }

  private static void soak(Map<String, String> opt) {
    Qwen3Config c = ModelBench.config(opt.get("soaksize"));
    int steps = Integer.parseInt(opt.get("soak"));
    int every = Integer.parseInt(opt.get("soakevery"));
    int b = Integer.parseInt(opt.get("soakbatch"));
    try (Setup s = Setup.create(c, opt.get("soakmode"), Integer.parseInt(opt.get("rank")))) {
      Batch batch = Batch.random(b, Integer.parseInt(opt.get("prompt")), Integer.parseInt(opt.get("response")),
          c.vocabSize(), 7);
      int weightArrays = s.model.weights().manager().getManagedArrays().size();
      System.out.printf(Locale.ROOT, "soak: %s %s, batch %d, %d steps; weights' manager holds %d arrays%n",
          opt.get("soaksize"), opt.get("soakmode"), b, steps, weightArrays);
      System.out.printf(Locale.ROOT, "step %4d: RSS %7.1f MiB (Java heap committed %5.1f MiB), load %s%n", 0,
          ProcStatus.rssMiB(), Runtime.getRuntime().totalMemory() / 1048576.0, ProcStatus.loadAverage());
      long t0 = System.nanoTime();
      double min = Double.MAX_VALUE;
      double max = 0;
      double windowMin = Double.MAX_VALUE;
      double windowMax = 0;
      double windowSum = 0;
      int windowSteps = 0;
      for (int i = 1; i <= steps; i++) {
        s.step(batch);
        double rss = ProcStatus.rssMiB();
        min = Math.min(min, rss);
        max = Math.max(max, rss);
        windowMin = Math.min(windowMin, rss);
        windowMax = Math.max(windowMax, rss);
        windowSum += rss;
        windowSteps++;
        if (i == 1) {
          System.out.printf(Locale.ROOT, "step %4d: RSS %7.1f MiB after the first step (gradients now allocated)%n",
              i, rss);
        }
        if (i % every == 0 || i == steps) {
          System.out.printf(Locale.ROOT,
              "step %4d: RSS %7.1f MiB; over the last %d steps min %.1f, mean %.1f, max %.1f MiB (Java heap"
                  + " committed %.1f MiB), %.3f s/step so far, load %s%n",
              i, rss, windowSteps, windowMin, windowSum / windowSteps, windowMax,
              Runtime.getRuntime().totalMemory() / 1048576.0, (System.nanoTime() - t0) / 1e9 / i,
              ProcStatus.loadAverage());
          windowMin = Double.MAX_VALUE;
          windowMax = 0;
          windowSum = 0;
          windowSteps = 0;
        }
      }
      System.out.printf(Locale.ROOT,
          "RSS after each step ranged over [%.1f, %.1f] MiB; weights' manager holds %d arrays (%d before);"
              + " AdamW took %d steps; peak RSS %.1f MiB%n",
          min, max, s.model.weights().manager().getManagedArrays().size(), weightArrays,
          s.optimizer.stepCount(), ProcStatus.peakRssMiB());
    }
  }

  /** Token ids and advantages of one batch. */
  private record Batch(List<int[]> prompts, List<int[]> responses, double[] advantages) {
    static Batch random(int rows, int prompt, int response, int vocab, long seed) {
      Random r = new Random(seed);
      List<int[]> ps = new ArrayList<>();
      List<int[]> rs = new ArrayList<>();
      double[] adv = new double[rows];
      for (int i = 0; i < rows; i++) {
        ps.add(r.ints(prompt, 0, vocab).toArray());
        rs.add(r.ints(response, 0, vocab).toArray());
        adv[i] = i % 2 == 0 ? 1 : -1;
      }
      return new Batch(ps, rs, adv);
    }

    int rows() {
      return prompts.size();
    }

    int prompt() {
      return prompts.get(0).length;
    }

    int response() {
      return responses.get(0).length;
    }

    int length() {
      return prompt() + response();
    }
  }

  /** A model with its fine-tuning setup, loss and optimizer. */
  private static final class Setup implements AutoCloseable {
    final Qwen3Model model;
    final LoraAdapter adapter;
    final FineTuning tuning;
    final AdamW optimizer;
    final PolicyLoss loss;
    final boolean withEntropy;

    private Setup(Qwen3Model model, LoraAdapter adapter, FineTuning tuning, AdamW optimizer, PolicyOptimizer po) {
      this.model = model;
      this.adapter = adapter;
      this.tuning = tuning;
      this.optimizer = optimizer;
      this.loss = po.loss();
      this.withEntropy = po.config().entropyCoefficient() > 0;
    }

    static Setup create(Qwen3Config c, String mode, int rank) {
      Qwen3Model model = Qwen3Model.random(c, 1, Device.cpu(), DataType.FLOAT32);
      LoraAdapter adapter = null;
      FineTuning tuning;
      switch (mode) {
        case "full":
          tuning = FineTuning.full(model, FineTuning.KlReference.NONE);
          break;
        case "lora":
          adapter = LoraAdapter.create(model,
              LoraConfig.builder().setRank(rank).optAlpha(2.0 * rank).optAllLinear().build(), 2);
          tuning = FineTuning.lora(model, adapter, FineTuning.KlReference.NONE);
          break;
        default:
          model.close();
          throw new IllegalArgumentException("mode must be full or lora, got " + mode);
      }
      OptimizerConfig oc = OptimizerConfig.builder().optKlCoefficient(0).build();
      PolicyOptimizer po = ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo").create(oc);
      AdamW optimizer = new AdamW(tuning.trainableParameters(), AdamWConfig.builder().optLearningRate(1e-5).build());
      return new Setup(model, adapter, tuning, optimizer, po);
    }

    long adapterParameters() {
      return adapter == null ? 0 : adapter.parameterCount();
    }

    long trainableParameters() {
      long n = 0;
      for (NDArray a : tuning.trainableParameters().values()) {
        n += a.size();
      }
      return n;
    }

    /**
     * One update step: forward (scores and loss), backward, AdamW.
     *
     * @return {forward s, backward s, optimizer s, gradient norm}
     */
    double[] step(Batch batch) {
      long t0 = System.nanoTime();
      long t1;
      try (NDManager m = model.newManager();
          GradientCollector collector = m.getEngine().newGradientCollector()) {
        TokenScores scores = new TeacherForcing(model).score(m, batch.prompts(), batch.responses(), 1.0,
            withEntropy);
        long tokens = Arrays.stream(scores.lengths()).sum();
        LossInput.Builder input = LossInput.builder()
            .setLogProbs(scores.logProbs())
            .setOldLogProbs(scores.logProbs().stopGradient()) // ratio 1, as in the first epoch over fresh rollouts
            .setAdvantages(m.create(batch.advantages()).toType(model.outputType(), false))
            .setMask(scores.mask())
            .setNormalizer(tokens);
        if (withEntropy) {
          input.optEntropies(scores.entropy().orElseThrow());
        }
        LossResult result = loss.compute(input.build());
        t1 = System.nanoTime();
        collector.backward(result.loss());
        scores.completeBackward(collector);
      }
      long t2 = System.nanoTime(); // the backward phase includes releasing the step's graph and arrays
      StepReport report = optimizer.step();
      long t3 = System.nanoTime();
      return new double[] {(t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9, report.gradNorm()};
    }

    @Override
    public void close() {
      optimizer.close();
      tuning.close();
      model.close();
      if (adapter != null) {
        adapter.close();
      }
    }
  }
}
