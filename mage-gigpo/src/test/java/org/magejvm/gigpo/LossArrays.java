package org.magejvm.gigpo;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.Arrays;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.PolicyLoss;

/** Small helpers for the loss tests: float64 matrices in and out, and one backward pass. */
final class LossArrays {

  private LossArrays() {}

  static NDArray matrix(NDManager m, double[][] rows) {
    int t = rows[0].length;
    double[] flat = new double[rows.length * t];
    for (int b = 0; b < rows.length; b++) {
      System.arraycopy(rows[b], 0, flat, b * t, t);
    }
    return m.create(flat, new Shape(rows.length, t));
  }

  static NDArray matrix(NDManager m, double[][] rows, DataType type) {
    try (NDArray wide = matrix(m, rows)) {
      return wide.toType(type, true);
    }
  }

  static NDArray vector(NDManager m, double... values) {
    return m.create(values);
  }

  static double[][] toMatrix(NDArray a) {
    int rows = (int) a.getShape().get(0);
    int t = (int) a.getShape().get(1);
    double[] flat;
    try (NDArray wide = a.toType(DataType.FLOAT64, true)) {
      flat = wide.toDoubleArray();
    }
    double[][] out = new double[rows][t];
    for (int b = 0; b < rows; b++) {
      System.arraycopy(flat, b * t, out[b], 0, t);
    }
    return out;
  }

  /** A float64 (B, T) matrix filled with {@code value}. */
  static double[][] filled(int rows, int t, double value) {
    double[][] out = new double[rows][t];
    for (double[] row : out) {
      Arrays.fill(row, value);
    }
    return out;
  }

  /**
   * Computes {@code loss} on {@code input} with gradients recorded for its log-probabilities (and entropies, if
   * given) and runs backward; the gradients are then on those arrays.
   */
  static LossDiagnostics backward(PolicyLoss loss, LossInput input) {
    input.logProbs().setRequiresGradient(true);
    if (input.entropies() != null) {
      input.entropies().setRequiresGradient(true);
    }
    try (GradientCollector collector = Engine.getInstance().newGradientCollector();
        LossResult result = loss.compute(input)) {
      collector.backward(result.loss());
      return result.diagnostics();
    }
  }

  /** Computes {@code loss} without recording gradients and returns the loss value. */
  static double value(PolicyLoss loss, LossInput input) {
    try (LossResult result = loss.compute(input); NDArray wide = result.loss().toType(DataType.FLOAT64, true)) {
      return wide.getDouble();
    }
  }
}
