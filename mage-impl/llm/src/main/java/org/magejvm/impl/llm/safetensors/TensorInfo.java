package org.magejvm.impl.llm.safetensors;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a checkpoint's header says about one tensor.
 *
 * @param name the tensor name, for example {@code model.layers.0.self_attn.q_proj.weight}
 * @param dtype the safetensors dtype string, for example {@code F32}, {@code F16} or {@code BF16}
 * @param shape the shape
 * @param file the file holding it (its name, for messages)
 */
public record TensorInfo(String name, String dtype, long[] shape, String file) {

  /**
   * Validates and copies.
   *
   * @param name name
   * @param dtype dtype
   * @param shape shape
   * @param file file
   */
  public TensorInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(file, "file");
    shape = shape.clone();
  }

  /** @return a copy of the shape */
  @Override
  public long[] shape() {
    return shape.clone();
  }

  /** @return the number of elements */
  public long elementCount() {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TensorInfo
        && ((TensorInfo) o).name.equals(name)
        && ((TensorInfo) o).dtype.equals(dtype)
        && Arrays.equals(((TensorInfo) o).shape, shape)
        && ((TensorInfo) o).file.equals(file);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, dtype, Arrays.hashCode(shape), file);
  }

  @Override
  public String toString() {
    return name + " " + dtype + Arrays.toString(shape) + " in " + file;
  }
}
