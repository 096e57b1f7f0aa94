package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Objects;

/**
 * The keys and values of every layer for the tokens seen so far, one row per sequence of a batch, stored in
 * preallocated arrays of shape (B, KV heads, capacity, head dim) that are written in place and grow by doubling
 * when a chunk would not fit.
 *
 * <p>Slot {@code s} of every row holds the token at slot {@code s} of that row's left-padded sequence; which slots
 * are padding is the caller's business (see {@link Qwen3Model#forward}). A cache owns a manager of its own and
 * must be closed; its arrays are never registered with an enclosing {@link NDScope}. It is not thread-safe.
 */
public final class KvCache implements AutoCloseable {
  private final NDManager manager;
  private final int layers;
  private final long kvHeads;
  private final long headDim;
  private final DataType dtype;
  private final NDArray[] keys;
  private final NDArray[] values;
  private final int growthLimit;
  private int batch;
  private int capacity;
  private int length;

  KvCache(NDManager parent, Qwen3Config config, DataType dtype, int batch, int capacity, int growthLimit) {
    if (batch < 1 || capacity < 1) {
      throw new IllegalArgumentException("batch and capacity must be >= 1, got " + batch + ", " + capacity);
    }
    this.growthLimit = Math.max(capacity, growthLimit);
    this.manager = parent.newSubManager();
    this.layers = config.numHiddenLayers();
    this.kvHeads = config.numKeyValueHeads();
    this.headDim = config.headDim();
    this.dtype = dtype;
    this.batch = batch;
    this.capacity = capacity;
    this.keys = new NDArray[layers];
    this.values = new NDArray[layers];
    for (int l = 0; l < layers; l++) {
      keys[l] = keep(manager.zeros(new Shape(batch, kvHeads, capacity, headDim), dtype));
      values[l] = keep(manager.zeros(new Shape(batch, kvHeads, capacity, headDim), dtype));
    }
  }

  /** Takes a long-lived array out of any enclosing {@link NDScope}, which would otherwise close it. */
  private static NDArray keep(NDArray a) {
    NDScope.unregister(a);
    return a;
  }

  /** @return the number of slots filled (the same for every row) */
  public int length() {
    return length;
  }

  /** @return the number of rows */
  public int batchSize() {
    return batch;
  }

  /** @return the slots allocated per row */
  public int capacity() {
    return capacity;
  }

  /** @return the bytes held by the keys and values */
  public long bytes() {
    return 2L * layers * batch * kvHeads * capacity * headDim * dtype.getNumOfBytes();
  }

  /**
   * Makes room for {@code needed} slots. When it has to grow it doubles the capacity (amortised copying), but not
   * beyond the growth limit given at creation unless {@code needed} itself is larger.
   *
   * @param needed the slots that must fit
   */
  public void reserve(int needed) {
    if (needed <= capacity) {
      return;
    }
    int newCapacity = (int) Math.max(needed, Math.min(growthLimit, 2L * capacity));
    NDIndex filled = slots(0, length);
    for (int l = 0; l < layers; l++) {
      keys[l] = grow(keys[l], newCapacity, filled);
      values[l] = grow(values[l], newCapacity, filled);
    }
    capacity = newCapacity;
  }

  private NDArray grow(NDArray old, int newCapacity, NDIndex filled) {
    NDArray bigger = keep(manager.zeros(new Shape(batch, kvHeads, newCapacity, headDim), dtype));
    if (length > 0) {
      try (NDArray part = old.get(filled)) {
        bigger.set(filled, part);
      }
    }
    old.close();
    return bigger;
  }

  /**
   * Keeps only some rows, in the given order (used to drop finished sequences from a batch).
   *
   * @param rows indices of the rows to keep, each in [0, batch size)
   */
  public void keepRows(int[] rows) {
    Objects.requireNonNull(rows, "rows");
    if (rows.length == 0) {
      throw new IllegalArgumentException("keepRows needs at least one row");
    }
    long[] idx = new long[rows.length];
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] < 0 || rows[i] >= batch) {
        throw new IllegalArgumentException("row " + rows[i] + " is outside [0, " + batch + ")");
      }
      idx[i] = rows[i];
    }
    try (NDArray index = manager.create(idx)) {
      for (int l = 0; l < layers; l++) {
        NDArray k = keep(keys[l].get(index));
        keys[l].close();
        keys[l] = k;
        NDArray v = keep(values[l].get(index));
        values[l].close();
        values[l] = v;
      }
    }
    batch = rows.length;
  }

  /**
   * Writes a chunk's keys and values for one layer at slots [length, length + T) (the length advances only through
   * {@link #advance}).
   */
  void write(int layer, NDArray k, NDArray v) {
    long t = k.getShape().get(2);
    if (length + t > capacity) {
      throw new IllegalStateException(
          "KV cache holds " + capacity + " slots; reserve(" + (length + t) + ") before the forward pass");
    }
    NDIndex slots = slots(length, length + t);
    keys[layer].set(slots, k);
    values[layer].set(slots, v);
  }

  /** @return a view (B, KVH, length + t, hd) of one layer's keys, owned by {@code m} */
  NDArray keys(int layer, NDManager m, long t) {
    return keys[layer].get(m, slots(0, length + t));
  }

  /** @return a view (B, KVH, length + t, hd) of one layer's values, owned by {@code m} */
  NDArray values(int layer, NDManager m, long t) {
    return values[layer].get(m, slots(0, length + t));
  }

  /** {@code [:, :, from:to]}, built without parsing a string. */
  private static NDIndex slots(long from, long to) {
    return new NDIndex().addAllDim(2).addSliceDim(from, to);
  }

  /** @return every layer's keys array (B, KVH, capacity, hd), written in place by a scripted step */
  NDArray[] keyArrays() {
    return keys.clone();
  }

  /** @return every layer's values array */
  NDArray[] valueArrays() {
    return values.clone();
  }

  void advance(int t) {
    length += t;
  }

  DataType dtype() {
    return dtype;
  }

  /** Releases the keys and values. */
  @Override
  public void close() {
    manager.close();
  }
}
