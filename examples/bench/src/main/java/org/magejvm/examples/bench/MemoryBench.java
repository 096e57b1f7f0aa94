package org.magejvm.examples.bench;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.magejvm.examples.memory.TrainingMemory;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.generate.Recompute;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.AttentionKernel;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Checks {@link TrainingMemory}'s activation estimate against a measurement: the peak resident memory of teacher-
 * forced forward and backward passes of a random float32 model with a LoRA adapter on all seven projections, on the
 * CPU, above the resident memory before the pass (the peak is reset through {@code /proc/self/clear_refs} first).
 *
 * <p>Run it with {@code MALLOC_MMAP_THRESHOLD_=65536}, so that glibc returns freed tensors to the system and the
 * resident memory follows the live tensors; with glibc's default, freed memory stays resident and the peak grows by
 * the fragmentation (20 to 45% more in our runs).
 *
 * <p>Arguments: hidden layers heads kvHeads headDim intermediate vocab batch promptTokens responseTokens rank
 * (default: 512 4 8 4 64 1536 8000 2 512 512 8), then optionally {@code attention=auto|explicit|fused}, {@code
 * recompute_layers=auto|on|off} and {@code recompute_head=auto|on|off} (the library's defaults, {@code auto}, when
 * not given; the choices {@code auto} makes for the shape are printed). Each pass's wall time is printed too, so the
 * same shape run with an option off gives the time that option costs or saves.
 */
public final class MemoryBench {

  private MemoryBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args the model shape and batch, as listed in the class comment
   * @throws IOException when /proc cannot be read or written
   * @throws InterruptedException when interrupted between passes
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    int[] v = {512, 4, 8, 4, 64, 1536, 8000, 2, 512, 512, 8};
    int numbers = 0;
    while (numbers < args.length && numbers < v.length && !args[numbers].contains("=")) {
      v[numbers] = Integer.parseInt(args[numbers]);
      numbers++;
    }
    Map<String, String> options = new LinkedHashMap<>();
    options.put("attention", "auto");
    options.put("recompute_layers", "auto");
    options.put("recompute_head", "auto");
    BenchArgs.apply(options, Arrays.copyOfRange(args, numbers, args.length));
    AttentionKernel kernel = BenchArgs.enumOption(options, "attention", AttentionKernel.class);
    Recompute layers = BenchArgs.enumOption(options, "recompute_layers", Recompute.class);
    Recompute head = BenchArgs.enumOption(options, "recompute_head", Recompute.class);
    Qwen3Config config = Qwen3Config.builder().setHiddenSize(v[0]).setNumHiddenLayers(v[1])
        .setNumAttentionHeads(v[2]).optNumKeyValueHeads(v[3]).optHeadDim(v[4]).setIntermediateSize(v[5])
        .setVocabSize(v[6]).optTieWordEmbeddings(true).build();
    int batch = v[7];
    int prompt = v[8];
    int response = v[9];
    int rank = v[10];
    TrainingMemory estimate = TrainingMemory.resolved(config, rank, EnumSet.allOf(Projection.class), prompt,
        response, batch, 4, kernel, layers, head);
    System.out.printf(Locale.ROOT, "MemoryBench: hidden %d, %d layers, %d heads (%d key/value) of %d, MLP %d,"
        + " vocabulary %d; LoRA r=%d on all seven projections, batch %d x (%d + %d) tokens, float32 on the CPU,"
        + " MALLOC_MMAP_THRESHOLD_=%s%n", v[0], v[1], v[2], v[3], v[4], v[5], v[6], rank, batch, prompt, response,
        System.getenv().getOrDefault("MALLOC_MMAP_THRESHOLD_", "(glibc default)"));
    System.out.printf(Locale.ROOT, "options: attention=%s recompute_layers=%s recompute_head=%s; for this shape:"
        + " %s attention, layers %s, head %s%n", options.get("attention"), options.get("recompute_layers"),
        options.get("recompute_head"), estimate.fusedAttention() ? "fused" : "explicit",
        estimate.recomputeLayers() ? "recomputed" : "kept", estimate.recomputeHead() ? "recomputed" : "kept");
    Random random = new Random(1);
    List<int[]> prompts = new ArrayList<>();
    List<int[]> responses = new ArrayList<>();
    for (int b = 0; b < batch; b++) {
      prompts.add(random.ints(prompt, 0, config.vocabSize()).toArray());
      responses.add(random.ints(response, 0, config.vocabSize()).toArray());
    }
    try (Qwen3Model model = Qwen3Model.random(config, 1, Device.cpu(), DataType.FLOAT32);
        LoraAdapter adapter = LoraAdapter.create(model, LoraConfig.builder().setRank(rank).optAllLinear().build(), 1);
        FineTuning ft = FineTuning.lora(model, adapter, FineTuning.KlReference.NONE)) {
      model.setAttention(kernel);
      TeacherForcing tf = new TeacherForcing(model).withRecompute(layers, head);
      for (int pass = 0; pass < 3; pass++) {
        System.gc();
        Thread.sleep(200);
        double before = ProcStatus.rssMiB();
        Files.writeString(Path.of("/proc/self/clear_refs"), "5"); // resets the peak (VmHWM) to the current RSS
        long start = System.nanoTime();
        try (NDManager m = model.newManager();
            GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
          TokenScores scores = tf.score(m, prompts, responses, 1.0, false);
          NDArray loss = scores.logProbs().sum().neg();
          gc.backward(loss);
          scores.completeBackward(gc);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        ft.zeroGradients();
        double peak = ProcStatus.peakRssMiB();
        System.out.printf(Locale.ROOT, "pass %d: resident before %.0f MiB, peak %.0f MiB: %.0f MiB for the pass;"
            + " %.2f s (%.1f us per token slot)%n", pass, before, peak, peak - before, seconds,
            seconds * 1e6 / ((double) batch * (prompt + response)));
      }
    }
    System.out.printf(Locale.ROOT, "estimate (mage memory): activations %.0f MiB%n",
        estimate.activationBytes() / (double) (1 << 20));
  }
}
