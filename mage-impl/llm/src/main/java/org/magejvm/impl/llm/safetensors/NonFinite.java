package org.magejvm.impl.llm.safetensors;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.util.Arrays;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Messages and the array-level fallback of {@link NonFiniteCheck}. */
final class NonFinite {

  static final Logger LOG = LoggerFactory.getLogger(NonFiniteCheck.class);

  /** Appended to the message of a refused load. */
  static final String REFUSED = "; refusing to load it (a checkpoint of a diverged run?). Load with the non-finite "
      + "check set to WARN or ALLOW to accept it anyway";

  private NonFinite() {}

  static String describe(String file, String tensor, long[] shape, String dtype, DataType target, long count,
      long first, float firstValue) {
    return file + ": tensor '" + tensor + "' (" + dtype + Arrays.toString(shape) + ", loaded as " + target.name()
        + ") holds " + count + " non-finite value" + (count == 1 ? "" : "s") + " (NaN or infinity); the first, "
        + firstValue + ", is at flat index " + first;
  }

  /** Checks a loaded array with engine operations: for sources that do not look while copying. */
  static void checkArray(NDArray array, TensorInfo info, NonFiniteCheck check) {
    long count;
    long first;
    float value;
    try (NDArray flat = array.reshape(-1); NDArray nan = flat.isNaN(); NDArray inf = flat.isInfinite();
        NDArray bad = nan.logicalOr(inf); NDArray asInt = bad.toType(DataType.INT32, true);
        NDArray sum = asInt.sum()) {
      count = longOf(sum);
      if (count == 0) {
        return;
      }
      try (NDArray at = asInt.argMax()) {
        first = longOf(at);
      }
      try (NDArray element = flat.get(first); NDArray v = element.toType(DataType.FLOAT32, true)) {
        value = v.getFloat();
      }
    }
    String message = describe(info.file(), info.name(), info.shape(), info.dtype(), array.getDataType(), count,
        first, value);
    if (check == NonFiniteCheck.REFUSE) {
      throw new CheckpointException(message + REFUSED);
    }
    LOG.warn("{}", message);
  }

  private static long longOf(NDArray scalar) {
    try (NDArray d = scalar.toType(DataType.FLOAT64, true)) {
      return (long) d.getDouble();
    }
  }
}
