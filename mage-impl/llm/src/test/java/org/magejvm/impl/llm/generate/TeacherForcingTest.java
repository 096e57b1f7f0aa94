package org.magejvm.impl.llm.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;

class TeacherForcingTest {
  private static final List<int[]> PROMPTS = List.of(new int[] {1, 17, 42, 5}, new int[] {1, 60});
  private static final List<int[]> RESPONSES = List.of(new int[] {33, 8, 90}, new int[] {7, 2, 2, 41, 13});

  private static double loss(Qwen3Model model, double temperature) {
    GradMode noGrad = GradMode.disabled();
    try (NDManager m = model.newManager()) {
      TokenScores s = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, temperature, true);
      return s.logProbs().sum().toType(DataType.FLOAT64, false).getDouble()
          + 0.1 * s.entropy().orElseThrow().sum().toType(DataType.FLOAT64, false).getDouble();
    } finally {
      noGrad.close();
    }
  }

  /** Gradient of sum(logProbs) + 0.1 * sum(entropy) w.r.t. every parameter, by autograd. */
  private static void backward(Qwen3Model model, double temperature) {
    try (NDManager m = model.newManager();
        GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
      TokenScores s = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, temperature, true);
      NDArray objective = s.logProbs().sum().add(s.entropy().orElseThrow().sum().mul(0.1));
      gc.backward(objective);
    }
  }

  private static double gradAt(Qwen3Model model, String name, long... idx) {
    NDArray p = model.weights().parameters().get(name);
    try (NDArray g = p.getGradient()) {
      return g.get(new NDIndex(idx[0] + (idx.length > 1 ? ", " + idx[1] : ""))).toType(DataType.FLOAT64, false)
          .getDouble();
    }
  }

  private static double finiteDifference(Qwen3Model model, String name, double eps, double temperature,
      long... idx) {
    NDArray p = model.weights().parameters().get(name);
    NDIndex at = new NDIndex(idx[0] + (idx.length > 1 ? ", " + idx[1] : ""));
    double original = p.get(at).toType(DataType.FLOAT64, false).getDouble();
    GradMode noGrad = GradMode.disabled(); // in-place writes to a leaf that requires gradients
    try {
      p.set(at, original + eps);
      double up = loss(model, temperature);
      p.set(at, original - eps);
      double down = loss(model, temperature);
      p.set(at, original);
      return (up - down) / (2 * eps);
    } finally {
      noGrad.close();
    }
  }

  /** Scores and the gradient of sum(logProbs) + 0.1 * sum(entropy) with a given position chunk. */
  private static float[][] scoresAndGradient(Qwen3Model model, int chunk, double temperature) {
    return scoresAndGradient(new TeacherForcing(model, chunk), model, PROMPTS, RESPONSES, temperature);
  }

  /** Scores and the gradient of sum(logProbs) + 0.1 * sum(entropy) of some rows. */
  private static float[][] scoresAndGradient(TeacherForcing tf, Qwen3Model model, List<int[]> prompts,
      List<int[]> responses, double temperature) {
    model.weights().zeroGradients();
    try (NDManager m = model.newManager();
        GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
      TokenScores s = tf.score(m, prompts, responses, temperature, true);
      NDArray objective = s.logProbs().sum().add(s.entropy().orElseThrow().sum().mul(0.1));
      gc.backward(objective);
      float[][] out = new float[2 + model.weights().parameters().size()][];
      out[0] = s.logProbs().toFloatArray();
      out[1] = s.entropy().orElseThrow().toFloatArray();
      int k = 2;
      for (NDArray p : model.weights().parameters().values()) {
        try (NDArray g = p.getGradient()) {
          out[k++] = g.toFloatArray();
        }
      }
      return out;
    }
  }

  @Test
  void aSharedPromptPrefixAndRepeatedRowsComputedOnceGiveTheSameScoresAndGradients() {
    // a common prefix of 6 tokens; prompts of different lengths (so the suffixes are padded), two equal prompts, a
    // prompt that is the prefix plus one token (the longest prefix that may be shared), and two rows that repeat
    // another row (scored once, copied)
    List<int[]> prompts = List.of(new int[] {1, 17, 42, 5, 9, 11, 60, 3, 8}, new int[] {1, 17, 42, 5, 9, 11, 70},
        new int[] {1, 17, 42, 5, 9, 11, 60, 3, 8}, new int[] {1, 17, 42, 5, 9, 11, 12},
        new int[] {1, 17, 42, 5, 9, 11, 70}, new int[] {1, 17, 42, 5, 9, 11, 60, 3, 8});
    List<int[]> responses = List.of(new int[] {33, 8, 90}, new int[] {7, 2, 2, 41, 13}, new int[] {33, 9},
        new int[] {4}, new int[] {7, 2, 2, 41, 13}, new int[] {33, 8, 90});
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32)) {
      model.weights().requireGradients(true);
      for (double temperature : new double[] {1.0, 0.7}) {
        float[][] plain = scoresAndGradient(new TeacherForcing(model, 128, false), model, prompts, responses,
            temperature);
        for (int chunk : new int[] {128, 2}) {
          TeacherForcing sharing = new TeacherForcing(model, chunk, true);
          assertThat(sharing.sharesPrefix()).isTrue();
          float[][] shared = scoresAndGradient(sharing, model, prompts, responses, temperature);
          for (int k = 0; k < plain.length; k++) {
            float scale = 0;
            for (float v : plain[k]) {
              scale = Math.max(scale, Math.abs(v));
            }
            assertThat(scale).as("array %d is not all zero", k).isPositive();
            for (int i = 0; i < plain[k].length; i++) {
              assertThat(shared[k][i]).as("%s %d[%d], chunk %d", k < 2 ? "score" : "gradient", k, i, chunk)
                  .isCloseTo(plain[k][i], Offset.offset(1e-6f + 1e-5f * scale));
            }
          }
        }
      }
      // repeated rows alone (no common prefix of 4 tokens): copies of the first row's scores
      List<int[]> twice = List.of(PROMPTS.get(0), PROMPTS.get(1), PROMPTS.get(0));
      List<int[]> twiceResponses = List.of(RESPONSES.get(0), RESPONSES.get(1), RESPONSES.get(0));
      float[][] once = scoresAndGradient(new TeacherForcing(model, 128, false), model, twice, twiceResponses, 1.0);
      float[][] copied = scoresAndGradient(new TeacherForcing(model, 128, true), model, twice, twiceResponses, 1.0);
      for (int k = 0; k < once.length; k++) {
        for (int i = 0; i < once[k].length; i++) {
          assertThat(copied[k][i]).as("array %d[%d]", k, i).isCloseTo(once[k][i], Offset.offset(1e-5f));
        }
      }
      // without gradients too (the scoring passes of an update)
      GradMode noGrad = GradMode.disabled();
      try (NDManager m = model.newManager();
          TokenScores a = new TeacherForcing(model, 128, true).score(m, prompts, responses, 1.0, false);
          TokenScores b = new TeacherForcing(model, 128, false).score(m, prompts, responses, 1.0, false)) {
        float[] x = a.logProbs().toFloatArray();
        float[] y = b.logProbs().toFloatArray();
        for (int i = 0; i < x.length; i++) {
          assertThat(x[i]).isCloseTo(y[i], Offset.offset(1e-5f));
        }
      } finally {
        noGrad.close();
      }
    }
  }

  @Test
  void positionChunksGiveTheSameScoresAndGradients() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32)) {
      model.weights().requireGradients(true);
      for (double temperature : new double[] {1.0, 0.7}) {
        float[][] whole = scoresAndGradient(model, TeacherForcing.DEFAULT_POSITION_CHUNK, temperature);
        for (int chunk : new int[] {1, 2, 4}) {
          float[][] chunked = scoresAndGradient(model, chunk, temperature);
          for (int k = 0; k < whole.length; k++) {
            float scale = 0;
            for (float v : whole[k]) {
              scale = Math.max(scale, Math.abs(v));
            }
            for (int i = 0; i < whole[k].length; i++) {
              assertThat(chunked[k][i]).as("%s %d[%d], chunk %d", k < 2 ? "score" : "gradient", k, i, chunk)
                  .isCloseTo(whole[k][i], Offset.offset(1e-6f + 1e-5f * scale));
            }
          }
        }
      }
    }
    assertThatThrownBy(() -> new TeacherForcing(TinyFixture.model(DataType.FLOAT32), 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positionChunk");
  }

  @Test
  void gradientsMatchFiniteDifferencesInFloat64() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT64)) {
      model.weights().requireGradients(true);
      backward(model, 0.8);
      String[][] cases = {
        {"model.layers.1.self_attn.q_proj.weight", "5", "7"},
        {"model.layers.0.self_attn.k_norm.weight", "3"},
        {"model.layers.2.mlp.down_proj.weight", "10", "100"},
        {"model.embed_tokens.weight", "33", "4"},
        {"model.norm.weight", "12"},
      };
      for (String[] c : cases) {
        long[] idx = c.length == 3 ? new long[] {Long.parseLong(c[1]), Long.parseLong(c[2])}
            : new long[] {Long.parseLong(c[1])};
        double auto = gradAt(model, c[0], idx);
        double fd = finiteDifference(model, c[0], 1e-6, 0.8, idx);
        System.out.printf("d/d %s%s: autograd %.10f, finite difference %.10f%n", c[0],
            java.util.Arrays.toString(idx), auto, fd);
        assertThat(auto).as(c[0]).isCloseTo(fd, Offset.offset(1e-6 + 1e-6 * Math.abs(fd)));
        assertThat(Math.abs(auto)).as(c[0] + " gradient is not trivially zero").isGreaterThan(1e-6);
      }
    }
  }

  @Test
  void gradientsInFloat32AreFiniteAndCloseToFiniteDifferences() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32)) {
      model.weights().requireGradients(true);
      backward(model, 1.0);
      for (NDArray p : model.weights().parameters().values()) {
        try (NDArray g = p.getGradient()) {
          assertThat(g.isInfinite().any().getBoolean() || g.isNaN().any().getBoolean()).as(p.getName()).isFalse();
          assertThat(g.abs().max().getFloat()).as(p.getName()).isGreaterThan(0f);
        }
      }
      String name = "model.layers.1.mlp.gate_proj.weight";
      double auto = gradAt(model, name, 20, 30);
      double fd = finiteDifference(model, name, 1e-2, 1.0, 20, 30);
      System.out.printf("float32: autograd %.6f, finite difference %.6f%n", auto, fd);
      assertThat(auto).isCloseTo(fd, Offset.offset(2e-2 * Math.max(1, Math.abs(fd))));

      // gradients accumulate until zeroed
      backward(model, 1.0);
      assertThat(gradAt(model, name, 20, 30)).isCloseTo(2 * auto, Offset.offset(1e-4 * Math.abs(auto) + 1e-7));
      model.weights().zeroGradients();
      assertThat(gradAt(model, name, 20, 30)).isZero();
      backward(model, 1.0);
      assertThat(gradAt(model, name, 20, 30)).isCloseTo(auto, Offset.offset(1e-4 * Math.abs(auto) + 1e-7));
    }
  }

  @Test
  void scoresMatchASoftmaxComputedByHand() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32); NDManager m = model.newManager()) {
      double t = 1.7;
      TokenScores s = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, t, true);
      assertThat(s.logProbs().getShape().getShape()).containsExactly(2, 5);
      assertThat(s.lengths()).containsExactly(3, 5);
      float[] lp = s.logProbs().toFloatArray();
      float[] ent = s.entropy().orElseThrow().toFloatArray();
      float[] mask = s.mask().toFloatArray();
      int v = model.config().vocabSize();
      for (int row = 0; row < 2; row++) {
        int[] p = PROMPTS.get(row);
        int[] r = RESPONSES.get(row);
        int[] full = new int[p.length + r.length];
        System.arraycopy(p, 0, full, 0, p.length);
        System.arraycopy(r, 0, full, p.length, r.length);
        float[] logits = model.logits(m, full).toFloatArray();
        for (int j = 0; j < 5; j++) {
          if (j >= r.length) {
            assertThat(mask[row * 5 + j]).isZero();
            assertThat(lp[row * 5 + j]).isZero();
            assertThat(ent[row * 5 + j]).isZero();
            continue;
          }
          int pos = p.length - 1 + j;
          double max = Double.NEGATIVE_INFINITY;
          for (int k = 0; k < v; k++) {
            max = Math.max(max, logits[pos * v + k] / t);
          }
          double z = 0;
          for (int k = 0; k < v; k++) {
            z += Math.exp(logits[pos * v + k] / t - max);
          }
          double h = 0;
          for (int k = 0; k < v; k++) {
            double l = logits[pos * v + k] / t - max - Math.log(z);
            h -= Math.exp(l) * l;
          }
          double want = logits[pos * v + r[j]] / t - max - Math.log(z);
          assertThat(mask[row * 5 + j]).isEqualTo(1f);
          assertThat((double) lp[row * 5 + j]).isCloseTo(want, Offset.offset(1e-4));
          assertThat((double) ent[row * 5 + j]).isCloseTo(h, Offset.offset(1e-4));
        }
      }
    }
  }

  private static String gradFunction(NDArray a) {
    // only for arrays recorded in a graph: libtorch aborts the JVM for one without a gradient function
    String s = ai.djl.pytorch.jni.JniUtils.getGradientFunctionNames((ai.djl.pytorch.engine.PtNDArray) a);
    return s == null ? "" : s;
  }

  @Test
  void gradModeIsPerThreadAndGenerationSwitchesItOff() throws Exception {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32)) {
      model.weights().requireGradients(true);
      Qwen3Generator gen = Qwen3Generator.of(model);
      org.magejvm.api.SamplingConfig cfg = org.magejvm.api.SamplingConfig.builder().optMaxNewTokens(5).optSeed(3)
          .build();
      List<GeneratedSequence> here = gen.generate(PROMPTS, cfg, java.util.Set.of());
      Object[] there = new Object[3];
      Thread worker = new Thread(() -> {
        there[0] = GradMode.isEnabled(); // PyTorch's default on a fresh thread
        there[1] = gen.generate(PROMPTS, cfg, java.util.Set.of());
        there[2] = GradMode.isEnabled(); // restored afterwards
      });
      worker.start();
      worker.join();
      assertThat(there[0]).isEqualTo(true);
      assertThat(there[2]).isEqualTo(true);
      assertThat(there[1]).isEqualTo(here);
      try (NDManager m = model.newManager();
          GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
        // (DJL's hasGradient() reports requires_grad, which is false for non-leaf results; ask for the graph)
        NDArray lp = new TeacherForcing(model).score(m, PROMPTS, RESPONSES, 1, false).logProbs();
        assertThat(gradFunction(lp)).isNotEmpty();
        gc.getClass();
      }
    }
  }

  @Test
  void emptyResponsesAndBadInput() {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32); NDManager m = model.newManager()) {
      TeacherForcing tf = new TeacherForcing(model);
      TokenScores s = tf.score(m, PROMPTS, List.of(new int[0], new int[0]), 1, false);
      assertThat(s.logProbs().getShape().getShape()).containsExactly(2, 0);
      assertThat(s.entropy()).isEmpty();
      assertThatThrownBy(() -> tf.score(m, PROMPTS, RESPONSES.subList(0, 1), 1, false))
          .hasMessageContaining("2 prompts but 1 responses");
      assertThatThrownBy(() -> tf.score(m, List.of(new int[0]), List.of(new int[] {1}), 1, false))
          .hasMessageContaining("prompt 0 is empty");
      assertThatThrownBy(() -> tf.score(m, List.of(new int[] {1}), List.of(new int[] {100}), 1, false))
          .hasMessageContaining("100");
      assertThatThrownBy(() -> tf.score(m, PROMPTS, RESPONSES, -1, false)).hasMessageContaining("temperature");
    }
  }
}
