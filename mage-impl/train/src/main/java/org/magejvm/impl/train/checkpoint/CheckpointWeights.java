package org.magejvm.impl.train.checkpoint;

import org.magejvm.impl.train.common.TrainingException;
import java.nio.file.Path;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * The trainable weights a checkpoint holds, and how they go back into the model being trained. Full fine-tuning
 * saves every weight as a Hugging Face directory ({@link FullModelWeights}, kind {@value FullModelWeights#KIND}); a
 * LoRA run saves only its adapter as a PEFT directory ({@link LoraAdapterWeights}, kind {@value
 * LoraAdapterWeights#KIND}).
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
   * Checks, without changing anything, that weights saved by {@link #save(Path)} fit the model being trained.
   * {@link TrainingCheckpoint#restore} calls it before it restores the optimizer state, so that weights of another
   * shape or rank are refused with a message about the weights rather than about the optimizer. The default checks
   * nothing ({@link #restore(Path)} checks again in any case).
   *
   * @param dir the directory {@link #save(Path)} wrote
   * @throws TrainingException naming the file and the field or tensor when the weights do not fit the model
   */
  default void verify(Path dir) {}

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

  /**
   * The weights a fine-tuning setup trains: the adapter for LoRA, every weight for full fine-tuning.
   *
   * @param fineTuning the setup
   * @param sourceDir the checkpoint the model was loaded from (full fine-tuning copies its config, tokenizer and chat
   *     template next to the weights; LoRA records it in nothing but the adapter's {@code base_model_name_or_path}),
   *     or null when only restoring
   * @return the weights
   */
  static CheckpointWeights of(FineTuning fineTuning, Path sourceDir) {
    if (fineTuning.mode() == FineTuning.Mode.LORA) {
      return new LoraAdapterWeights(fineTuning.model(), fineTuning.adapter().orElseThrow());
    }
    return new FullModelWeights(fineTuning.model(), sourceDir);
  }
}
