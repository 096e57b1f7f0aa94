package org.magejvm.impl.llm.generate;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.llm.model.AttentionKernel;
import org.magejvm.impl.llm.model.FusedAttentionRuns;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.KvCache;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;

/**
 * The passes that save memory at long lengths (fused attention, recomputed layers, a recomputed output head) give
 * the scores and gradients of the plain pass (explicit attention, every activation kept), up to float rounding, in
 * float32 and float64, over rows that pad (prompts of different lengths), share a prompt prefix and repeat.
 */
class MemorySavingPassesTest {
  /** A shared prefix of 6 tokens, prompts of different lengths, a repeated row. */
  private static final List<int[]> PROMPTS = List.of(new int[] {1, 17, 42, 5, 9, 11, 60, 3, 8},
      new int[] {1, 17, 42, 5, 9, 11, 70}, new int[] {1, 17, 42, 5, 9, 11, 12},
      new int[] {1, 17, 42, 5, 9, 11, 60, 3, 8});
  private static final List<int[]> RESPONSES = List.of(new int[] {33, 8, 90}, new int[] {7, 2, 2, 41, 13},
      new int[] {4}, new int[] {33, 8, 90});
  /** No shared prefix: plain left padding. */
  private static final List<int[]> UNSHARED = List.of(new int[] {1, 17, 42, 5}, new int[] {3, 60},
      new int[] {9, 9, 9, 9, 9, 9, 4});
  private static final List<int[]> UNSHARED_RESPONSES = List.of(new int[] {33, 8, 90}, new int[] {7, 2, 2, 41, 13},
      new int[] {4, 5});

  /** Scores, entropies and every parameter's gradient of sum(logProbs) + 0.1 * sum(entropy). */
  static float[][] scoresAndGradient(Qwen3Model model, TeacherForcing tf, List<int[]> prompts,
      List<int[]> responses) {
    model.weights().zeroGradients();
    try (NDManager m = model.newManager();
        GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
      TokenScores s = tf.score(m, prompts, responses, 0.7, true);
      NDArray objective = s.logProbs().sum().add(s.entropy().orElseThrow().sum().mul(0.1));
      gc.backward(objective);
      s.completeBackward(gc);
      float[][] out = new float[2 + model.weights().parameters().size()][];
      out[0] = s.logProbs().toType(DataType.FLOAT32, false).toFloatArray();
      out[1] = s.entropy().orElseThrow().toType(DataType.FLOAT32, false).toFloatArray();
      int k = 2;
      for (NDArray p : model.weights().parameters().values()) {
        try (NDArray g = p.getGradient()) {
          out[k++] = g.toType(DataType.FLOAT32, false).toFloatArray();
        }
      }
      return out;
    }
  }

  static void assertClose(float[][] expected, float[][] actual, double relative, String what) {
    for (int k = 0; k < expected.length; k++) {
      float scale = 0;
      for (float v : expected[k]) {
        scale = Math.max(scale, Math.abs(v));
      }
      assertThat(scale).as("%s: array %d is not all zero", what, k).isPositive();
      for (int i = 0; i < expected[k].length; i++) {
        assertThat((double) actual[k][i]).as("%s: %s %d[%d]", what, k < 2 ? "score" : "gradient", k, i)
            .isCloseTo(expected[k][i], org.assertj.core.data.Offset.offset(relative * scale));
      }
    }
  }

  private static void eachPrecision(Consumer<Qwen3Model> check) {
    for (DataType type : new DataType[] {DataType.FLOAT32, DataType.FLOAT64}) {
      try (Qwen3Model model = TinyFixture.model(type)) {
        model.weights().requireGradients(true);
        check.accept(model);
      }
    }
  }

  private static double tolerance(Qwen3Model model) {
    return model.dtype() == DataType.FLOAT64 ? 1e-11 : 2e-5;
  }

  @Test
  void fusedAttentionGivesTheExplicitScoresAndGradients() {
    eachPrecision(model -> {
      for (boolean share : new boolean[] {true, false}) {
        TeacherForcing tf = new TeacherForcing(model, 128, share);
        model.setAttention(AttentionKernel.EXPLICIT);
        float[][] explicit = scoresAndGradient(model, tf, PROMPTS, RESPONSES);
        float[][] explicitUnshared = scoresAndGradient(model, tf, UNSHARED, UNSHARED_RESPONSES);
        model.setAttention(AttentionKernel.FUSED);
        long before = FusedAttentionRuns.count();
        float[][] fused = scoresAndGradient(model, tf, PROMPTS, RESPONSES);
        float[][] fusedUnshared = scoresAndGradient(model, tf, UNSHARED, UNSHARED_RESPONSES);
        assertThat(FusedAttentionRuns.count()).as("the fused kernel ran").isGreaterThan(before);
        assertClose(explicit, fused, tolerance(model), model.dtype() + " shared " + share);
        assertClose(explicitUnshared, fusedUnshared, tolerance(model), model.dtype() + " padded " + share);
      }
    });
  }

