package org.magejvm.examples.cli;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.magejvm.examples.memory.Qwen3Presets;
import org.magejvm.examples.memory.TrainingMemory;
import org.magejvm.impl.llm.generate.Recompute;
import org.magejvm.impl.llm.model.AttentionKernel;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code mage memory}: the device memory of one LoRA (or full) training step of a Qwen3 model, from its
 * {@code config.json} or a published configuration ({@link Qwen3Presets}), at given prompt and response lengths and
 * with the training config's memory-saving choices ({@code update.attention}, {@code update.recompute_layers},
 * {@code update.recompute_head}; {@code auto} resolved for the shape as a training pass resolves it), next to the
 * totals of the other choices (see {@link TrainingMemory} for what is counted and how).
 */
@Command(name = "memory", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Compute the memory one LoRA training step of a Qwen3 model needs: base weights, adapters,"
        + " their gradients, AdamW's moments, and the activations of a teacher-forced forward and backward pass"
        + " at the given lengths, with fused or explicit attention and with or without recomputation (the training"
        + " config's update.attention, update.recompute_layers and update.recompute_head).",
        "The formula is documented in docs/training.md (\"Memory for real checkpoints\")."})
final class MemoryCommand implements Callable<Integer>, Limits.OptionPhase {

  /** Where the architecture comes from: exactly one of the two. */
  static final class Source {
    @Option(names = "--model", paramLabel = "DIR", required = true,
        description = "A checkpoint directory (only its config.json is read).")
    Path model;

    @Option(names = "--preset", paramLabel = "NAME", required = true,
        description = "A published Qwen3 config: qwen3-0.6b, qwen3-1.7b or qwen3-4b.")
    String preset;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Mixin LoraOptions lora;

  @Option(names = "--prompt-tokens", paramLabel = "P", defaultValue = "4096",
      description = "Prompt tokens per sequence (default: ${DEFAULT-VALUE}, the spec's limit for Kuhn Poker and"
          + " Tic-Tac-Toe).")
  int promptTokens;

  @Option(names = "--response-tokens", paramLabel = "T", defaultValue = "8192",
      description = "Response tokens per sequence (default: ${DEFAULT-VALUE}, Kuhn Poker's limit; Tic-Tac-Toe's is"
          + " 3072).")
  int responseTokens;

  @Option(names = "--batch", paramLabel = "B", defaultValue = "1",
      description = "Sequences per forward and backward pass, the micro-batch (default: ${DEFAULT-VALUE}; the"
          + " reference uses 8 per GPU).")
  int batch;

  @Option(names = "--dtype", paramLabel = "f32|f16", defaultValue = "f16",
      description = "Type of the base weights and activations (default: ${DEFAULT-VALUE}, as on a GPU).")
  String dtype;

  @Option(names = "--attention", paramLabel = "auto|explicit|fused", defaultValue = "auto",
      description = "Attention as update.attention computes it: libtorch's fused kernel, which keeps no L^2 array,"
          + " or the explicit product; auto (the default) fuses from " + Qwen3Model.FUSED_FROM_KEYS + " tokens.")
  String attention;

  @Option(names = "--recompute-layers", paramLabel = "auto|on|off", defaultValue = "auto",
      description = "Whether the decoder layers' activations are recomputed in the backward pass"
          + " (update.recompute_layers); auto (the default) recomputes where they would take 1 GiB or more.")
  String recomputeLayers;

  @Option(names = "--recompute-head", paramLabel = "auto|on|off", defaultValue = "auto",
      description = "Whether the output head's logits are recomputed in the backward pass"
          + " (update.recompute_head); auto (the default) recomputes where they would take 1 GiB or more.")
  String recomputeHead;

