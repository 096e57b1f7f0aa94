package org.magejvm.impl.train.update;

import java.util.Objects;
import java.util.function.Function;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * The reference policy of the KL term: either a frozen copy of the weights (full fine-tuning; costs a second copy of
 * the model) or the trained model itself with its LoRA adapter switched off for the duration of the scoring (no
 * second copy). {@link #frozen(Qwen3Model)} makes the first, {@link #of(FineTuning)} either, as the fine-tuning
 * setup says.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public interface ReferencePolicy {

  /**
   * Runs a scoring function on the reference model.
   *
   * @param scoring what to compute with the reference model (no gradient is recorded by the caller)
   * @param <T> the result type
   * @return the function's result
   */
  <T> T apply(Function<Qwen3Model, T> scoring);

  /**
   * @param model a frozen model (its weights must not be trained)
   * @return that model as the reference
   */
  static ReferencePolicy frozen(Qwen3Model model) {
    Objects.requireNonNull(model, "model");
    return new ReferencePolicy() {
      @Override
      public <T> T apply(Function<Qwen3Model, T> scoring) {
        return scoring.apply(model);
      }
    };
  }

  /**
   * The reference of a fine-tuning setup: for LoRA with {@code KlReference.BASE_WEIGHTS}, the same model with the
   * adapter switched off while scoring; with a frozen copy, that copy.
   *
   * @param fineTuning the setup (it must have a reference)
   * @return its reference
   * @throws IllegalArgumentException when the setup was made without a KL reference
   */
  static ReferencePolicy of(FineTuning fineTuning) {
    if (!fineTuning.hasReference()) {
      throw new IllegalArgumentException("the fine-tuning setup has no KL reference (KlReference.NONE)");
    }
    return fineTuning::withReference;
  }
}
