package org.magejvm.impl.env.sokoban;

import java.util.Arrays;

/**
 * An open-addressing hash set of non-negative {@code long} keys (packed Sokoban positions), reused between searches.
 * Not thread-safe.
 */
final class LongSet {

  private static final long EMPTY = -1L;
  private static final int MIN_CAPACITY = 1 << 10;
  private static final int SHRINK_CAPACITY = 1 << 18;

  private long[] keys = newTable(MIN_CAPACITY);
  private int mask = MIN_CAPACITY - 1;
  private int size;

  private static long[] newTable(int capacity) {
    long[] t = new long[capacity];
    Arrays.fill(t, EMPTY);
    return t;
  }

  /** Empties the set; a table grown large by an earlier search is given back. */
  void clear() {
    if (keys.length >= SHRINK_CAPACITY) {
      keys = newTable(MIN_CAPACITY);
      mask = MIN_CAPACITY - 1;
    } else if (size > 0) {
      Arrays.fill(keys, EMPTY);
    }
    size = 0;
  }

  /** @return the number of keys */
  int size() {
    return size;
  }

  private int slot(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 29)) & mask;
  }

  /**
   * Adds a key.
   *
   * @param key a key, {@code >= 0}
   * @return true when added, false when it was already present
   */
  boolean add(long key) {
    int i = slot(key);
    while (true) {
      long k = keys[i];
      if (k == key) {
        return false;
      }
      if (k == EMPTY) {
        break;
      }
      i = (i + 1) & mask;
    }
    keys[i] = key;
    if (++size * 2 > keys.length) {
      grow();
    }
    return true;
  }

  private void grow() {
    long[] old = keys;
    keys = newTable(old.length * 2);
    mask = keys.length - 1;
    for (long k : old) {
      if (k != EMPTY) {
        int i = slot(k);
        while (keys[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        keys[i] = k;
      }
    }
  }
}