  @Option(names = "--json", description = "Print JSON (bytes) instead of a table.")
  boolean json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * @return the estimate the options describe
   * @throws IllegalArgumentException naming the option or file that is wrong
   */
  TrainingMemory estimate() {
    Qwen3Config config;
    if (source.preset != null) {
      config = Qwen3Presets.get(source.preset).orElseThrow(() -> new IllegalArgumentException(
          "--preset: unknown preset '" + source.preset + "'; known presets: "
              + String.join(", ", Qwen3Presets.all().keySet())));
    } else {
      Path file = Files.isDirectory(source.model) ? source.model.resolve(Qwen3Config.FILE_NAME) : source.model;
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException("--model: " + file + " does not exist");
      }
      config = Qwen3Config.fromFile(file);
    }
    int bytes = ModelOptions.parseDtype(dtype).getNumOfBytes();
    int rank = lora.rank == null ? 16 : lora.rank;
    String where = source.preset != null ? "preset " + source.preset : source.model.toString();
    Limits l = Limits.of(spec)
        .count("--lora-rank", rank, 0, config.hiddenSize(), "the model's hidden_size in " + where + "; 0: full"
            + " fine-tuning")
        .count("--prompt-tokens", promptTokens, 1, config.maxPositionEmbeddings(),
            "the model's context, max_position_embeddings in " + where)
        .count("--response-tokens", responseTokens, 1, config.maxPositionEmbeddings(),
            "the model's context, max_position_embeddings in " + where)
        .count("--batch", batch, 1, Limits.MAX_META_EPISODES, Limits.SANE);
    int context = config.maxPositionEmbeddings();
    if (promptTokens >= 1 && responseTokens >= 1 && promptTokens <= context && responseTokens <= context
        && (long) promptTokens + responseTokens > context) {
      l.error("--prompt-tokens + --response-tokens must be <= " + config.maxPositionEmbeddings() + " (the model's"
          + " context, max_position_embeddings in " + where + "), got " + ((long) promptTokens + responseTokens));
    }
    AttentionKernel kernel = choice(l, "--attention", attention, AttentionKernel.values());
    Recompute layers = choice(l, "--recompute-layers", recomputeLayers, Recompute.values());
    Recompute head = choice(l, "--recompute-head", recomputeHead, Recompute.values());
    l.check();
    if (rank == 0 && bytes != 4) {
      throw new IllegalArgumentException("full fine-tuning (--lora-rank 0) trains float32 weights; add --dtype f32");
    }
    return TrainingMemory.resolved(config, rank, lora.targets(), promptTokens, responseTokens, batch, bytes, kernel,
        layers, head);
  }

