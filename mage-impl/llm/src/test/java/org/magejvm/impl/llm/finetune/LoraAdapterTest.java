package org.magejvm.impl.llm.finetune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;

class LoraAdapterTest {
  private static final List<int[]> PROMPTS = List.of(new int[] {1, 17, 42, 5}, new int[] {1, 60});
  private static final List<int[]> RESPONSES = List.of(new int[] {33, 8, 90}, new int[] {7, 2, 2, 41, 13});

  private static float[] logits(Qwen3Model model) {
    GradMode noGrad = GradMode.disabled();
    try (NDManager m = model.newManager()) {
      return model.logits(m, TinyFixture.inputIds()).toType(DataType.FLOAT32, false).toFloatArray();
    } finally {
      noGrad.close();
    }
  }

  private static LoraConfig.Builder allLinear(int rank) {
    return LoraConfig.builder().setRank(rank).optAlpha(16).optAllLinear();
  }

  @Test
  void aFreshAdapterLeavesTheLogitsBitIdentical() {
    for (DataType dtype : new DataType[] {DataType.FLOAT32, DataType.FLOAT16}) {
      try (Qwen3Model model = TinyFixture.model(dtype);
          LoraAdapter lora = LoraAdapter.create(model, allLinear(8).build(), 1)) {
        float[] base = logits(model);
        model.setAdapter(lora);
        float[] adapted = logits(model);
        assertThat(adapted).as(dtype.toString()).containsExactly(base);
        // the adapter is there and nonzero where PEFT's init makes it so
        assertThat(lora.loraA(0, Projection.Q_PROJ).abs().sum().getFloat()).isGreaterThan(0f);
        assertThat(lora.loraB(0, Projection.Q_PROJ).abs().sum().getFloat()).isZero();
        assertThat(lora.dtype()).isEqualTo(DataType.FLOAT32);
      }
    }
  }

