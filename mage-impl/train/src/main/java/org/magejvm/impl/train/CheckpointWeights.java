package org.magejvm.impl.train;

import java.nio.file.Path;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * The trainable weights a checkpoint holds, and how they go back into the model being trained. Full fine-tuning
 * saves every weight as a Hugging Face directory ({@link FullModelWeights}); a parameter-efficient run would save
 * only its adapter (a PEFT directory) behind the same interface, with its own {@link #kind()}.
 */
public interface CheckpointWeights {

  /** @return the kind recorded in the checkpoint ({@value FullModelWeights#KIND} for full weights) */
  String kind();

  /**
   * Writes the current trainable weights into a directory.
   *
   * @param dir a new, empty directory inside the checkpoint being written
   * @throws RuntimeException naming the file when writing fails (the checkpoint is then abandoned)
   */
  void save(Path dir);

  /**
   * Restores weights saved by {@link #save(Path)} into the model, in place. Every tensor is checked (present, same
   * shape) before any parameter changes.
   *
   * @param dir the directory {@link #save(Path)} wrote
   * @throws TrainingException naming the file and tensor when the weights do not fit the model
   */
  void restore(Path dir);

  /**
   * Full weights of a Qwen3 model, saved as a Hugging Face checkpoint directory.
   *
   * @param model the model being trained
   * @param sourceDir the checkpoint it was loaded from (its config, tokenizer and chat template are copied next to
   *     the weights), or null when only restoring
   * @return the weights
   */
  static CheckpointWeights full(Qwen3Model model, Path sourceDir) {
    return new FullModelWeights(model, sourceDir);
  }
}