  /**
   * @param limits where a wrong value is reported
   * @param option the option's name
   * @param text its value
   * @param values the choices
   * @param <E> the choice's type
   * @return the choice {@code text} names (case-insensitive), or null after reporting it
   */
  private static <E extends Enum<E>> E choice(Limits limits, String option, String text, E[] values) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    for (E v : values) {
      if (v.name().equals(t)) {
        return v;
      }
    }
    limits.error(option + ": unknown value '" + text + "'; expected " + Arrays.stream(values)
        .map(v -> v.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", ")));
    return null;
  }

  /** A combination of memory-saving choices whose total is printed next to the chosen one's. */
  private record Alternative(String key, String label, boolean fused, boolean layers, boolean head) {}

  /** The combinations docs/training.md compares, from none to all three. */
  private static final List<Alternative> ALTERNATIVES = List.of(
      new Alternative("explicit", "explicit attention, nothing recomputed", false, false, false),
      new Alternative("fused", "fused attention, nothing recomputed", true, false, false),
      new Alternative("fused_recompute_head", "fused attention, recomputed head", true, false, true),
      new Alternative("fused_recompute_layers", "fused attention, recomputed layers", true, true, false),
      new Alternative("fused_recompute_layers_head", "fused attention, recomputed layers and head", true, true,
          true));

  /** @return the resolved choices of a step, in words */
  private static String choices(TrainingMemory e) {
    return (e.fusedAttention() ? "fused" : "explicit") + " attention, layers "
        + (e.recomputeLayers() ? "recomputed" : "kept") + ", head " + (e.recomputeHead() ? "recomputed" : "kept");
  }

  @Override
  public Integer call() {
    TrainingMemory e = estimate();
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("model", label());
      root.put("dtype", e.weightBytes() == 2 ? "float16" : "float32");
      root.put("lora_rank", e.rank());
      root.put("lora_targets", e.targets().stream().map(Projection::moduleName).collect(Collectors.toList()));
      root.put("prompt_tokens", e.promptTokens());
      root.put("response_tokens", e.responseTokens());
      root.put("batch", e.batch());
      root.put("attention", e.fusedAttention() ? "fused" : "explicit");
      root.put("recompute_layers", e.recomputeLayers());
      root.put("recompute_head", e.recomputeHead());
      root.put("base_parameters", e.config().parameterCount());
      root.put("trainable_parameters", e.trainableParameters());
      root.put("bytes", e.parts());
      root.put("activation_bytes", e.activationBytes());
      root.put("total_bytes", e.totalBytes());
      Map<String, Long> byChoice = new LinkedHashMap<>();
      for (Alternative c : ALTERNATIVES) {
        byChoice.put(c.key(), e.with(c.fused(), c.layers(), c.head()).totalBytes());
      }
      root.put("total_bytes_by_choice", byChoice);
      root.put("kv_cache_bytes_per_sequence", e.kvCacheBytesPerSequence());
      out.println(new GsonBuilder().setPrettyPrinting().create().toJson(root));
    } else {
      print(out, e);
    }
    out.flush();
    return 0;
  }

  private String label() {
    return source.preset != null ? source.preset.trim().toLowerCase(Locale.ROOT) : source.model.toString();
  }

  private void print(PrintWriter out, TrainingMemory e) {
    Qwen3Config c = e.config();
    String type = e.weightBytes() == 2 ? "float16" : "float32";
    out.printf(Locale.ROOT, "mage memory: %s, %s, %s weights%n", label(),
        e.full() ? "full fine-tuning" : "LoRA r=" + e.rank() + " on " + (e.targets().size() == 7 ? "all seven"
            + " projections" : e.targets().stream().map(Projection::moduleName).collect(Collectors.joining(","))),
        type);
    out.printf(Locale.ROOT, "  %d layers, hidden %d, intermediate %d, %d heads (%d key/value) of %d, vocabulary %d%s%n",
        c.numHiddenLayers(), c.hiddenSize(), c.intermediateSize(), c.numAttentionHeads(), c.numKeyValueHeads(),
        c.headDim(), c.vocabSize(), c.tieWordEmbeddings() ? ", tied embeddings" : "");
    out.printf(Locale.ROOT, "  %,d base parameters, %,d trainable%n", c.parameterCount(), e.trainableParameters());
    out.printf(Locale.ROOT, "  batch %d x (%d prompt + %d response) = %,d tokens per sequence%n", e.batch(),
        e.promptTokens(), e.responseTokens(), e.sequence());
    out.printf(Locale.ROOT, "  %s (--attention %s, --recompute-layers %s, --recompute-head %s)%n%n", choices(e),
        attention.trim().toLowerCase(Locale.ROOT), recomputeLayers.trim().toLowerCase(Locale.ROOT),
        recomputeHead.trim().toLowerCase(Locale.ROOT));
    Map<String, Long> parts = e.parts();
    String format = "  %-34s %12s%n";
    for (String k : TrainingMemory.staticParts()) {
      out.printf(Locale.ROOT, format, k, size(parts.get(k)));
    }
    out.printf(Locale.ROOT, format, "activations", size(e.activationBytes()));
    for (String k : TrainingMemory.activationParts()) {
      out.printf(Locale.ROOT, format, "  " + k, size(parts.get(k)));
    }
    out.printf(Locale.ROOT, format, "total", size(e.totalBytes()));
    out.printf(Locale.ROOT, "%n  the total with other choices:%n");
    for (Alternative alt : ALTERNATIVES) {
      out.printf(Locale.ROOT, "    %-45s %12s%n", alt.label(), size(e.with(alt.fused(), alt.layers(), alt.head())
          .totalBytes()));
    }
    out.printf(Locale.ROOT, "%n  Not counted: the CUDA context, and the KV cache of sampling, %s per sequence of"
        + " %,d tokens%n  (rollouts and updates take turns).%n", size(e.kvCacheBytesPerSequence()), e.sequence());
  }

  /**
   * @param bytes a size
   * @return it in GiB with two decimals, or in MiB below 1 GiB
   */
  static String size(long bytes) {
    double gib = bytes / (double) (1L << 30);
    return gib >= 1 ? String.format(Locale.ROOT, "%.2f GiB", gib)
        : String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
  }
}