  @Test
  void anAdapterSwitchedOffOrDetachedGivesTheBaseModel() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter lora = LoraAdapter.create(model, allLinear(4).optInitLoraWeights(false).build(), 2)) {
      float[] base = logits(model);
      model.setAdapter(lora);
      float[] adapted = logits(model);
      double moved = PeftFixture.maxAbsDiff(adapted, base);
      System.out.println("random adapter moves the logits by up to " + moved);
      assertThat(moved).isGreaterThan(0.1);
      lora.setEnabled(false);
      assertThat(logits(model)).containsExactly(base);
      lora.setEnabled(true);
      assertThat(logits(model)).containsExactly(adapted);
      model.setAdapter(null);
      assertThat(logits(model)).containsExactly(base);
      assertThat(model.adapter()).isEmpty();
    }
  }

  @Test
  void initialisationFollowsPeftAndDependsOnlyOnTheSeed() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter a = LoraAdapter.create(model, allLinear(8).build(), 5);
        LoraAdapter b = LoraAdapter.create(model, allLinear(8).build(), 5);
        LoraAdapter c = LoraAdapter.create(model, allLinear(8).build(), 6)) {
      float[] down = a.loraA(1, Projection.DOWN_PROJ).toFloatArray();
      assertThat(down).hasSize(8 * 160);
      double bound = 1 / Math.sqrt(160);
      double max = 0;
      for (float v : down) {
        max = Math.max(max, Math.abs(v));
      }
      assertThat(max).isLessThanOrEqualTo(bound).isGreaterThan(0.9 * bound);
      assertThat(b.loraA(1, Projection.DOWN_PROJ).toFloatArray()).containsExactly(down);
      assertThat(c.loraA(1, Projection.DOWN_PROJ).toFloatArray()).isNotEqualTo(down);
      assertThat(a.trainableParameters()).hasSize(3 * 7 * 2);
      assertThat(a.trainableParameters().keySet()).startsWith(
          "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight",
          "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight");
      assertThat(a.trainableParameters()).containsKey("base_model.model.model.layers.2.mlp.down_proj.lora_B.weight");
      assertThat(a.trainableParameters().get("base_model.model.model.layers.2.mlp.down_proj.lora_B.weight")
          .getShape().getShape()).containsExactly(64, 8);
      // r x (in + out) per module: q 64+96, k 64+48, v 64+48, o 96+64, gate 64+160, up 64+160, down 160+64
      assertThat(a.parameterCount()).isEqualTo(3L * 8 * (160 + 112 + 112 + 160 + 224 + 224 + 224));
      try (NDManager m = model.newManager()) {
        assertThat(a.deltaWeight(0, Projection.O_PROJ, m).abs().max().getFloat()).as("B = 0").isZero();
      }
    }
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT64);
        LoraAdapter r = LoraAdapter.create(model, allLinear(4).optInitLoraWeights(false).build(), 5);
        NDManager m = model.newManager()) {
      double[] delta = r.deltaWeight(2, Projection.UP_PROJ, m).toDoubleArray();
      double[] a = r.loraA(2, Projection.UP_PROJ).toDoubleArray(); // (4, 64)
      double[] b = r.loraB(2, Projection.UP_PROJ).toDoubleArray(); // (160, 4)
      assertThat(delta).hasSize(160 * 64);
      double s = 0;
      for (int k = 0; k < 4; k++) {
        s += b[7 * 4 + k] * a[k * 64 + 11];
      }
      assertThat(delta[7 * 64 + 11]).isCloseTo(4.0 * s, Offset.offset(1e-12)); // scaling 16 / 4
    }
  }

  @Test
  void gradientsReachOnlyTheAdapter() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter lora = LoraAdapter.create(model, allLinear(4).build(), 3);
        FineTuning ft = FineTuning.lora(model, lora)) {
      try (NDManager m = model.newManager();
          GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
        TokenScores s = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, 1.0, false);
        gc.backward(s.logProbs().sum());
      }
      for (Map.Entry<String, NDArray> e : model.weights().parameters().entrySet()) {
        assertThat(e.getValue().hasGradient()).as(e.getKey()).isFalse();
      }
      assertThat(ft.trainableParameters()).isSameAs(lora.trainableParameters());
      for (Map.Entry<String, NDArray> e : lora.trainableParameters().entrySet()) {
        assertThat(e.getValue().hasGradient()).as(e.getKey()).isTrue();
        try (NDArray g = e.getValue().getGradient()) {
          float norm = g.abs().sum().getFloat();
          if (e.getKey().contains("lora_B")) {
            // with B = 0 the gradient reaches B only (dL/dA is proportional to B)
            assertThat(norm).as(e.getKey()).isGreaterThan(0f);
          } else {
            assertThat(norm).as(e.getKey()).isZero();
          }
        }
      }
    }
  }

  private static double objective(Qwen3Model model) {
    GradMode noGrad = GradMode.disabled();
    try (NDManager m = model.newManager()) {
      TokenScores s = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, 0.8, true);
      return s.logProbs().sum().getDouble() + 0.1 * s.entropy().orElseThrow().sum().getDouble();
    } finally {
      noGrad.close();
    }
  }

  @Test
  void gradientsMatchFiniteDifferencesInFloat64() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT64);
        LoraAdapter lora = LoraAdapter.create(model, allLinear(4).optInitLoraWeights(false).optUseRslora(true)
            .build(), 4)) {
      assertThat(lora.dtype()).isEqualTo(DataType.FLOAT64);
      FineTuning.lora(model, lora).close();
      try (NDManager m = model.newManager();
          GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
        TokenScores s = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, 0.8, true);
        gc.backward(s.logProbs().sum().add(s.entropy().orElseThrow().sum().mul(0.1)));
      }
      Object[][] cases = {
        {LoraAdapter.loraAName(1, Projection.V_PROJ), 2L, 30L},
        {LoraAdapter.loraBName(2, Projection.DOWN_PROJ), 17L, 3L},
        {LoraAdapter.loraAName(0, Projection.GATE_PROJ), 1L, 5L},
      };
      for (Object[] c : cases) {
        NDArray p = lora.trainableParameters().get((String) c[0]);
        NDIndex at = new NDIndex((long) c[1] + ", " + (long) c[2]);
        double auto;
        try (NDArray g = p.getGradient()) {
          auto = g.get(at).getDouble();
        }
        double original = p.get(at).getDouble();
        double eps = 1e-6;
        GradMode noGrad = GradMode.disabled();
        double fd;
        try {
          p.set(at, original + eps);
          double up = objective(model);
          p.set(at, original - eps);
          double down = objective(model);
          p.set(at, original);
          fd = (up - down) / (2 * eps);
        } finally {
          noGrad.close();
        }
        System.out.printf("d/d %s[%d, %d]: autograd %.10f, finite difference %.10f, diff %.2e%n", c[0], c[1], c[2],
            auto, fd, Math.abs(auto - fd));
        assertThat(auto).as((String) c[0]).isCloseTo(fd, Offset.offset(1e-6 + 1e-6 * Math.abs(fd)));
        assertThat(Math.abs(auto)).as(c[0] + " gradient is not trivially zero").isGreaterThan(1e-5);
      }
      for (NDArray base : model.weights().parameters().values()) {
        assertThat(base.hasGradient()).isFalse();
      }
    }
  }

  @Test
  void dropoutAppliesOnlyWhileTrainingAndIsDeterministicBySeed() {
    LoraConfig config = allLinear(4).optInitLoraWeights(false).optDropout(0.3).build();
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter a = LoraAdapter.create(model, config, 9);
        LoraAdapter b = LoraAdapter.create(model, config, 9);
        LoraAdapter c = LoraAdapter.create(model, config.withBaseModelNameOrPath(null), 10)) {
      model.setAdapter(a);
      float[] eval = logits(model);
      a.setTraining(true);
      float[] train1 = logits(model);
      float[] train2 = logits(model);
      a.setTraining(false);
      assertThat(logits(model)).containsExactly(eval);
      assertThat(PeftFixture.maxAbsDiff(train1, eval)).isGreaterThan(1e-3);
      assertThat(PeftFixture.maxAbsDiff(train2, train1)).as("a new mask per call").isGreaterThan(1e-3);

      model.setAdapter(b);
      b.setTraining(true);
      assertThat(logits(model)).as("same seed, same masks").containsExactly(train1);
      assertThat(logits(model)).containsExactly(train2);

      // A from seed 10 differs, so compare the mask effect only: its eval and training logits differ too
      model.setAdapter(c);
      float[] cEval = logits(model);
      c.setTraining(true);
      assertThat(PeftFixture.maxAbsDiff(logits(model), cEval)).isGreaterThan(1e-3);
    }
  }

  @Test
  void generationAndTeacherForcingSeeTheAdapter() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter lora = LoraAdapter.create(model, allLinear(4).optInitLoraWeights(false).build(), 11)) {
      Qwen3Generator gen = Qwen3Generator.of(model);
      SamplingConfig greedy = SamplingConfig.builder().optTemperature(0).optMaxNewTokens(6).build();
      List<int[]> prompts = List.of(new int[] {1, 17, 42, 5}, new int[] {1, 60});
      List<GeneratedSequence> base = gen.generate(prompts, greedy, Set.of());
      model.setAdapter(lora);
      List<GeneratedSequence> adapted = gen.generate(prompts, greedy, Set.of());
      lora.setEnabled(false);
      List<GeneratedSequence> off = gen.generate(prompts, greedy, Set.of());
      lora.setEnabled(true);
      assertThat(off).isEqualTo(base);
      assertThat(adapted.get(0).logProbs()).isNotEqualTo(base.get(0).logProbs());
      // teacher forcing the adapted model's own tokens gives the log-probs generation reported
      try (NDManager m = model.newManager()) {
        GradMode noGrad = GradMode.disabled();
        try {
          TokenScores s = new TeacherForcing(model).score(m, prompts,
              List.of(adapted.get(0).tokenIds(), adapted.get(1).tokenIds()), 0, false);
          float[] lp = s.logProbs().toFloatArray();
          int r = (int) s.logProbs().getShape().get(1);
          double max = 0;
          for (int row = 0; row < 2; row++) {
            float[] want = adapted.get(row).logProbs();
            for (int j = 0; j < want.length; j++) {
              max = Math.max(max, Math.abs(lp[row * r + j] - want[j]));
            }
          }
          System.out.println("adapted generation vs teacher forcing log-probs: max diff " + max);
          assertThat(max).isLessThan(1e-4);
        } finally {
          noGrad.close();
        }
      }
    }
  }

  @Test
  void adaptersMustFitTheModel() {
    try (Qwen3Model f32 = TinyFixture.model(DataType.FLOAT32);
        Qwen3Model f64 = TinyFixture.model(DataType.FLOAT64);
        LoraAdapter for64 = LoraAdapter.create(f64, allLinear(2).build(), 0)) {
      assertThatThrownBy(() -> f32.setAdapter(for64)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("float32 LoRA matrices").hasMessageContaining("float64");
    }
    Qwen3Config other = Qwen3Config.builder().setVocabSize(97).setHiddenSize(64).setIntermediateSize(128)
        .setNumHiddenLayers(3).setNumAttentionHeads(4).optNumKeyValueHeads(2).optHeadDim(24).build();
    try (Qwen3Model f32 = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter narrow = LoraAdapter.create(other, DataType.FLOAT32, Device.cpu(), allLinear(2).build(), 0)) {
      assertThatThrownBy(() -> f32.setAdapter(narrow)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("gate_proj maps 64 to 128 features but the model's maps 64 to 160");
      assertThatThrownBy(() -> narrow.loraA(3, Projection.Q_PROJ)).hasMessageContaining("layer 3 does not exist");
    }
    try (Qwen3Model f32 = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter qv = LoraAdapter.create(f32, LoraConfig.builder().setRank(2).build(), 0)) {
      assertThatThrownBy(() -> qv.loraB(0, Projection.UP_PROJ)).hasMessageContaining("up_proj is not a target");
    }
  }

  @Test
  void theConfigBuilderValidates() {
    assertThatThrownBy(() -> LoraConfig.builder().build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("setRank");
    assertThatThrownBy(() -> LoraConfig.builder().setRank(0).build()).hasMessageContaining("r (the LoRA rank)");
    assertThatThrownBy(() -> LoraConfig.builder().setRank(4).optDropout(1).build())
        .hasMessageContaining("lora_dropout");
    assertThatThrownBy(() -> LoraConfig.builder().setRank(4).optAlpha(Double.NaN).build())
        .hasMessageContaining("lora_alpha");
    assertThatThrownBy(() -> LoraConfig.builder().setRank(4).optTargetModules().build())
        .hasMessageContaining("target_modules");
    LoraConfig c = LoraConfig.builder().setRank(16).build();
    assertThat(c.targetModules()).containsExactly(Projection.Q_PROJ, Projection.V_PROJ);
    assertThat(c.scaling()).isEqualTo(0.5);
    assertThat(LoraConfig.builder().setRank(16).optAlpha(32).optUseRslora(true).build().scaling()).isEqualTo(8.0);
    assertThatThrownBy(() -> c.targetModules().add(Projection.K_PROJ))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
