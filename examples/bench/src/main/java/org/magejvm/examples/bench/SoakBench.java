package org.magejvm.examples.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.KvCache;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Checks that decoding does not leak native memory: 1000 decoding steps through the model API with a KV cache
 * allocated up front (so nothing should grow), printing the resident set size every 100 steps; then 1000 more steps
 * as 10 generator calls of 100 tokens each (cache allocation, growth and release every call), printing it after each
 * call. Both must stay flat once the JVM heap has reached its working size (its committed size is printed
 * alongside, since it is part of the resident set).
 *
 * <p>Arguments (optional): {@code size=10m} (or {@code 100m}), {@code batch=8}. Run it with a fixed, pre-touched
 * heap ({@code -Xms256m -Xmx256m -XX:+AlwaysPreTouch}) so that the resident set does not also grow while the JVM
 * first touches its young generation, which would hide what native memory does.
 */
public final class SoakBench {
  private SoakBench() {}

  private static double heapMiB() {
    return Runtime.getRuntime().totalMemory() / 1048576.0;
  }

  /**
   * Runs the soak test.
   *
   * @param args {@code size=...}, {@code batch=...}
   */
  public static void main(String[] args) {
    String size = "10m";
    int batch = 8;
    for (String a : args) {
      if (a.startsWith("size=")) {
        size = a.substring(5);
      } else if (a.startsWith("batch=")) {
        batch = Integer.parseInt(a.substring(6));
      } else {
        throw new IllegalArgumentException("unknown argument " + a + " (size=10m|100m, batch=N)");
      }
    }
    Qwen3Config c = ModelBench.config(size);
    int prompt = 32;
    int steps = 1000;
    Random r = new Random(0);
    List<int[]> prompts = new ArrayList<>();
    long[] ids = new long[batch * prompt];
    for (int i = 0; i < batch; i++) {
      int[] p = new int[prompt];
      for (int j = 0; j < prompt; j++) {
        p[j] = r.nextInt(c.vocabSize());
        ids[i * prompt + j] = p[j];
      }
      prompts.add(p);
    }
    System.out.printf(Locale.ROOT, "SoakBench: %s model, batch %d, prompt %d, %d steps%n", size, batch, prompt,
        steps);
    try (Qwen3Model model = Qwen3Model.random(c, 1, Device.cpu(), DataType.FLOAT32)) {
      int weightArrays = model.weights().manager().getManagedArrays().size();
      GradMode noGrad = GradMode.disabled();
      try (NDManager run = model.newManager();
          KvCache cache = model.newCache(run, batch, prompt + steps)) {
        int[] pads = new int[batch];
        long[] last;
        long t0 = System.nanoTime();
        try (NDManager step = run.newSubManager()) {
          NDArray hidden = model.forward(step.create(ids, new Shape(batch, prompt)), pads, cache);
          last = model.logits(hidden.get(":, -1, :")).argMax(-1).toLongArray();
        }
        System.out.printf(Locale.ROOT, "model API  step %4d: RSS %7.1f MiB (after prefill; cache %.0f MiB)%n", 0,
            ProcStatus.rssMiB(), cache.bytes() / 1048576.0);
        for (int s = 1; s <= steps; s++) {
          try (NDManager step = run.newSubManager()) {
            NDArray hidden = model.forward(step.create(last, new Shape(batch, 1)), pads, cache);
            last = model.logits(hidden.get(":, -1, :")).argMax(-1).toLongArray();
          }
          if (s % 100 == 0) {
            System.out.printf(Locale.ROOT, "model API  step %4d: RSS %7.1f MiB (Java heap committed %5.1f MiB),"
                + " %.1f ms/step so far%n", s, ProcStatus.rssMiB(), heapMiB(), (System.nanoTime() - t0) / 1e6 / s);
          }
        }
      } finally {
        noGrad.close();
      }
      Qwen3Generator gen = Qwen3Generator.of(model);
      SamplingConfig cfg = SamplingConfig.builder().optMaxNewTokens(100).build();
      for (int call = 1; call <= 10; call++) {
        gen.generate(prompts, cfg, Set.of());
        System.out.printf(Locale.ROOT, "generator  step %4d: RSS %7.1f MiB (Java heap committed %5.1f MiB)%n",
            call * 100, ProcStatus.rssMiB(), heapMiB());
      }
      System.out.printf(Locale.ROOT, "arrays held by the weights' manager: %d before, %d after; peak RSS %.1f MiB%n",
          weightArrays, model.weights().manager().getManagedArrays().size(), ProcStatus.peakRssMiB());
    }
  }
}
