package org.magejvm.impl.llm.model;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import org.junit.jupiter.api.Test;

class ZeroGradientsTest {

  @Test
  void nanAndInfiniteGradientsBecomeZero() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32); NDManager m = model.newManager()) {
      model.weights().requireGradients(true);
      try (GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
        NDArray logits = model.logits(m, new int[] {1, 17, 42});
        gc.backward(logits.sum());
      }
      int poisoned = 0;
      for (NDArray p : model.weights().parameters().values()) {
        if (p.hasGradient()) {
          try (NDArray g = p.getGradient()) {
            g.set(new NDIndex(0), poisoned % 2 == 0 ? Float.NaN : Float.POSITIVE_INFINITY);
          }
          poisoned++;
        }
      }
      assertThat(poisoned).isGreaterThan(2);
      model.weights().zeroGradients();
      for (NDArray p : model.weights().parameters().values()) {
        if (p.hasGradient()) {
          try (NDArray g = p.getGradient()) {
            for (float v : g.toFloatArray()) {
              assertThat(v).isZero();
            }
          }
        }
      }
    }
  }
}
