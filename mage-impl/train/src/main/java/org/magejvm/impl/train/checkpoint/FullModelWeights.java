package org.magejvm.impl.train.checkpoint;

import org.magejvm.impl.train.common.TrainingException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;
import org.magejvm.impl.llm.safetensors.TensorInfo;
import org.magejvm.impl.llm.safetensors.TensorSource;
import org.magejvm.impl.llm.safetensors.TensorSources;

/**
 * Every weight of a Qwen3 model, saved by {@link ModelSaver} as a Hugging Face directory (loadable by {@code
 * Qwen3Checkpoint} and by {@code transformers}) and restored in place into the live model's parameters.
 */
public final class FullModelWeights implements CheckpointWeights {

  /** The kind recorded in checkpoints. */
  public static final String KIND = "full";

  private final Qwen3Model model;
  private final Path sourceDir;

  /**
   * @param model the model being trained
   * @param sourceDir the checkpoint it was loaded from, or null when the weights are only restored
   */
  public FullModelWeights(Qwen3Model model, Path sourceDir) {
    this.model = Objects.requireNonNull(model, "model");
    this.sourceDir = sourceDir;
  }

  @Override
  public String kind() {
    return KIND;
  }

  /**
   * Writes {@code model.safetensors} (float32) and copies of the source checkpoint's other files.
   *
   * @param dir the directory to write
   * @throws IllegalStateException when no source directory was given
   */
  @Override
  public void save(Path dir) {
    if (sourceDir == null) {
      throw new IllegalStateException("no source checkpoint directory was given; full weights cannot be saved"
          + " without its config.json and tokenizer files");
    }
    ModelSaver.saveReplacing(model, sourceDir, dir);
  }

  /**
   * Checks that the saved tensors are exactly the model's parameters with their shapes.
   *
   * @param dir the weights directory
   */
  @Override
  public void verify(Path dir) {
    try (TensorSource source = TensorSources.openCheckpoint(dir)) {
      check(source, dir);
    } catch (CheckpointException e) {
      throw new TrainingException(e.getMessage(), e);
    }
  }

  private void check(TensorSource source, Path dir) {
    Map<String, NDArray> params = model.weights().parameters();
    Path label = dir.resolve(TensorSources.SINGLE_FILE);
    for (Map.Entry<String, NDArray> e : params.entrySet()) {
      if (!source.names().contains(e.getKey())) {
        throw new TrainingException(label + ": no tensor '" + e.getKey()
            + "'; the checkpoint was saved from a model of another shape");
      }
      TensorInfo info = source.info(e.getKey());
      long[] want = e.getValue().getShape().getShape();
      if (!Arrays.equals(info.shape(), want)) {
        throw new TrainingException(label + ": tensor '" + e.getKey() + "' has shape "
            + Arrays.toString(info.shape()) + " but the model's parameter has shape " + Arrays.toString(want)
            + "; the checkpoint belongs to a model of another shape");
      }
    }
    for (String name : new TreeSet<>(source.names())) {
      if (!params.containsKey(name)) {
        throw new TrainingException(label + ": tensor '" + name
            + "' is not a parameter of the model; the checkpoint belongs to a model of another shape");
      }
    }
  }

  /**
   * Copies the saved tensors into the model's parameters (autograd off, in place, so an optimizer holding the
   * parameters keeps working). Refuses a directory whose tensors are not exactly the model's parameters with their
   * shapes; nothing changes then.
   *
   * @param dir the weights directory
   */
  @Override
  public void restore(Path dir) {
    Map<String, NDArray> params = model.weights().parameters();
    try (TensorSource source = TensorSources.openCheckpoint(dir)) {
      check(source, dir);
      Map<String, NDArray> loaded = new LinkedHashMap<>();
      try (NDManager scratch = model.newManager()) {
        for (Map.Entry<String, NDArray> e : params.entrySet()) {
          // a checkpoint of a diverged run must not be resumed unnoticed
          NDArray a = source.load(scratch, e.getKey(), ai.djl.ndarray.types.DataType.FLOAT32,
              NonFiniteCheck.REFUSE);
          loaded.put(e.getKey(), a.getDataType() == e.getValue().getDataType() ? a
              : a.toType(e.getValue().getDataType(), false));
        }
        GradMode noGrad = GradMode.disabled();
        try {
          NDIndex all = new NDIndex("...");
          for (Map.Entry<String, NDArray> e : params.entrySet()) {
            e.getValue().set(all, loaded.get(e.getKey()));
          }
        } finally {
          noGrad.close();
        }
      }
    } catch (CheckpointException e) {
      throw new TrainingException(e.getMessage(), e);
    }
  }
}
