package org.magejvm.impl.llm.finetune;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.Qwen3Weights;

/**
 * What a trainer updates and where its KL reference policy comes from, for the two ways of fine-tuning a
 * {@link Qwen3Model}:
 *
 * <ul>
 *   <li>{@linkplain #lora LoRA}: the base weights are frozen (no gradient), only the adapter's A and B matrices
 *       train. The reference policy is the base model itself, computed by the same model with the adapter switched
 *       off, so it costs no memory.
 *   <li>{@linkplain #full Full fine-tuning}: every base weight trains (what a tiny model uses). The reference policy
 *       is either a frozen copy of the weights taken now ({@link KlReference#FROZEN_COPY}), which costs one more
 *       copy of the model (parameter count x 4 bytes in float32: about 2.4 GB for Qwen3-0.6B, plus nothing for the
 *       optimiser), or absent ({@link KlReference#NONE}) when the KL term is off.
 * </ul>
 *
 * <p>The optimiser takes {@link #trainableParameters()}; the KL term's log-probabilities come from
 * {@link #withReference}. Closing this object releases the frozen copy, if any; the model and the adapter stay
 * with the caller.
 */
public final class FineTuning implements AutoCloseable {

  /** Which parameters train. */
  public enum Mode {
    /** The LoRA matrices only. */
    LORA,
    /** Every base weight. */
    FULL
  }

  /** Where the KL term's reference policy comes from. */
  public enum KlReference {
    /** LoRA only: the same model with the adapter switched off (no extra memory). */
    BASE_WEIGHTS,
    /** Full fine-tuning only: a frozen copy of the weights as they were when fine-tuning started. */
    FROZEN_COPY,
    /** No reference policy (the KL term is off). */
    NONE
  }

  private final Mode mode;
  private final KlReference reference;
  private final Qwen3Model model;
  private final LoraAdapter adapter;
  private final Qwen3Model frozen;

  private FineTuning(Mode mode, KlReference reference, Qwen3Model model, LoraAdapter adapter, Qwen3Model frozen) {
    this.mode = mode;
    this.reference = reference;
    this.model = model;
    this.adapter = adapter;
    this.frozen = frozen;
  }

  /**
   * LoRA fine-tuning with the base model as the KL reference: freezes the base weights, makes the adapter's
   * matrices require gradients and attaches the adapter to the model.
   *
   * @param model the base model
   * @param adapter a new or loaded adapter for it
   * @return the fine-tuning setup
   */
  public static FineTuning lora(Qwen3Model model, LoraAdapter adapter) {
    return lora(model, adapter, KlReference.BASE_WEIGHTS);
  }

  /**
   * LoRA fine-tuning: freezes the base weights, makes the adapter's matrices require gradients and attaches the
   * adapter to the model.
   *
   * @param model the base model
   * @param adapter a new or loaded adapter for it
   * @param reference {@link KlReference#BASE_WEIGHTS} or {@link KlReference#NONE}
   * @return the fine-tuning setup
   * @throws IllegalArgumentException for {@link KlReference#FROZEN_COPY} (the base weights are frozen already) or
   *     an adapter that does not fit the model
   */
  public static FineTuning lora(Qwen3Model model, LoraAdapter adapter, KlReference reference) {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(adapter, "adapter");
    if (Objects.requireNonNull(reference, "reference") == KlReference.FROZEN_COPY) {
      throw new IllegalArgumentException("LoRA needs no frozen copy: its reference policy is the base model "
          + "(KlReference.BASE_WEIGHTS), or choose KlReference.NONE");
    }
    model.setAdapter(adapter);
    model.weights().requireGradients(false);
    adapter.requireGradients(true);
    return new FineTuning(Mode.LORA, reference, model, adapter, null);
  }

  /**
   * Full fine-tuning: every base weight requires gradients.
   *
   * @param model the model, with FLOAT32 or FLOAT64 weights and no adapter attached
   * @param reference {@link KlReference#FROZEN_COPY} (copies the weights now, at the model's type) or
   *     {@link KlReference#NONE}
   * @return the fine-tuning setup
   * @throws IllegalArgumentException for {@link KlReference#BASE_WEIGHTS}, FLOAT16 weights (updates would be lost
   *     to rounding: use LoRA) or a model with an adapter attached (merge or detach it first)
   */
  public static FineTuning full(Qwen3Model model, KlReference reference) {
    return full(model, reference, false);
  }

