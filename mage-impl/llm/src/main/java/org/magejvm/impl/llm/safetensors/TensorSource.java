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

  /** Releases the mappings. */
  @Override
  void close();
}
