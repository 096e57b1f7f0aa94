package org.magejvm.examples.cli;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.model.Qwen3Model;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code mage logits}: the model's logits for a sequence of token ids (no tokenizer needed). */
@Command(name = "logits", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Print a checkpoint's logits for token ids: the last position, or every position with --all.")
final class LogitsCommand implements Callable<Integer>, Limits.OptionPhase {

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "Hugging Face checkpoint directory (config.json + safetensors).")
  Path model;

  @Option(names = "--ids", required = true, split = ",", paramLabel = "ID,ID,...",
      description = "Input token ids, comma-separated.")
  List<Integer> ids;

  @Option(names = "--all", description = "Print every position, not only the last.")
  boolean all;

  @Option(names = "--top", paramLabel = "N", defaultValue = "10",
      description = "In the table, how many of the largest logits to show per position (default: ${DEFAULT-VALUE}).")
  int top;

  @Option(names = "--json", description = "Print JSON with every logit.")
  boolean json;

  @Mixin ModelOptions modelOptions;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("--ids needs at least one token id");
    }
    Limits.range(spec, "--top", top, 1, Integer.MAX_VALUE, "an int");
    Limits.tokenIds(spec, ids, Limits.modelConfig(model), model, all);
    Limits.endOfOptions();
    int[] tokens = ids.stream().mapToInt(Integer::intValue).toArray();
    float[][] rows;
    Qwen3Checkpoint.Options load = modelOptions.toOptions(0, true);
    try (Qwen3Model m = Qwen3Checkpoint.loadModel(model, load.device(), load.dtype(),
        load.nonFiniteWeights());
        NDManager manager = m.newManager()) {
      NDArray logits = m.logits(manager, tokens); // (1, T, V)
      int t = tokens.length;
      int v = m.config().vocabSize();
      float[] flat = logits.toType(ai.djl.ndarray.types.DataType.FLOAT32, false).toFloatArray();
      requireFinite(m, tokens, flat, v);
      int first = all ? 0 : t - 1;
      rows = new float[t - first][];
      for (int p = first; p < t; p++) {
        rows[p - first] = Arrays.copyOfRange(flat, p * v, (p + 1) * v);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    int firstPosition = tokens.length - rows.length;
    if (json) {
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("model", model.toString());
      root.put("input_ids", tokens);
      root.put("positions", all ? "all" : "last");
      List<float[]> list = new ArrayList<>(Arrays.asList(rows));
      root.put("logits", list);
      out.println(new GsonBuilder().serializeSpecialFloatingPointValues().create().toJson(root));
    } else {
      for (int r = 0; r < rows.length; r++) {
        float[] row = rows[r];
        Integer[] order = new Integer[row.length];
        for (int i = 0; i < order.length; i++) {
          order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Float.compare(row[b], row[a]));
        out.printf(Locale.ROOT, "position %d (input id %d): top %d of %d logits%n", firstPosition + r,
            tokens[firstPosition + r], Math.min(top, row.length), row.length);
        for (int i = 0; i < Math.min(top, row.length); i++) {
          out.printf(Locale.ROOT, "  id %6d  %12.6f%n", order[i], row[order[i]]);
        }
      }
    }
    out.flush();
    return 0;
  }

  /**
   * Fails, as {@code mage generate} does on NaN log-probabilities, when any logit is NaN or infinite: the message
   * names the first such position and, from a second forward pass with a check after every module ({@link
   * Qwen3Model#firstNonFinite}), the first module whose output is not finite.
   */
  private static void requireFinite(Qwen3Model m, int[] tokens, float[] flat, int vocab) {
    int first = -1;
    long count = 0;
    for (int i = 0; i < flat.length; i++) {
      if (!Float.isFinite(flat[i])) {
        if (first < 0) {
          first = i;
        }
        count++;
      }
    }
    if (first < 0) {
      return;
    }
    String where;
    try {
      where = m.firstNonFinite(tokens).orElse(null);
    } catch (RuntimeException e) {
      where = null; // the diagnosis must not hide the error it explains
    }
    throw new IllegalStateException("the model produced " + count + " non-finite logits (the first at position "
        + first / vocab + ", id " + first % vocab + ", weights in " + m.dtype().name() + ")"
        + (where != null ? "; the first non-finite value is in the output of " + where
            : "; no module's output was non-finite in a second pass with a check after every module"));
  }
}
