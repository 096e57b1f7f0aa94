package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;

/**
 * {@link Qwen3Model}'s rotate-half rotary position embedding: the inverse frequencies and the rotate-half matrix,
 * model-lifetime arrays of the norm type, the cos and sin tables of a pass and their application to queries and keys.
 */
final class Rotary {
  private final DataType normType;
  private final NDArray invFreq;
  /** (hd, hd) signed permutation with x @ rotateHalf = concat(-x[half:], x[:half]). */
  private final NDArray rotateHalf;

  /**
   * @param config the architecture (head size and rope theta)
   * @param manager the weights' manager, which owns the two arrays
   * @param normType the norm type
   */
  Rotary(Qwen3Config config, NDManager manager, DataType normType) {
    this.normType = normType;
    int half = config.headDim() / 2;
    double[] inv = new double[half];
    for (int i = 0; i < half; i++) {
      inv[i] = 1.0 / Math.pow(config.ropeTheta(), (2.0 * i) / config.headDim());
    }
    invFreq = Qwen3Model.constant(manager, inv, new Shape(half), normType);
    int hd = config.headDim();
    double[] r = new double[hd * hd];
    for (int j = 0; j < half; j++) {
      r[(j + half) * hd + j] = -1;
      r[j * hd + j + half] = 1;
    }
    rotateHalf = Qwen3Model.constant(manager, r, new Shape(hd, hd), normType);
  }

  /** @return the (hd, hd) rotate-half matrix */
  NDArray rotateHalf() {
    return rotateHalf;
  }

  /** cos and sin (B, T, 1, hd) for each row's positions (slot minus padding, clamped at 0 on padding slots). */
  NDArray[] tables(NDManager m, int[] padLeft, int offset, int t) {
    int b = padLeft.length;
    float[] pos = new float[b * t];
    for (int i = 0; i < b; i++) {
      if (padLeft[i] < 0) {
        throw new IllegalArgumentException("padLeft[" + i + "] = " + padLeft[i] + " is negative");
      }
      for (int j = 0; j < t; j++) {
        pos[i * t + j] = Math.max(0, offset + j - padLeft[i]);
      }
    }
    NDArray p = m.create(pos, new Shape(b, t, 1)).toType(normType, false);
    NDArray freqs = p.mul(invFreq);
    NDArray emb = freqs.concat(freqs, -1).expandDims(2);
    return new NDArray[] {emb.cos(), emb.sin()};
  }

  /** Rotates {@code x} (B, T, heads, hd) by the tables {@code rope} of {@link #tables}. */
  NDArray apply(NDArray x, NDArray[] rope) {
    // rotate-half as a product with a fixed signed permutation: one operation instead of slice, slice, neg, concat
    return x.mul(rope[0]).add(x.matMul(rotateHalf).mul(rope[1]));
  }
}
