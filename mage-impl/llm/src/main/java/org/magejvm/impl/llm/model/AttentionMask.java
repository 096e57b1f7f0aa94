package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;

/** The additive attention masks of {@link Qwen3Model}'s explicit attention path, from each row's padding. */
final class AttentionMask {

  private AttentionMask() {}

  /**
   * The additive attention mask (B, 1, 1, T, S): 0 where query slot {@code offset+i} may see key slot {@code j}
   * (j at most the query slot and not padding, or j the query slot itself), minus infinity elsewhere. With a shared
   * prefix of {@code sharedPrefix} slots (rows after {@link Qwen3Model#forwardSharedPrefix}'s prefix), those slots
   * are seen by every query and each row's padding starts after them. Null where every entry would be 0: a decoding
   * step (one new slot per row) without padding, whose mask would cost about fifteen native calls and change
   * nothing.
   */
  static NDArray bias(NDManager m, int[] padLeft, int offset, int t, int sharedPrefix, DataType normType) {
    if (t == 1 && sharedPrefix == 0 && Arrays.stream(padLeft).allMatch(p -> p == 0)) {
      return null;
    }
    return array(m, padLeft, offset, t, sharedPrefix, normType);
  }

  /** {@link #bias}, always as an array. */
  static NDArray array(NDManager m, int[] padLeft, int offset, int t, int sharedPrefix, DataType normType) {
    int b = padLeft.length;
    int s = offset + t;
    NDArray keySlot = m.arange(0f, (float) s, 1f).reshape(1, 1, s);
    NDArray querySlot = m.arange((float) offset, (float) s, 1f).reshape(1, t, 1);
    float[] pads = new float[b];
    for (int i = 0; i < b; i++) {
      pads[i] = sharedPrefix + padLeft[i];
    }
    NDArray pad = m.create(pads, new Shape(b, 1, 1));
    NDArray visible = keySlot.gte(pad);
    if (sharedPrefix > 0) {
      visible = visible.logicalOr(keySlot.lt((float) sharedPrefix));
    }
    NDArray allowed = keySlot.lte(querySlot).logicalAnd(visible).logicalOr(keySlot.eq(querySlot));
    // torch.where broadcasts, but DJL's where insists on equal shapes
    NDArray zero = m.zeros(allowed.getShape(), normType);
    NDArray minusInf = m.full(allowed.getShape(), Float.NEGATIVE_INFINITY, normType);
    return NDArrays.where(allowed, zero, minusInf).reshape(b, 1, 1, t, s);
  }
}