  /**
   * Full fine-tuning: every base weight requires gradients; with {@code masterWeights}, FLOAT16 weights too, for an
   * optimizer that keeps a FLOAT32 master copy of each trained weight and writes the rounded copy back after each
   * step (the trainer's AdamW does for FLOAT16 parameters), so small updates accumulate in the master instead of being
   * lost to FLOAT16 rounding.
   *
   * @param model the model, with FLOAT32 or FLOAT64 weights (or FLOAT16 with {@code masterWeights}) and no adapter
   *     attached
   * @param reference {@link KlReference#FROZEN_COPY} (copies the weights now, at the model's type) or
   *     {@link KlReference#NONE}
   * @param masterWeights whether the optimizer keeps FLOAT32 master copies of the weights
   * @return the fine-tuning setup
   * @throws IllegalArgumentException for {@link KlReference#BASE_WEIGHTS}, FLOAT16 weights without master weights,
   *     or a model with an adapter attached (merge or detach it first)
   */
  public static FineTuning full(Qwen3Model model, KlReference reference, boolean masterWeights) {
    Objects.requireNonNull(model, "model");
    if (Objects.requireNonNull(reference, "reference") == KlReference.BASE_WEIGHTS) {
      throw new IllegalArgumentException("full fine-tuning changes the base weights; for a KL reference take a "
          + "frozen copy (KlReference.FROZEN_COPY) or choose KlReference.NONE");
    }
    if (model.dtype() == DataType.FLOAT16 && !masterWeights) {
      throw new IllegalArgumentException("full fine-tuning needs FLOAT32 (or FLOAT64) weights, the model's are "
          + "FLOAT16; load it as FLOAT32, train a LoRA adapter, or keep FLOAT32 master weights in the optimizer");
    }
    if (model.adapter().isPresent()) {
      throw new IllegalArgumentException("the model has an adapter attached; merge it (LoraMerge.mergeInto) or "
          + "detach it (setAdapter(null)) before full fine-tuning");
    }
    Qwen3Model frozen = null;
    if (reference == KlReference.FROZEN_COPY) {
      frozen = new Qwen3Model(model.weights().copy(model.device(), model.dtype()));
    }
    model.weights().requireGradients(true);
    return new FineTuning(Mode.FULL, reference, model, null, frozen);
  }

  /** @return which parameters train */
  public Mode mode() {
    return mode;
  }

  /** @return where the reference policy comes from */
  public KlReference klReference() {
    return reference;
  }

  /** @return the model being trained (with the adapter attached, for LoRA) */
  public Qwen3Model model() {
    return model;
  }

  /** @return the adapter, for LoRA */
  public Optional<LoraAdapter> adapter() {
    return Optional.ofNullable(adapter);
  }

  /**
   * The arrays the optimiser updates, by name: PEFT names of A and B for LoRA, Hugging Face names of the weights
   * for full fine-tuning.
   *
   * @return an unmodifiable view
   */
  public Map<String, NDArray> trainableParameters() {
    return mode == Mode.LORA ? adapter.trainableParameters() : model.weights().parameters();
  }

  /** Sets the accumulated gradients of the trainable parameters to zero. */
  public void zeroGradients() {
    if (mode == Mode.LORA) {
      adapter.zeroGradients();
    } else {
      model.weights().zeroGradients();
    }
  }

  /**
   * @param on whether the model is in training mode (LoRA dropout on); switch it off for rollouts (Qwen3 itself has
   *     no dropout, so this only matters for LoRA)
   */
  public void setTraining(boolean on) {
    if (adapter != null) {
      adapter.setTraining(on);
    }
  }

  /** @return whether there is a reference policy ({@link KlReference#NONE} has none) */
  public boolean hasReference() {
    return reference != KlReference.NONE;
  }

  /** @return the memory the reference policy holds beyond the trained model, in bytes (0 unless a frozen copy) */
  public long referenceBytes() {
    if (frozen == null) {
      return 0;
    }
    long bytes = 0;
    for (NDArray a : frozen.weights().parameters().values()) {
      bytes += a.size() * a.getDataType().getNumOfBytes();
    }
    return bytes;
  }

  /**
   * Runs a computation on the reference policy, with no gradient tracking: for LoRA the same model with the adapter
   * switched off for the duration of the call, for full fine-tuning the frozen copy.
   *
   * @param <T> the result type
   * @param f what to compute, given the reference model (score with {@code new TeacherForcing(model)})
   * @return f's result
   * @throws IllegalStateException when there is no reference policy
   */
  public <T> T withReference(Function<Qwen3Model, T> f) {
    Objects.requireNonNull(f, "f");
    if (reference == KlReference.NONE) {
      throw new IllegalStateException("this fine-tuning setup has no KL reference policy (KlReference.NONE)");
    }
    GradMode noGrad = GradMode.disabled();
    try {
      if (mode == Mode.FULL) {
        return f.apply(frozen);
      }
      boolean was = adapter.isEnabled();
      adapter.setEnabled(false);
      try {
        return f.apply(model);
      } finally {
        adapter.setEnabled(was);
      }
    } finally {
      noGrad.close();
    }
  }

  /** Releases the frozen copy, if any (the model and the adapter stay open). */
  @Override
  public void close() {
    if (frozen != null) {
      frozen.close();
    }
  }

  /**
   * The bytes of a frozen float32 copy of a model's weights, for planning: parameter count x 4.
   *
   * @param weights the weights
   * @return the size of a FLOAT32 copy
   */
  public static long frozenCopyBytes(Qwen3Weights weights) {
    return weights.parameterCount() * 4;
  }
}
