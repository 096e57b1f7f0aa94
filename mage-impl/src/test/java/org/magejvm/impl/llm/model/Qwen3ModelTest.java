package org.magejvm.impl.llm.model;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class Qwen3ModelTest {
  private static Qwen3Model model;

  @BeforeAll
  static void load() {
    model = TinyFixture.model(DataType.FLOAT32);
  }

  @AfterAll
  static void close() {
    model.close();
  }

  private static double maxAbsDiff(float[] got, double[][] want) {
    double max = 0;
    int v = want[0].length;
    for (int i = 0; i < want.length; i++) {
      for (int j = 0; j < v; j++) {
        max = Math.max(max, Math.abs(got[i * v + j] - want[i][j]));
      }
    }
    return max;
  }

  @Test
  void logitsMatchFloat64Reference() {
    double[][] want = TinyFixture.logits();
    try (NDManager m = model.newManager()) {
      NDArray logits = model.logits(m, TinyFixture.inputIds());
      assertThat(logits.getShape().getShape()).containsExactly(1, want.length, want[0].length);
      double diff = maxAbsDiff(logits.toFloatArray(), want);
      System.out.println("fixture logits max-abs diff (float32) = " + diff);
      assertThat(diff).isLessThan(1e-4);
    }
  }
}
