package org.magejvm.impl.llm.finetune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;

class FineTuningTest {
  private static final List<int[]> PROMPTS = List.of(new int[] {1, 17, 42, 5}, new int[] {1, 60});
  private static final List<int[]> RESPONSES = List.of(new int[] {33, 8, 90}, new int[] {7, 2, 2, 41, 13});

  private static float[] logits(Qwen3Model m) {
    GradMode noGrad = GradMode.disabled();
    try (NDManager mm = m.newManager()) {
      return m.logits(mm, TinyFixture.inputIds()).toType(DataType.FLOAT32, false).toFloatArray();
    } finally {
      noGrad.close();
    }
  }

  private static float[] referenceLogProbs(FineTuning ft) {
    return ft.withReference(m -> {
      try (NDManager mm = m.newManager()) {
        TokenScores s = new TeacherForcing(m).score(mm, PROMPTS, RESPONSES, 1.0, false);
        assertThat(s.logProbs().hasGradient()).isFalse();
        return s.logProbs().toFloatArray();
      }
    });
  }

  private static void backward(Qwen3Model model) {
    try (NDManager m = model.newManager();
        GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
      TokenScores s = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, 1.0, false);
      gc.backward(s.logProbs().sum());
    }
  }

  @Test
  void fullFineTuningTrainsEveryWeightAgainstAFrozenCopy() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        FineTuning ft = FineTuning.full(model, FineTuning.KlReference.FROZEN_COPY)) {
      float[] before = logits(model);
      float[] refBefore = referenceLogProbs(ft);
      assertThat(ft.mode()).isEqualTo(FineTuning.Mode.FULL);
      assertThat(ft.trainableParameters()).isSameAs(model.weights().parameters());
      assertThat(ft.referenceBytes()).isEqualTo(model.weights().parameterCount() * 4)
          .isEqualTo(FineTuning.frozenCopyBytes(model.weights()));
      backward(model);
      for (NDArray p : ft.trainableParameters().values()) {
        try (NDArray g = p.getGradient()) {
          assertThat(g.abs().sum().getFloat()).as(p.getName()).isGreaterThan(0f);
        }
      }
      // one SGD step changes the model but not the reference
      GradMode noGrad = GradMode.disabled();
      try {
        for (NDArray p : ft.trainableParameters().values()) {
          try (NDArray g = p.getGradient(); NDArray step = g.mul(0.05f)) {
            p.addi(step);
          }
        }
      } finally {
        noGrad.close();
      }
      ft.zeroGradients();
      assertThat(PeftFixture.maxAbsDiff(logits(model), before)).isGreaterThan(1e-3);
      assertThat(referenceLogProbs(ft)).containsExactly(refBefore);
    }
  }

  @Test
  void fullFineTuningWithoutKlHasNoReference() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        FineTuning ft = FineTuning.full(model, FineTuning.KlReference.NONE)) {
      assertThat(ft.hasReference()).isFalse();
      assertThat(ft.referenceBytes()).isZero();
      assertThatThrownBy(() -> ft.withReference(m -> 1)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("KlReference.NONE");
    }
    try (Qwen3Model f16 = TinyFixture.model(DataType.FLOAT16)) {
      assertThatThrownBy(() -> FineTuning.full(f16, FineTuning.KlReference.NONE))
          .hasMessageContaining("FLOAT16").hasMessageContaining("LoRA");
    }
  }

  @Test
  void loraUsesTheBaseModelAsItsReference() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter lora = LoraAdapter.create(model, LoraConfig.builder().setRank(4).optAllLinear()
            .optInitLoraWeights(false).build(), 1);
        FineTuning ft = FineTuning.lora(model, lora)) {
      float[] refFromSameModel = referenceLogProbs(ft);
      assertThat(lora.isEnabled()).as("switched back on").isTrue();
      assertThat(model.adapter()).containsSame(lora);
      assertThat(ft.referenceBytes()).isZero();
      model.setAdapter(null);
      float[] base;
      try (NDManager mm = model.newManager()) {
        GradMode noGrad = GradMode.disabled();
        try {
          base = new TeacherForcing(model).score(mm, PROMPTS, RESPONSES, 1.0, false).logProbs().toFloatArray();
        } finally {
          noGrad.close();
        }
      }
      assertThat(refFromSameModel).containsExactly(base);
      assertThatThrownBy(() -> FineTuning.lora(model, lora, FineTuning.KlReference.FROZEN_COPY))
          .hasMessageContaining("no frozen copy");
      model.setAdapter(lora);
      assertThatThrownBy(() -> FineTuning.full(model, FineTuning.KlReference.NONE))
          .hasMessageContaining("adapter attached");
    }
  }
}
