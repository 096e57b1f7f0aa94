package org.magejvm.impl.llm.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;

/**
 * A correction to a decoder's linear projections, applied inside {@link Qwen3Model#forward} when it is
 * {@linkplain Qwen3Model#setAdapter attached} and {@linkplain #isEnabled enabled} (LoRA is the implementation, in
 * {@code org.magejvm.impl.llm.finetune}).
 *
 * <p>The model asks the adapter once per projection and layer. Everything an adapter creates during
 * {@link #adapt} must belong to the manager of the {@code input} array (write {@code input.op(parameter)}, never
 * {@code parameter.op(input)}), so that the model's per-layer scopes free it.
 */
public interface ProjectionAdapter {

  /**
   * The output of one projection with the adapter's correction.
   *
   * @param layer the decoder layer index
   * @param projection which projection
   * @param input the projection's input (B, T, in) in the model's data type
   * @param output the base projection's output {@code input W^T + b} (B, T, out) in the model's data type
   * @return the corrected output, with the shape and data type of {@code output}; {@code output} itself when this
   *     projection is not adapted
   */
  NDArray adapt(int layer, Projection projection, NDArray input, NDArray output);

  /** @return whether the model applies this adapter now (when false the model computes the base model exactly) */
  boolean isEnabled();

  /**
   * Checks that the adapter was made for a model of this shape, type and device.
   *
   * @param config the model's architecture
   * @param dtype the model's weight type
   * @param device the model's device
   * @throws IllegalArgumentException naming the first mismatch
   */
  void checkCompatible(Qwen3Config config, DataType dtype, Device device);
}
