package org.magejvm.impl.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/** Test helpers: parameters from Java values, and exact gradients through autograd. */
/** Parameter maps for optimizer tests: creation from plain arrays, gradients, values and raw bytes. */
public final class Params {
  private Params() {}

  /** Creates parameters (owning their storage) that require gradients. */
  public static Map<String, NDArray> create(NDManager manager, Map<String, double[]> values, Map<String, long[]> shapes,
      DataType type) {
    Map<String, NDArray> out = new LinkedHashMap<>();
    for (Map.Entry<String, double[]> e : values.entrySet()) {
      try (NDArray raw = manager.create(e.getValue(), new Shape(shapes.get(e.getKey())));
          NDArray typed = raw.toType(type, true)) {
        NDArray p = typed.duplicate();
        p.setName(e.getKey());
        p.setRequiresGradient(true);
        out.put(e.getKey(), p);
      }
    }
    return out;
  }

  /**
   * Accumulates the given gradients (the parameters must share one type): a backward pass from the sum over
   * parameters of sum(c * p) adds exactly c to each parameter's gradient. Every array it creates is closed.
   */
  public static void addGradients(Map<String, NDArray> params, Map<String, double[]> grads) {
    NDManager any = params.values().iterator().next().getManager();
    try (NDManager scratch = any.newSubManager();
        GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
      NDArray loss = null;
      for (Map.Entry<String, NDArray> e : params.entrySet()) {
        NDArray p = e.getValue();
        NDArray c = scratch.create(grads.get(e.getKey()), p.getShape()).toType(p.getDataType(), false);
        // no toType on the way: DJL's type conversion does not record a gradient
        NDArray term = c.mul(p).sum();
        loss = loss == null ? term : loss.add(term);
      }
      gc.backward(loss);
    }
  }

  /** @return the values of an array as doubles */
  public static double[] values(NDArray a) {
    NDArray d = a.toType(DataType.FLOAT64, false);
    try {
      return d.toDoubleArray();
    } finally {
      if (d != a) {
        d.close();
      }
    }
  }

  /** @return the raw bytes of an array, for bit-identity checks */
  public static byte[] bytes(NDArray a) {
    ByteBuffer b = a.toByteBuffer();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  /** @return each parameter's gradient */
  public static Map<String, double[]> gradients(Map<String, NDArray> params) {
    Map<String, double[]> out = new LinkedHashMap<>();
    for (Map.Entry<String, NDArray> e : params.entrySet()) {
      try (NDArray g = e.getValue().getGradient()) {
        out.put(e.getKey(), values(g));
      }
    }
    return out;
  }
}
