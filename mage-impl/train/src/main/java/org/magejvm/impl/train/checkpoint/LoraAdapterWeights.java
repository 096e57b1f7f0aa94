package org.magejvm.impl.train.checkpoint;

import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.common.TrainingException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * The trainable weights of a LoRA run: only the adapter's A and B matrices, saved as a Hugging Face PEFT adapter
 * directory ({@link PeftAdapters#save}: {@value PeftAdapters#CONFIG_FILE} and {@value PeftAdapters#WEIGHTS_FILE}), so
 * a checkpoint's {@code weights/} loads with {@code PeftAdapters.load}, {@code Qwen3Checkpoint.loadPolicy(base,
 * options, adapterDir)} or PEFT's {@code PeftModel.from_pretrained}. The frozen base weights are not saved: a resumed
 * run loads them from the base checkpoint again.
 *
 * <p>{@link #restore(Path)} copies the saved matrices into the live adapter in place (autograd off), so an {@link
 * AdamW} over {@link LoraAdapter#trainableParameters()} keeps working. {@link #verify(Path)} first refuses an adapter
 * of another rank, alpha, scaling rule or set of target modules, naming {@value PeftAdapters#CONFIG_FILE} and the
 * field.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class LoraAdapterWeights implements CheckpointWeights {

  /** The kind recorded in checkpoints. */
  public static final String KIND = "lora";

  private final Qwen3Model model;
  private final LoraAdapter adapter;

  /**
   * @param model the base model the adapter is attached to
   * @param adapter the adapter being trained
   */
  public LoraAdapterWeights(Qwen3Model model, LoraAdapter adapter) {
    this.model = Objects.requireNonNull(model, "model");
    this.adapter = Objects.requireNonNull(adapter, "adapter");
  }

  @Override
  public String kind() {
    return KIND;
  }

  /** @return the adapter being trained */
  public LoraAdapter adapter() {
    return adapter;
  }

  /**
   * Writes the adapter in PEFT layout (float32 matrices).
   *
   * @param dir the directory to write
   */
  @Override
  public void save(Path dir) {
    PeftAdapters.save(adapter, dir);
  }

  /**
   * Checks that a saved adapter has the live adapter's rank, alpha, scaling rule and target modules, and that its
   * tensors fit the model.
   *
   * @param dir the weights directory
   * @throws TrainingException naming {@value PeftAdapters#CONFIG_FILE} and the field, or the weights file and the
   *     tensor, when they do not
   */
  @Override
  public void verify(Path dir) {
    LoraConfig saved;
    try {
      saved = PeftAdapters.readConfig(dir);
    } catch (CheckpointException e) {
      throw new TrainingException(e.getMessage(), e);
    }
    LoraConfig live = adapter.config();
    Path file = dir.resolve(PeftAdapters.CONFIG_FILE);
    if (saved.rank() != live.rank()) {
      throw new TrainingException(file + ": field 'r' is " + saved.rank() + ", but this run trains a LoRA adapter of"
          + " rank " + live.rank() + "; resume with --lora-rank " + saved.rank() + " (or start a new run)");
    }
    if (Double.compare(saved.alpha(), live.alpha()) != 0) {
      throw new TrainingException(file + ": field 'lora_alpha' is " + saved.alpha() + ", but this run's adapter has "
          + live.alpha());
    }
    if (saved.useRslora() != live.useRslora()) {
      throw new TrainingException(file + ": field 'use_rslora' is " + saved.useRslora() + ", but this run's adapter"
          + " has " + live.useRslora());
    }
    if (!saved.targetModules().equals(live.targetModules())) {
      throw new TrainingException(file + ": field 'target_modules' is " + names(saved) + ", but this run adapts "
          + names(live));
    }
  }

  private static JsonArray names(LoraConfig c) {
    JsonArray a = new JsonArray();
    c.targetModules().stream().map(Projection::moduleName).forEach(a::add);
    return a;
  }

  /**
   * Copies a saved adapter's A and B into the live adapter, in place, after {@link #verify(Path)} and a check of
   * every tensor's name and shape (nothing changes when one does not fit).
   *
   * @param dir the weights directory
   */
  @Override
  public void restore(Path dir) {
    verify(dir);
    LoraAdapter saved;
    try {
      saved = PeftAdapters.load(dir, model);
    } catch (CheckpointException e) {
      throw new TrainingException(e.getMessage(), e);
    }
    try (saved) {
      Map<String, NDArray> live = adapter.trainableParameters();
      Map<String, NDArray> loaded = saved.trainableParameters();
      if (!live.keySet().equals(loaded.keySet())) {
        throw new TrainingException(dir.resolve(PeftAdapters.WEIGHTS_FILE) + ": holds tensors " + loaded.keySet()
            + ", the live adapter " + live.keySet());
      }
      GradMode noGrad = GradMode.disabled();
      try {
        NDIndex all = new NDIndex("...");
        for (Map.Entry<String, NDArray> e : live.entrySet()) {
          NDArray src = loaded.get(e.getKey());
          if (src.getDataType() != e.getValue().getDataType()) {
            src = src.toType(e.getValue().getDataType(), false);
          }
          e.getValue().set(all, src);
        }
      } finally {
        noGrad.close();
      }
    }
  }

  /**
   * The adapter's settings as recorded in the trainer's configuration: rank, alpha, dropout, target modules and
   * scaling rule.
   *
   * @param config the LoRA hyper-parameters
   * @return a new JSON object
   */
  public static JsonObject describe(LoraConfig config) {
    JsonObject o = new JsonObject();
    o.addProperty("r", config.rank());
    o.addProperty("lora_alpha", config.alpha());
    o.addProperty("lora_dropout", config.dropout());
    o.add("target_modules", names(config));
    o.addProperty("use_rslora", config.useRslora());
    return o;
  }
}
