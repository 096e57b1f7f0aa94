package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;

/**
 * The per-layer keys and values of a shared prefix: recorded while the prefix passes through the layers, then
 * put before every row's own keys and values.
 */
final class SharedPrefix implements AutoCloseable {
  final NDArray[] keys;
  final NDArray[] values;
  final int length;
  boolean recording = true;

  SharedPrefix(int layers, int length) {
    keys = new NDArray[layers];
    values = new NDArray[layers];
    this.length = length;
  }

  @Override
  public void close() {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != null) {
        keys[i].close();
        values[i].close();
      }
    }
  }
}
