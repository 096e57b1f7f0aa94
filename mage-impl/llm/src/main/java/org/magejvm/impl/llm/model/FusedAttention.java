package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Qwen3Model}'s fused attention ({@link AttentionKernel#FUSED}): libtorch's {@code
 * scaled_dot_product_attention}, which DJL does not expose, called through the TorchScript module {@code
 * fused_attention.torchscript} with autograd on, so a training pass back-propagates through it. The module takes the
 * padding, cache offset and shared prefix as one small integer array and handles each row's mask without building a
 * (queries x keys) array in a training pass (see the resource's header).
 */
final class FusedAttention {
  private static final Logger LOG = LoggerFactory.getLogger(FusedAttention.class);
  private static final String RESOURCE = "/org/magejvm/impl/llm/model/fused_attention.torchscript";

  /** Calls made in this JVM (tests check that the fused path ran). */
  private static final AtomicLong RUNS = new AtomicLong();

  private final PyTorchNative.Script script;

  private FusedAttention(PyTorchNative.Script script) {
    this.script = script;
  }

  /** The one module of this JVM, loaded on first use. */
  private static final class Holder {
    static final Optional<FusedAttention> INSTANCE = load();
  }

  /** @return the module, or empty where libtorch could not load it (logged once) */
  static Optional<FusedAttention> instance() {
    return Holder.INSTANCE;
  }

  private static Optional<FusedAttention> load() {
    return ScriptModule.load(RESOURCE, "FusedAttention", "fused_attention", LOG,
        "libtorch could not load the fused attention module; attention runs the explicit path ({})")
        .map(FusedAttention::new);
  }

  /** @return the calls made in this JVM so far */
  static long runs() {
    return RUNS.get();
  }

  /**
   * Attention of queries over keys and values.
   *
   * @param q (B, H, T, hd) rotated queries times 1/sqrt(hd), in the weights' type; its manager owns the result
   * @param k (B, KVH, S, hd) keys
   * @param v (B, KVH, S, hd) values
   * @param padLeft each row's padding slots (after the prefix, if any)
   * @param offset the slot of the first query in the whole sequence (S - T)
   * @param prefix the key slots every real query sees (a shared prefix), 0 for none
   * @param padQueries whether a row's rectangle of queries and keys is squared with zero queries (no mask array;
   *     for passes with gradients) rather than masked
   * @return (B, H, T, hd); zero at padding queries
   */
  NDArray attend(NDArray q, NDArray k, NDArray v, int[] padLeft, int offset, int prefix, boolean padQueries) {
    long[] info = new long[3 + padLeft.length];
    info[0] = offset;
    info[1] = prefix;
    info[2] = padQueries ? 1 : 0;
    for (int i = 0; i < padLeft.length; i++) {
      info[3 + i] = padLeft[i];
    }
    // a copy that owns its storage (an array made from Java memory only borrows it)
    try (NDArray borrowed = q.getManager().create(info, new Shape(info.length))) {
      NDArray meta = borrowed.duplicate();
      RUNS.incrementAndGet();
      NDArray out = PyTorchNative.runScriptWithAutograd(script, q, k, v, meta);
      meta.close();
      return out;
    }
  }
}
