package org.magejvm.gigpo;

import java.util.Arrays;

/**
 * A correctly rounded sum of doubles: the exact sum is kept as a list of non-overlapping partial sums (Shewchuk's
 * algorithm, the one behind Python's {@code math.fsum}) and rounded once at the end, half to even.
 *
 * <p>Because the result is the exact sum rounded once, it does not depend on the order the values were added in:
 * permuting a group's turns cannot change a single bit of its mean or variance. The inputs of this package are
 * finite and of moderate size (game rewards); a sum that overflows is reported as non-finite and rejected by the
 * caller.
 *
 * <p>Not thread-safe; reusable through {@link #reset()}.
 */
final class ExactSum {

  private double[] partials = new double[8];
  private int count;

  /** Forgets every value added so far. */
  void reset() {
    count = 0;
  }

  /**
   * Adds a value exactly.
   *
   * @param value a finite value
   */
  void add(double value) {
    double x = value;
    int kept = 0;
    for (int j = 0; j < count; j++) {
      double y = partials[j];
      if (Math.abs(x) < Math.abs(y)) {
        double t = x;
        x = y;
        y = t;
      }
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0) {
        partials[kept++] = lo;
      }
      x = hi;
    }
    if (kept == partials.length) {
      partials = Arrays.copyOf(partials, partials.length * 2);
    }
    partials[kept++] = x;
    count = kept;
  }

  /** @return the exact sum of the values added since the last reset, rounded once to the nearest double */
  double value() {
    int n = count;
    if (n == 0) {
      return 0.0;
    }
    double hi = partials[--n];
    double lo = 0.0;
    while (n > 0) {
      double x = hi;
      double y = partials[--n];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) {
        break;
      }
    }
    // The partials below the one that stopped the loop can only matter when the remainder lo sits exactly halfway
    // between two doubles; they then decide the rounding direction.
    if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
      double y = lo * 2;
      double x = hi + y;
      double yr = x - hi;
      if (y == yr) {
        hi = x;
      }
    }
    return hi;
  }
}
