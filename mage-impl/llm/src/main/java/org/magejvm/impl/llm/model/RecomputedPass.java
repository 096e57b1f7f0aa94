package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.training.GradientCollector;

/**
 * {@link Qwen3Model#forwardRecomputed}: a forward pass that keeps only each layer's input (and the prefix's) and runs
 * the layers again, one at a time, in the backward pass (activation checkpointing). Each layer runs through {@link
 * Qwen3Model#layer}, the same code as every other pass, so the values are those of the kept path bit for bit.
 */
final class RecomputedPass implements Qwen3Model.Recomputed {
  private final Qwen3Model model;
  private final Qwen3Weights weights;
  private final DataType normType;
  private final NDManager manager;
  private final int b;
  private final int t;
  private final int p;
  private final int[] padLeft;
  private final NDArray ids;
  private final NDArray prefixIds;
  private final NDArray[] inputs;
  private final NDArray[] prefixInputs;
  private final NDArray top;
  private final NDArray hidden;
  private final ProjectionAdapter active;
  /** The rows' and the prefix's rotary tables and explicit masks (null when fused), made once for every layer. */
  private final NDArray[] rope;
  private final NDArray bias;
  private final NDArray[] prefixRope;
  private final NDArray prefixBias;
  private boolean done;

  RecomputedPass(Qwen3Model model, NDArray prefixTokens, NDArray inputIds, int[] pads) {
    Shape shape = inputIds.getShape();
    if (shape.dimension() != 2 || pads.length != shape.get(0)) {
      throw new IllegalArgumentException("inputIds must be (batch, tokens) with one padding count per row, got "
          + shape + " and " + pads.length + " counts");
    }
    if (prefixTokens != null && (prefixTokens.getShape().dimension() != 2 || prefixTokens.getShape().get(0) != 1
        || prefixTokens.getShape().get(1) < 1)) {
      throw new IllegalArgumentException("prefixIds must be (1, P) with P >= 1, got " + prefixTokens.getShape());
    }
    this.model = model;
    weights = model.weights();
    normType = model.outputType();
    manager = inputIds.getManager();
    b = (int) shape.get(0);
    t = (int) shape.get(1);
    p = prefixTokens == null ? 0 : (int) prefixTokens.getShape().get(1);
    padLeft = pads.clone();
    active = model.activeAdapter();
    int layers = model.config().numHiddenLayers();
    inputs = new NDArray[layers];
    prefixInputs = new NDArray[layers];
    // copies that own their storage (the embedding's backward pass keeps the ids)
    ids = inputIds.toType(DataType.INT64, false).duplicate();
    this.prefixIds = prefixTokens == null ? null : prefixTokens.toType(DataType.INT64, false).duplicate();
    // this pass outlives any scope of its caller's: it frees them itself
    NDScope.unregister(ids);
    if (this.prefixIds != null) {
      NDScope.unregister(this.prefixIds);
    }
    NDArray last;
    NDArray lastPrefix;
    GradMode noGrad = GradMode.disabled();
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      int[] none = new int[1];
      rope = model.rotary(manager, padLeft, p, t);
      bias = model.fused(t, p + t) ? null : AttentionMask.bias(manager, padLeft, p, t, p, normType);
      prefixRope = p == 0 ? null : model.rotary(manager, none, 0, p);
      prefixBias = p == 0 || model.fused(p, p) ? null : AttentionMask.bias(manager, none, 0, p, 0, normType);
      for (NDArray a : new NDArray[] {rope[0], rope[1], bias, prefixRope == null ? null : prefixRope[0],
          prefixRope == null ? null : prefixRope[1], prefixBias}) {
        if (a != null) {
          NDScope.unregister(a);
        }
      }
      last = embedded(ids);
      lastPrefix = this.prefixIds == null ? null : embedded(this.prefixIds);
      for (int l = 0; l < layers; l++) {
        inputs[l] = last;
        prefixInputs[l] = lastPrefix;
        NDScope.unregister(last);
        if (lastPrefix != null) {
          NDScope.unregister(lastPrefix);
        }
        NDArray[] out = layerPair(l, last, lastPrefix, l + 1 < layers);
        last = out[0];
        lastPrefix = out[1];
      }
      NDScope.unregister(last);
    } finally {
      noGrad.close();
    }
    top = last;
    top.setRequiresGradient(true);
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      hidden = model.rmsNorm(top, weights.finalNorm());
      NDScope.unregister(hidden);
    }
  }

  private NDArray embedded(NDArray tokens) {
    NDArray x = tokens.getNDArrayInternal().embedding(tokens, weights.embed(), SparseFormat.DENSE)
        .singletonOrThrow();
    return DifferentiableCast.toType(x, normType);
  }

  /**
   * Runs layer {@code l} over the rows (and the prefix, whose keys and values the rows see), as {@link
   * Qwen3Model#forward(NDArray, int[], KvCache)} runs it; returns the rows' output and, when {@code prefixOutput},
   * the prefix's.
   */
  private NDArray[] layerPair(int l, NDArray h, NDArray hp, boolean prefixOutput) {
    Qwen3Weights.Layer w = weights.layers().get(l);
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      SharedPrefix shared = null;
      NDArray outPrefix = null;
      try {
        if (hp != null) {
          shared = new SharedPrefix(model.config().numHiddenLayers(), p);
          Qwen3Model.FusedPass fp = prefixBias == null ? new Qwen3Model.FusedPass(new int[1], 0, 0, true) : null;
          outPrefix = model.layer(l, w, active, hp, prefixRope, prefixBias, fp, null, shared, 1, p, null);
          shared.recording = false;
        }
        // the fused kernel's choice of masking depends on the grad mode, which differs between the two stages
        Qwen3Model.FusedPass fs = bias == null
            ? new Qwen3Model.FusedPass(padLeft, p, p, PyTorchNative.isGradMode() || t >= p) : null;
        NDArray out = model.layer(l, w, active, h, rope, bias, fs, null, shared, b, t, null);
        NDScope.unregister(out);
        if (outPrefix != null && prefixOutput) {
          NDScope.unregister(outPrefix);
        } else {
          outPrefix = null;
        }
        return new NDArray[] {out, outPrefix};
      } finally {
        if (shared != null) {
          shared.close();
        }
      }
    }
  }

  @Override
  public NDArray hidden() {
    return hidden;
  }

  @Override
  public void backward(GradientCollector collector) {
    if (done) {
      throw new IllegalStateException("backward was already called");
    }
    done = true;
    if (!top.hasGradient()) {
      return;
    }
    NDArray g = top.getGradient().duplicate();
    NDArray gp = null;
    for (int l = inputs.length - 1; l >= 0; l--) {
      NDArray x = inputs[l];
      NDArray xp = prefixInputs[l];
      x.setRequiresGradient(true);
      if (xp != null) {
        xp.setRequiresGradient(true);
      }
      try (NDScope scope = new NDScope()) {
        scope.suppressNotUsedWarning();
        NDArray[] out = layerPair(l, x, xp, gp != null);
        NDScope.register(out[0]);
        NDArray objective = out[0].mul(g).sum();
        if (out[1] != null) {
          NDScope.register(out[1]);
          objective = objective.add(out[1].mul(gp).sum());
        }
        collector.backward(objective);
      }
      g.close();
      if (gp != null) {
        gp.close();
      }
      g = gradientOf(x);
      gp = xp == null ? null : gradientOf(xp);
    }
    if (weights.embed().hasGradient()) {
      try (NDScope scope = new NDScope()) {
        scope.suppressNotUsedWarning();
        NDArray objective = embedded(ids).mul(g).sum();
        if (prefixIds != null && gp != null) {
          objective = objective.add(embedded(prefixIds).mul(gp).sum());
        }
        collector.backward(objective);
      }
    }
    g.close();
    if (gp != null) {
      gp.close();
    }
  }

  /** The gradient a leaf received, as an array of its own (zeros where none reached it). */
  private NDArray gradientOf(NDArray leaf) {
    if (!leaf.hasGradient()) {
      return leaf.zerosLike();
    }
    try (NDArray grad = leaf.getGradient()) {
      return grad.duplicate();
    }
  }

  @Override
  public void close() {
    for (int l = 0; l < inputs.length; l++) {
      close(inputs[l]);
      close(prefixInputs[l]);
    }
    close(top);
    close(hidden);
    close(ids);
    close(prefixIds);
    close(rope[0]);
    close(rope[1]);
    close(bias);
    if (prefixRope != null) {
      close(prefixRope[0]);
      close(prefixRope[1]);
    }
    close(prefixBias);
  }

  private void close(NDArray a) {
    if (a != null) {
      a.close();
    }
  }
}
