package org.magejvm.impl.train.checkpoint;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;

/**
 * Writes a model's current weights as a Hugging Face checkpoint directory: {@code model.safetensors} (float32) next
 * to copies of the source checkpoint's other files ({@code config.json}, tokenizer files, chat template), so the
 * result loads through {@code Qwen3Checkpoint} exactly like the original, and through Hugging Face
 * {@code transformers}.
 */
public final class ModelSaver {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ModelSaver.class);

  private ModelSaver() {}

  /**
   * Saves what a run trained into a new directory: a LoRA run's adapter in PEFT layout (its {@code
   * base_model_name_or_path} naming {@code base} when the adapter's config names none), else the whole model as a
   * Hugging Face checkpoint ({@link #save}). Nothing that exists is overwritten.
   *
   * @param model the trained model
   * @param fineTuning the run's fine-tuning setup, or null for full fine-tuning without one
   * @param base the checkpoint the model was loaded from
   * @param target the directory to write (it must not hold a model or an adapter yet)
   * @throws CheckpointException in one line naming the directory when {@code target} is {@code base}, already holds
   *     a model or an adapter, or cannot be written
   * @throws IllegalStateException when the model carries an adapter that {@code fineTuning} does not train as LoRA
   */
  public static void saveTrained(Qwen3Model model, FineTuning fineTuning, Path base, Path target) {
    requireNewModelDirectory(base, target);
    if (fineTuning != null && fineTuning.mode() == FineTuning.Mode.LORA) {
      LoraAdapter adapter = fineTuning.adapter().orElseThrow();
      PeftAdapters.save(adapter, target);
      if (adapter.config().baseModelNameOrPath().isEmpty()) {
        // record the base, so that the adapter names what it is to be loaded onto
        Path config = target.resolve(PeftAdapters.CONFIG_FILE);
        String json = PeftAdapters.configJson(adapter.config()
            .withBaseModelNameOrPath(base.toAbsolutePath().normalize().toString()));
        try {
          org.magejvm.api.util.AtomicFiles.writeString(config, json);
        } catch (IOException e) {
          throw new CheckpointException("cannot write " + config + ": " + e, e);
        }
      }
      LOG.info("saved the trained LoRA adapter (PEFT layout, base {}) to {}", base, target);
    } else {
      if (model.adapter().isPresent()) {
        throw new IllegalStateException("cannot save the trained model into " + target + ": its model carries an"
            + " adapter that this trainer does not train as LoRA (optFineTuning), so only the base weights would be"
            + " saved");
      }
      save(model, base, target);
      LOG.info("saved the trained model (Hugging Face layout, from {}) to {}", base, target);
    }
  }

  /**
   * Saves weights into a new model directory: refuses to write over the source checkpoint or over any directory that
   * already holds a model's weights, so a mix-up of the two paths cannot destroy a model.
   *
   * @param model the model whose weights are written
   * @param sourceDir the checkpoint the model was loaded from (its non-weight files are copied); it comes first
   * @param target the directory to write (created if missing; it must not hold a model yet)
   * @throws CheckpointException in one line naming the directory: when the source is no directory, when the target is
   *     the source, when the target already holds {@code model.safetensors} (or a sharded index, or a PEFT adapter),
   *     or when something cannot be written
   */
  public static void save(Qwen3Model model, Path sourceDir, Path target) {
    requireSourceAndTarget(sourceDir, target);
    requireNoModel(target);
    saveReplacing(model, sourceDir, target);
  }

  /**
   * Saves weights into a directory that may already hold a model's weights, which are replaced (a run's own output,
   * such as the quick start's {@code trained/} or a training checkpoint); it still refuses to write over the source.
   *
   * @param model the model whose weights are written
   * @param sourceDir the checkpoint the model was loaded from (its non-weight files are copied)
   * @param target the directory to write (created if missing; its weight files are replaced)
   * @throws CheckpointException in one line naming the directory: when the source is no directory, when the target is
   *     the source, or when something cannot be written
   */
  public static void saveReplacing(Qwen3Model model, Path sourceDir, Path target) {
    requireSourceAndTarget(sourceDir, target);
    try {
      Files.createDirectories(target);
      try (DirectoryStream<Path> files = Files.newDirectoryStream(sourceDir)) {
        for (Path f : files) {
          String name = f.getFileName().toString();
          boolean weights = name.endsWith(".safetensors") || name.equals("model.safetensors.index.json");
          if (Files.isRegularFile(f) && !weights) {
            Files.copy(f, target.resolve(name), StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    } catch (IOException e) {
      throw new CheckpointException("cannot copy the files of " + sourceDir + " to " + target + ": " + e, e);
    }
    SafetensorsWriter writer = new SafetensorsWriter();
    for (Map.Entry<String, ai.djl.ndarray.NDArray> e : model.weights().parameters().entrySet()) {
      writer.add(e.getKey(), e.getValue(), SafetensorsDtype.F32);
    }
    writer.write(target.resolve("model.safetensors"));
  }

  /**
   * The checks of {@link #save} without writing anything: the source is a directory, the target is not the source
   * and holds no model's weights or adapter yet.
   *
   * @param sourceDir the checkpoint the model was loaded from
   * @param target the directory about to be written
   * @throws CheckpointException in one line naming the directory, as {@link #save}
   */
  public static void requireNewModelDirectory(Path sourceDir, Path target) {
    requireSourceAndTarget(sourceDir, target);
    requireNoModel(target);
  }

  private static void requireSourceAndTarget(Path sourceDir, Path target) {
    if (!Files.isDirectory(sourceDir)) {
      throw new CheckpointException("cannot save the model: its source checkpoint " + sourceDir + " is not a"
          + " directory (ModelSaver.save(model, SOURCE, TARGET) takes the checkpoint the model was loaded from"
          + " first)");
    }
    if (sameDirectory(sourceDir, target)) {
      throw new CheckpointException("cannot save the model into " + target + ": it is the checkpoint the model was"
          + " loaded from; save into another directory");
    }
  }

  private static void requireNoModel(Path target) {
    for (String weights : new String[] {"model.safetensors", "model.safetensors.index.json",
        PeftAdapters.WEIGHTS_FILE, PeftAdapters.CONFIG_FILE}) {
      if (Files.exists(target.resolve(weights))) {
        throw new CheckpointException("cannot save the model into " + target + ": it already holds a model ("
            + weights + "); save into a new directory, or delete that one first");
      }
    }
  }

  private static boolean sameDirectory(Path a, Path b) {
    if (!Files.exists(b)) {
      return false;
    }
    try {
      return Files.isSameFile(a, b);
    } catch (IOException e) {
      return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }
  }
}
