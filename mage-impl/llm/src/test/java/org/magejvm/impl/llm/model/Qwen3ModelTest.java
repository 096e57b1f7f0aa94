package org.magejvm.impl.llm.model;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class Qwen3ModelTest {
  /** Prompts of different lengths, left-padded to 8 slots in a batch (also {@code ScriptedDecodeStepTest}'s). */
  static final int[][] PROMPTS = {
    {1, 17, 42, 5, 96, 0, 33, 8},
    {1, 60, 3},
    {1, 9, 9, 9, 12, 80},
    {4}
  };

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

  private static double maxAbsDiff(float[] a, float[] b) {
    assertThat(a).hasSameSizeAs(b);
    double max = 0;
    for (int i = 0; i < a.length; i++) {
      max = Math.max(max, Math.abs(a[i] - b[i]));
    }
    return max;
  }

  /** Logits of one unpadded sequence, all positions, flattened (T*V). */
  private static float[] reference(Qwen3Model m, int[] tokens) {
    try (NDManager mm = m.newManager()) {
      return m.logits(mm, tokens).toType(DataType.FLOAT32, false).toFloatArray();
    }
  }

  @Test
  void logitsMatchFloat64Reference() {
    double[][] want = TinyFixture.logits();
    try (NDManager m = model.newManager()) {
      NDArray logits = model.logits(m, TinyFixture.inputIds());
      assertThat(logits.getShape().getShape()).containsExactly(1, want.length, want[0].length);
      assertThat(logits.getDataType()).isEqualTo(DataType.FLOAT32);
      double diff = maxAbsDiff(logits.toFloatArray(), want);
      System.out.println("fixture logits max-abs diff, float32 model: " + diff);
      assertThat(diff).isLessThan(1e-4);
    }
  }

  @Test
  void float64ModelMatchesReferenceClosely() {
    double[][] want = TinyFixture.logits();
    try (Qwen3Model m64 = TinyFixture.model(DataType.FLOAT64); NDManager m = m64.newManager()) {
      double[] got = m64.logits(m, TinyFixture.inputIds()).toDoubleArray();
      double max = 0;
      for (int i = 0; i < want.length; i++) {
        for (int j = 0; j < want[i].length; j++) {
          max = Math.max(max, Math.abs(got[i * want[i].length + j] - want[i][j]));
        }
      }
      System.out.println("fixture logits max-abs diff, float64 model: " + max);
      assertThat(max).isLessThan(1e-9);
    }
  }

  @Test
  void float16WeightsStayCloseToFloat32() {
    double[][] want = TinyFixture.logits();
    try (Qwen3Model m16 = TinyFixture.model(DataType.FLOAT16); NDManager m = m16.newManager()) {
      assertThat(m16.weights().layers().get(0).qProj().getDataType()).isEqualTo(DataType.FLOAT16);
      NDArray logits = m16.logits(m, TinyFixture.inputIds());
      assertThat(logits.getDataType()).isEqualTo(DataType.FLOAT32);
      double diff = maxAbsDiff(logits.toFloatArray(), want);
      System.out.println("fixture logits max-abs diff, float16 weights: " + diff);
      // logits span about +-10; float16 keeps ~3 significant digits
      assertThat(diff).isLessThan(0.1);
      // and the cached path works in float16 too
      float[] stepwise = cachedLogits(m16, new int[][] {TinyFixture.inputIds()}, 3)[0];
      float[] full = reference(m16, TinyFixture.inputIds());
      assertThat(maxAbsDiff(stepwise, full)).isLessThan(0.05);
    }
  }

  /**
   * Runs left-padded prompts through a KV cache: the first {@code prefill} tokens of each row at once (all rows
   * right-aligned on their prefix), then one token per step; returns per row the logits of its real positions.
   */
  private static float[][] cachedLogits(Qwen3Model m, int[][] rows, int prefill) {
    int b = rows.length;
    int maxLen = 0;
    for (int[] r : rows) {
      maxLen = Math.max(maxLen, r.length);
    }
    // align every row to end at the same slot: row i has (maxLen - len) padding slots
    int v = m.config().vocabSize();
    int[] pads = new int[b];
    long[] all = new long[b * maxLen];
    for (int i = 0; i < b; i++) {
      pads[i] = maxLen - rows[i].length;
      for (int j = 0; j < rows[i].length; j++) {
        all[i * maxLen + pads[i] + j] = rows[i][j];
      }
    }
    float[][] out = new float[b][];
    for (int i = 0; i < b; i++) {
      out[i] = new float[rows[i].length * v];
    }
    try (NDManager mm = m.newManager(); KvCache cache = m.newCache(mm, b, 2)) {
      int slot = 0;
      while (slot < maxLen) {
        int t = slot == 0 ? Math.min(prefill, maxLen) : 1;
        long[] chunk = new long[b * t];
        for (int i = 0; i < b; i++) {
          System.arraycopy(all, i * maxLen + slot, chunk, i * t, t);
        }
        try (NDManager step = mm.newSubManager()) {
          NDArray ids = step.create(chunk, new Shape(b, t));
          float[] logits = m.logits(m.forward(ids, pads, cache)).toType(DataType.FLOAT32, false).toFloatArray();
          for (int i = 0; i < b; i++) {
            for (int j = 0; j < t; j++) {
              int pos = slot + j - pads[i];
              if (pos >= 0) {
                System.arraycopy(logits, (i * t + j) * v, out[i], pos * v, v);
              }
            }
          }
        }
        slot += t;
      }
      assertThat(cache.length()).isEqualTo(maxLen);
      assertThat(cache.capacity()).isGreaterThanOrEqualTo(maxLen);
    }
    return out;
  }

  @Test
  void cachedDecodingMatchesRecomputation() {
    int[] seq = TinyFixture.inputIds();
    float[] full = reference(model, seq);
    for (int prefill : new int[] {1, 3, seq.length}) {
      float[] cached = cachedLogits(model, new int[][] {seq}, prefill)[0];
      double diff = maxAbsDiff(cached, full);
      System.out.println("cached vs recomputed logits, prefill " + prefill + ": " + diff);
      assertThat(diff).isLessThan(1e-5);
    }
  }

  @Test
  void paddedBatchRowsMatchEachRowAlone() {
    float[][] batched = cachedLogits(model, PROMPTS, 8);
    float[][] stepped = cachedLogits(model, PROMPTS, 2);
    double worst = 0;
    for (int i = 0; i < PROMPTS.length; i++) {
      float[] alone = reference(model, PROMPTS[i]);
      worst = Math.max(worst, maxAbsDiff(batched[i], alone));
      worst = Math.max(worst, maxAbsDiff(stepped[i], alone));
    }
    System.out.println("padded batch vs single rows, max-abs logits diff: " + worst);
    assertThat(worst).isLessThan(1e-5);
  }

  @Test
  void paddedBatchWithoutCacheMatchesToo() {
    int b = PROMPTS.length;
    int len = 8;
    int v = model.config().vocabSize();
    long[] ids = new long[b * len];
    int[] pads = new int[b];
    for (int i = 0; i < b; i++) {
      pads[i] = len - PROMPTS[i].length;
      for (int j = 0; j < PROMPTS[i].length; j++) {
        ids[i * len + pads[i] + j] = PROMPTS[i][j];
      }
    }
    try (NDManager m = model.newManager()) {
      float[] logits = model.logits(model.forward(m.create(ids, new Shape(b, len)), pads, null)).toFloatArray();
      for (int i = 0; i < b; i++) {
        float[] alone = reference(model, PROMPTS[i]);
        float[] row = new float[alone.length];
        System.arraycopy(logits, (i * len + pads[i]) * v, row, 0, row.length);
        assertThat(maxAbsDiff(row, alone)).isLessThan(1e-5);
      }
    }
  }

  @Test
  void cacheGrowsByDoublingUpToItsLimitAndDropsRows() {
    try (NDManager m = model.newManager(); KvCache cache = model.newCache(m, 3, 2, 5)) {
      assertThat(cache.capacity()).isEqualTo(2);
      cache.reserve(3);
      assertThat(cache.capacity()).isEqualTo(4);
      cache.reserve(5);
      assertThat(cache.capacity()).isEqualTo(5);
      cache.reserve(7);
      assertThat(cache.capacity()).isEqualTo(7);
      assertThat(cache.bytes()).isEqualTo(2L * 3 * 3 * 2 * 7 * 24 * 4);
      // rows 2 and 0 of a batch keep decoding exactly as they would alone
      int[][] rows = {PROMPTS[0], PROMPTS[1], PROMPTS[2]};
      int[] pads = {0, 5, 2};
      long[] ids = new long[3 * 8];
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < rows[i].length; j++) {
          ids[i * 8 + pads[i] + j] = rows[i][j];
        }
      }
      model.forward(m.create(ids, new Shape(3, 8)), pads, cache);
      cache.keepRows(new int[] {2, 0});
      assertThat(cache.batchSize()).isEqualTo(2);
      float[] next = model.logits(model.forward(m.create(new long[] {50, 51}, new Shape(2, 1)), new int[] {2, 0},
          cache)).toFloatArray();
      int v = model.config().vocabSize();
      int[] alone2 = java.util.Arrays.copyOf(PROMPTS[2], 7);
      alone2[6] = 50;
      int[] alone0 = java.util.Arrays.copyOf(PROMPTS[0], 9);
      alone0[8] = 51;
      float[] ref2 = reference(model, alone2);
      float[] ref0 = reference(model, alone0);
      assertThat(maxAbsDiff(java.util.Arrays.copyOfRange(next, 0, v),
          java.util.Arrays.copyOfRange(ref2, ref2.length - v, ref2.length))).isLessThan(1e-5);
      assertThat(maxAbsDiff(java.util.Arrays.copyOfRange(next, v, 2 * v),
          java.util.Arrays.copyOfRange(ref0, ref0.length - v, ref0.length))).isLessThan(1e-5);
    }
  }

  @Test
  void nothingLeaksIntoTheWeightsManager() {
    int before = model.weights().manager().getManagedArrays().size();
    cachedLogits(model, PROMPTS, 3);
    reference(model, PROMPTS[0]);
    assertThat(model.weights().manager().getManagedArrays()).hasSize(before);
  }

  /**
   * A head of at least {@link Qwen3Model#LARGE_HEAD_PARAMETERS} parameters is multiplied as head times rows for 2 to
   * {@link Qwen3Model#FEW_ROWS} rows without gradients: the logits must equal the usual product's (one row, or more
   * rows than that) up to float rounding, laid out row by row, owned by the hidden states' manager, with nothing left
   * in the weights' manager.
   */
  @Test
  void aLargeHeadGivesTheSameLogitsForFewRows() {
    Qwen3Config c = Qwen3Config.builder().setVocabSize(4096).setHiddenSize(256).setIntermediateSize(64)
        .setNumHiddenLayers(1).setNumAttentionHeads(4).optNumKeyValueHeads(2).optHeadDim(64)
        .optTieWordEmbeddings(true).build();
    assertThat((long) c.vocabSize() * c.hiddenSize()).isGreaterThanOrEqualTo(Qwen3Model.LARGE_HEAD_PARAMETERS);
    GradMode noGrad = GradMode.disabled();
    try (Qwen3Model big = Qwen3Model.random(c, 3, Device.cpu(), DataType.FLOAT32)) {
      int before = big.weights().manager().getManagedArrays().size();
      for (int rows : new int[] {2, Qwen3Model.FEW_ROWS, Qwen3Model.FEW_ROWS + 1}) {
        try (NDManager mm = big.newManager()) {
          NDArray hidden = mm.randomNormal(new Shape(rows, 1, 256));
          NDArray logits = big.logits(hidden);
          assertThat(logits.getManager()).isSameAs(mm);
          assertThat(logits.getShape()).isEqualTo(new Shape(rows, 1, 4096));
          float[] got = logits.toFloatArray();
          for (int r = 0; r < rows; r++) {
            // one row alone takes the usual product
            float[] alone = big.logits(hidden.get(r).reshape(1, 256)).toFloatArray();
            float[] row = Arrays.copyOfRange(got, r * 4096, (r + 1) * 4096);
            assertThat(maxAbsDiff(row, alone)).isLessThan(1e-4);
          }
        }
      }
      assertThat(big.weights().manager().getManagedArrays()).hasSize(before);
    } finally {
      noGrad.close();
    }
  }

  @Test
  void qwen2AndLlamaStylesDecodeConsistently() {
    for (String type : new String[] {"qwen2", "llama"}) {
      Qwen3Config c = Qwen3Config.builder().optModelType(type).setVocabSize(50).setHiddenSize(32)
          .setIntermediateSize(48).setNumHiddenLayers(2).setNumAttentionHeads(4).optNumKeyValueHeads(2)
          .optAttentionBias(true).optOutputBias(type.equals("llama")).optRopeTheta(10000).build();
      assertThat(c.qkNorm()).isFalse();
      try (Qwen3Model m = Qwen3Model.random(c, 3, Device.cpu(), DataType.FLOAT32)) {
        assertThat(m.weights().parameters()).containsKey("model.layers.0.self_attn.q_proj.bias")
            .doesNotContainKey("model.layers.0.self_attn.q_norm.weight");
        // give the biases some values so they matter
        m.weights().parameters().forEach((name, a) -> {
          if (name.endsWith(".bias")) {
            a.addi(0.3);
          }
        });
        int[] seq = {3, 14, 15, 9, 26, 5};
        float[] full = reference(m, seq);
        float[] cached = cachedLogits(m, new int[][] {seq, {7, 7}}, 1)[0];
        assertThat(maxAbsDiff(cached, full)).as(type).isLessThan(1e-5);
      }
    }
  }

  @Test
  void theAttentionMaskIsItsDefinition() {
    // padding, offsets (a cache), chunks of several slots and a shared prefix
    int[][] pads = {{0}, {0, 0, 0}, {2, 0, 5}, {0, 3}, {7, 1, 0, 4}};
    int[][] shapes = {{0, 1, 0}, {9, 1, 0}, {0, 8, 0}, {6, 4, 0}, {3, 5, 3}, {3, 1, 2}, {12, 3, 0}};
    try (NDManager m = model.newManager()) {
      for (int[] pad : pads) {
        for (int[] shape : shapes) {
          int offset = shape[0];
          int t = shape[1];
          int shared = shape[2];
          float[] expected = definedMask(pad, offset, t, shared);
          assertThat(model.maskArray(m, pad, offset, t, shared).toFloatArray())
              .as("pads %s, offset %d, t %d, shared %d", Arrays.toString(pad), offset, t, shared)
              .containsExactly(expected);
        }
      }
      // what it says: a decoding step at slot 3 of rows padded by 2 and 0 hides the first row's padding only
      float inf = Float.NEGATIVE_INFINITY;
      assertThat(model.maskArray(m, new int[] {2, 0}, 3, 1, 0).toFloatArray())
          .containsExactly(inf, inf, 0, 0, 0, 0, 0, 0);
      // and a chunk of two slots after a prefix of one sees what is before it
      assertThat(model.maskArray(m, new int[] {0}, 1, 2, 0).toFloatArray())
          .containsExactly(0, 0, inf, 0, 0, 0);
    }
  }

  /** The mask by its definition, entry by entry (B, 1, 1, T, S flattened). */
  private static float[] definedMask(int[] padLeft, int offset, int t, int sharedPrefix) {
    int s = offset + t;
    float[] mask = new float[padLeft.length * t * s];
    for (int i = 0; i < padLeft.length; i++) {
      int firstVisible = sharedPrefix + padLeft[i];
      for (int q = 0; q < t; q++) {
        int querySlot = offset + q;
        for (int k = 0; k < s; k++) {
          boolean visible = k >= firstVisible || k < sharedPrefix;
          boolean allowed = (k <= querySlot && visible) || k == querySlot;
          mask[(i * t + q) * s + k] = allowed ? 0f : Float.NEGATIVE_INFINITY;
        }
      }
    }
    return mask;
  }
}
