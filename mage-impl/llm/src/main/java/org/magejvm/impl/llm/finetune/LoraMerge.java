package org.magejvm.impl.llm.finetune;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.Qwen3Weights;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;
import org.magejvm.impl.llm.safetensors.TensorSources;

/**
 * Folds a LoRA adapter into base weights, {@code W' = W + scaling * B A} for every targeted projection, either in
 * memory or into a new Hugging Face checkpoint directory that any Qwen3 loader (this project's
 * {@code Qwen3Checkpoint} or {@code transformers}) reads as a plain model.
 */
public final class LoraMerge {

  /** Tokenizer and generation files copied next to an exported checkpoint when the source directory has them. */
  public static final List<String> TOKENIZER_FILES = List.of("tokenizer.json", "tokenizer_config.json",
      "special_tokens_map.json", "added_tokens.json", "vocab.json", "merges.txt", "tokenizer.model",
      "chat_template.jinja", "chat_template.json", "generation_config.json");

  private LoraMerge() {}

  /**
   * Adds the adapter's change to the weights in place (no gradient tracking); afterwards the weights alone compute
   * what weights plus adapter computed, so detach the adapter. The sum is formed in float64 and rounded once to the
   * weights' type.
   *
   * @param weights the base weights, changed
   * @param adapter the adapter, unchanged (its enabled switch is ignored)
   * @throws IllegalArgumentException when the adapter does not fit the weights
   */
  public static void mergeInto(Qwen3Weights weights, LoraAdapter adapter) {
    adapter.checkCompatible(weights.config(), weights.dtype(), weights.device());
    GradMode noGrad = GradMode.disabled();
    try (NDManager tmp = weights.manager().newSubManager()) {
      for (int l = 0; l < weights.config().numHiddenLayers(); l++) {
        for (Projection p : adapter.config().targetModules()) {
          NDArray w = weights.parameters().get(p.weightName(l));
          NDArray merged = merged(w, adapter, l, p, tmp);
          // in place, so that the Layer records and the parameter map keep pointing at the same arrays
          w.set(new NDIndex(":"), merged.getDataType() == w.getDataType() ? merged
              : tmp(merged.toType(w.getDataType(), false), tmp));
        }
      }
    } finally {
      noGrad.close();
    }
  }

  /**
   * W + scaling * B A formed in float64 (so that the merged weight is rounded once, to whatever type it is stored
   * in), owned by tmp.
   */
  private static NDArray merged(NDArray w, LoraAdapter adapter, int layer, Projection p, NDManager tmp) {
    NDArray b = tmp(adapter.loraB(layer, p).toType(DataType.FLOAT64, true), tmp);
    NDArray a = tmp(adapter.loraA(layer, p).toType(DataType.FLOAT64, true), tmp);
    NDArray base = tmp(w.toType(DataType.FLOAT64, true), tmp);
    return b.matMul(a).mul(adapter.config().scaling()).add(base);
  }

  private static NDArray tmp(NDArray a, NDManager tmp) {
    a.attach(tmp);
    return a;
  }

  /**
   * Writes the merged model as a checkpoint directory with float32 weights: {@code config.json},
   * {@code model.safetensors} and, from {@code tokenizerSource} when given, the tokenizer files it has (see
   * {@link #TOKENIZER_FILES}). The model and the adapter are left unchanged.
   *
   * @param model the base model
   * @param adapter the adapter to fold in (its enabled switch is ignored)
   * @param outDir the directory to write (created if needed; files of the same names are replaced)
   * @param tokenizerSource the base checkpoint directory to copy tokenizer files from, or null
   * @throws CheckpointException when a file cannot be written or copied
   * @throws IllegalArgumentException when the adapter does not fit the model
   */
  public static void exportMerged(Qwen3Model model, LoraAdapter adapter, Path outDir, Path tokenizerSource) {
    exportMerged(model, adapter, outDir, tokenizerSource, SafetensorsDtype.F32);
  }