  @Test
  void recomputedLayersAndHeadGiveTheKeptPassScoresAndGradients() {
    eachPrecision(model -> {
      for (AttentionKernel kernel : new AttentionKernel[] {AttentionKernel.EXPLICIT, AttentionKernel.FUSED}) {
        model.setAttention(kernel);
        for (boolean share : new boolean[] {true, false}) {
          // a chunk of 2 positions: the recomputed head runs several chunks
          TeacherForcing base = new TeacherForcing(model, 2, share);
          TeacherForcing kept = base.withRecompute(Recompute.OFF, Recompute.OFF);
          float[][] expected = scoresAndGradient(model, kept, PROMPTS, RESPONSES);
          float[][] expectedUnshared = scoresAndGradient(model, kept, UNSHARED, UNSHARED_RESPONSES);
          for (Recompute[] r : new Recompute[][] {{Recompute.ON, Recompute.OFF}, {Recompute.OFF, Recompute.ON},
              {Recompute.ON, Recompute.ON}}) {
            TeacherForcing tf = base.withRecompute(r[0], r[1]);
            String what = model.dtype() + " " + kernel + " shared " + share + " layers " + r[0] + " head " + r[1];
            assertClose(expected, scoresAndGradient(model, tf, PROMPTS, RESPONSES), tolerance(model), what);
            assertClose(expectedUnshared, scoresAndGradient(model, tf, UNSHARED, UNSHARED_RESPONSES),
                tolerance(model), what + " padded");
          }
        }
      }
      model.setAttention(AttentionKernel.AUTO);
    });
  }

  @Test
  void recomputedScoresWithoutABackwardPassAreFreedAndAutoKeepsSmallPasses() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32)) {
      model.weights().requireGradients(true);
      TeacherForcing tf = new TeacherForcing(model, 2, true).withRecompute(Recompute.ON, Recompute.ON);
      try (NDManager m = model.newManager();
          GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
        TokenScores s = tf.score(m, PROMPTS, RESPONSES, 1.0, false);
        assertThat(s.logProbs().getShape().get(0)).isEqualTo(PROMPTS.size());
        // no backward pass: closing frees the second stage; completing it later does nothing
        s.close();
        s.completeBackward(gc);
      }
      // the tiny model's passes are far below RECOMPUTE_FROM_BYTES: AUTO keeps them as OFF does, bit for bit
      assertThat(new TeacherForcing(model).recomputeLayers()).as("the plain scorer keeps activations")
          .isEqualTo(Recompute.OFF);
      float[][] auto = scoresAndGradient(model, new TeacherForcing(model, 2, true)
          .withRecompute(Recompute.AUTO, Recompute.AUTO), PROMPTS, RESPONSES);
      float[][] off = scoresAndGradient(model, new TeacherForcing(model, 2, true)
          .withRecompute(Recompute.OFF, Recompute.OFF), PROMPTS, RESPONSES);
      assertThat(auto).isDeepEqualTo(off);
      assertThat(TeacherForcing.layerActivationBytes(model.config(), 1000))
          .isEqualTo(1000L * 3 * (6 * 64 + 4 * (4 + 2) * 24 + 5 * 160) * 4);
      assertThat(TeacherForcing.headActivationBytes(model.config(), 10)).isEqualTo(10L * 97 * 4);
    }
  }

  @Test
  void fusedAttentionGivesTheExplicitHiddenStatesInAChunkedPrefillWithPadding() {
    eachPrecision(model -> {
      // two rows, the first left-padded by 3; prefilled in chunks of 4 then 3 slots over a cache (no gradients)
      long[] ids = {0, 0, 0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
      int[] pads = {3, 0};
      float[][] out = new float[2][];
      GradMode noGrad = GradMode.disabled();
      try {
        int k = 0;
        for (AttentionKernel kernel : new AttentionKernel[] {AttentionKernel.EXPLICIT, AttentionKernel.FUSED}) {
          model.setAttention(kernel);
          try (NDManager m = model.newManager(); KvCache cache = model.newCache(m, 2, 4)) {
            NDArray all = m.create(ids, new Shape(2, 10));
            NDArray first = model.forward(all.get(":, 0:4"), pads, cache);
            NDArray second = model.forward(all.get(":, 4:7"), pads, cache);
            NDArray third = model.forward(all.get(":, 7:10"), pads, cache);
            // padding slots (row 0's first three) are meaningless: compare the real ones
            NDArray real = first.get("1:, :, :").flatten().concat(first.get("0, 3:, :").flatten())
                .concat(second.flatten()).concat(third.flatten());
            out[k++] = real.toType(DataType.FLOAT32, false).toFloatArray();
          }
        }
      } finally {
        noGrad.close();
        model.setAttention(AttentionKernel.AUTO);
      }
      assertClose(new float[][] {out[0]}, new float[][] {out[1]}, tolerance(model), model.dtype() + " prefill");
    });
  }
}
