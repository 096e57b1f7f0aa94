package org.magejvm.impl.train;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;

/**
 * Writes a model's current weights as a Hugging Face checkpoint directory: {@code model.safetensors} (float32) next
 * to copies of the source checkpoint's other files ({@code config.json}, tokenizer files, chat template), so the
 * result loads through {@code Qwen3Checkpoint} exactly like the original, and through Hugging Face
 * {@code transformers}.
 */
public final class ModelSaver {

  private ModelSaver() {}

  /**
   * Saves weights.
   *
   * @param model the model whose weights are written
   * @param sourceDir the checkpoint the model was loaded from (its non-weight files are copied)
   * @param target the directory to write (created; existing weight files in it are replaced)
   * @throws CheckpointException naming the file when something cannot be written
   */
  public static void save(Qwen3Model model, Path sourceDir, Path target) {
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
}