  /**
   * Writes the merged model as a checkpoint directory (see {@link #exportMerged(Qwen3Model, LoraAdapter, Path,
   * Path)}) storing the weights as F32, F16 or BF16 ({@code torch_dtype} in {@code config.json} says which).
   * Besides the model, it needs memory for one merged copy of each targeted matrix while the file is written.
   *
   * @param model the base model
   * @param adapter the adapter to fold in (its enabled switch is ignored)
   * @param outDir the directory to write (created if needed; files of the same names are replaced)
   * @param tokenizerSource the base checkpoint directory to copy tokenizer files from, or null
   * @param storage F32, F16 or BF16
   * @throws CheckpointException when a file cannot be written or copied
   * @throws IllegalArgumentException when the adapter does not fit the model or the storage type is not a float
   *     type the writer supports
   */
  public static void exportMerged(
      Qwen3Model model, LoraAdapter adapter, Path outDir, Path tokenizerSource, SafetensorsDtype storage) {
    Objects.requireNonNull(outDir, "outDir");
    String torchDtype = torchDtype(storage);
    Qwen3Weights weights = model.weights();
    adapter.checkCompatible(weights.config(), weights.dtype(), weights.device());
    try {
      Files.createDirectories(outDir);
    } catch (IOException e) {
      throw new CheckpointException("cannot create " + outDir + ": " + e.getMessage(), e);
    }
    GradMode noGrad = GradMode.disabled();
    try (NDManager tmp = NDManager.newBaseManager(weights.device(), "PyTorch")) {
      SafetensorsWriter writer = new SafetensorsWriter();
      Map<String, Projection> targeted = new HashMap<>();
      Map<String, Integer> layerOf = new HashMap<>();
      for (int l = 0; l < weights.config().numHiddenLayers(); l++) {
        for (Projection p : adapter.config().targetModules()) {
          targeted.put(p.weightName(l), p);
          layerOf.put(p.weightName(l), l);
        }
      }
      for (Map.Entry<String, NDArray> e : weights.parameters().entrySet()) {
        NDArray a;
        Projection p = targeted.get(e.getKey());
        if (p != null) {
          a = merged(e.getValue(), adapter, layerOf.get(e.getKey()), p, tmp);
        } else {
          a = e.getValue();
        }
        if (a.getDataType() == DataType.FLOAT64) {
          // the writer takes FLOAT32 and FLOAT16 arrays
          a = tmp(a.toType(storage == SafetensorsDtype.F16 ? DataType.FLOAT16 : DataType.FLOAT32, false), tmp);
        }
        writer.add(e.getKey(), a, storage);
      }
      writer.write(outDir.resolve(TensorSources.SINGLE_FILE));
    } catch (UncheckedIOException e) {
      throw new CheckpointException(e.getMessage(), e);
    } finally {
      noGrad.close();
    }
    writeConfig(weights.config(), torchDtype, outDir.resolve(Qwen3Config.FILE_NAME));
    if (tokenizerSource != null) {
      copyTokenizerFiles(tokenizerSource, outDir);
    }
  }

  private static String torchDtype(SafetensorsDtype storage) {
    switch (Objects.requireNonNull(storage, "storage")) {
      case F32:
        return "float32";
      case F16:
        return "float16";
      case BF16:
        return "bfloat16";
      default:
        throw new IllegalArgumentException("merged weights are stored as F32, F16 or BF16, not " + storage);
    }
  }

  private static void writeConfig(Qwen3Config config, String torchDtype, Path file) {
    JsonObject o = JsonParser.parseString(config.toJson()).getAsJsonObject();
    o.addProperty("torch_dtype", torchDtype);
    try {
      Files.writeString(file, new GsonBuilder().setPrettyPrinting().create().toJson(o), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CheckpointException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static void copyTokenizerFiles(Path source, Path outDir) {
    if (!Files.isDirectory(source)) {
      throw new CheckpointException("tokenizer source directory " + source + " does not exist");
    }
    for (String name : TOKENIZER_FILES) {
      Path from = source.resolve(name);
      if (Files.isRegularFile(from)) {
        try {
          Files.copy(from, outDir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
          throw new CheckpointException("cannot copy " + from + " to " + outDir + ": " + e.getMessage(), e);
        }
      }
    }
  }
}
