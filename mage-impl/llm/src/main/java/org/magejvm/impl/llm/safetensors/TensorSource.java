package org.magejvm.impl.llm.safetensors;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.Set;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * A set of named tensors that can be loaded as DJL arrays: one safetensors file or a sharded checkpoint.
 * Closing it releases the file mappings; arrays already loaded stay valid only if they were copied (see {@link
 * #load}).
 */
public interface TensorSource extends AutoCloseable {

  /** @return the names of all tensors */
  Set<String> names();

  /**
   * @param name a tensor name
   * @return its header entry
   * @throws CheckpointException naming the source when there is no such tensor
   */
  TensorInfo info(String name);

  /**
   * Loads a tensor as an array of the given type (F32, F16 and BF16 sources convert to FLOAT32 or FLOAT16; BF16 is
   * widened in Java and never created as a DJL array). The result owns its memory (it does not alias the mapping).
   *
   * @param manager the manager that will own the array
   * @param name the tensor name
   * @param target FLOAT32 or FLOAT16
   * @return the array, with the header's shape
   * @throws CheckpointException naming the file and tensor when it is missing or unreadable
   */
  NDArray load(NDManager manager, String name, DataType target);

  /**
   * Loads a tensor as {@link #load(NDManager, String, DataType)} does and looks for NaN and infinite values in the
   * result. The safetensors sources look during the copy they make anyway; this default implementation looks at the
   * loaded array afterwards.
   *
   * @param manager the manager that will own the array
   * @param name the tensor name
   * @param target FLOAT32 or FLOAT16
   * @param check what to do with non-finite values
   * @return the array, with the header's shape
   * @throws CheckpointException naming the file and tensor when it is missing or unreadable, or (with {@link
   *     NonFiniteCheck#REFUSE}) holds a non-finite value
   */
  default NDArray load(NDManager manager, String name, DataType target, NonFiniteCheck check) {
    NDArray array = load(manager, name, target);
    if (check == NonFiniteCheck.ALLOW) {
      return array;
    }
    try {
      NonFinite.checkArray(array, info(name), check);
    } catch (RuntimeException e) {
      array.close();
      throw e;
    }
    return array;
  }

  /** Releases the mappings. */
  @Override
  void close();
}
