package org.magejvm.impl.llm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;

/**
 * The TorchScript decoding step against the Java one it mirrors: the same logits and the same cache contents to the
 * bit, on every dtype the CPU runs, with and without q/k norms, padding masks and dropped rows.
 */
class ScriptedDecodeStepTest {
  private static final int[][] ROWS = Qwen3ModelTest.PROMPTS;

  /** What a decode produced: every step's logits, then every layer's cached keys and values, flattened. */
  private record Decoded(List<float[]> logits, List<float[]> cache) {}

  /**
   * Prefills left-padded rows by two slots, then feeds one slot per step to the end of the longest row and six
   * tokens more, dropping row 1 after the third of those (as the generator drops finished rows).
   */
  private static Decoded decode(Qwen3Model m, boolean scripted) {
    m.setScriptedDecoding(scripted);
    int b = ROWS.length;
    int maxLen = 8;
    int[] pads = new int[b];
    long[] all = new long[b * maxLen];
    for (int i = 0; i < b; i++) {
      pads[i] = maxLen - ROWS[i].length;
      for (int j = 0; j < ROWS[i].length; j++) {
        all[i * maxLen + pads[i] + j] = ROWS[i][j];
      }
    }
    List<float[]> logits = new ArrayList<>();
    List<float[]> cached = new ArrayList<>();
    GradMode noGrad = GradMode.disabled();
    try (NDManager mm = m.newManager(); KvCache cache = m.newCache(mm, b, 4)) {
      int slot = 0;
      int extra = 0;
      int[] rowPads = pads;
      while (slot < maxLen || extra < 6) {
        int t = slot == 0 ? 2 : 1;
        int rows = rowPads.length;
        long[] chunk = new long[rows * t];
        for (int i = 0; i < rows; i++) {
          for (int j = 0; j < t; j++) {
            chunk[i * t + j] = slot < maxLen ? all[i * maxLen + slot + j] : 7 + 3 * extra + i;
          }
        }
        try (NDManager step = mm.newSubManager()) {
          NDArray ids = step.create(chunk, new Shape(rows, t));
          logits.add(m.logits(m.forward(ids, rowPads, cache)).toType(DataType.FLOAT32, false).toFloatArray());
        }
        if (slot >= maxLen) {
          extra++;
          if (extra == 3) {
            cache.keepRows(new int[] {0, 2, 3});
            rowPads = new int[] {rowPads[0], rowPads[2], rowPads[3]};
          }
        }
        slot += t;
      }
      for (NDArray[] arrays : new NDArray[][] {cache.keyArrays(), cache.valueArrays()}) {
        for (NDArray a : arrays) {
          cached.add(a.toType(DataType.FLOAT32, false).toFloatArray());
        }
      }
    } finally {
      noGrad.close();
      m.setScriptedDecoding(true);
    }
    return new Decoded(logits, cached);
  }

  private static void assertSameBits(Qwen3Model m, String what) {
    assertThat(m.scriptedDecoding()).as(what + ": the script loads and runs this model").isTrue();
    int before = m.weights().manager().getManagedArrays().size();
    Decoded java = decode(m, false);
    long runs = ScriptedDecodeStep.runs();
    Decoded script = decode(m, true);
    // 12 steps of one slot after the two-slot prefill; none of them may have taken the Java path
    assertThat(ScriptedDecodeStep.runs() - runs).as(what).isGreaterThanOrEqualTo(java.logits().size() - 1);
    assertThat(script.logits()).as(what).hasSameSizeAs(java.logits());
    for (int i = 0; i < java.logits().size(); i++) {
      assertSameBits(java.logits().get(i), script.logits().get(i), what + ", logits of call " + i);
    }
    for (int i = 0; i < java.cache().size(); i++) {
      assertSameBits(java.cache().get(i), script.cache().get(i), what + ", cache array " + i);
    }
    assertThat(m.weights().manager().getManagedArrays()).as(what + ": nothing left in the weights' manager")
        .hasSize(before);
  }

  /** Bit for bit (floatToIntBits, so -0 differs from 0), naming the first difference rather than printing arrays. */
  private static void assertSameBits(float[] want, float[] got, String what) {
    assertThat(got.length).as(what).isEqualTo(want.length);
    for (int j = 0; j < want.length; j++) {
      if (Float.floatToIntBits(want[j]) != Float.floatToIntBits(got[j])) {
        throw new AssertionError(what + ": element " + j + " is " + got[j] + ", the Java step's is " + want[j]);
      }
    }
  }

  @Test
  void theScriptComputesTheJavaStepToTheBitOnEveryCpuDtype() {
    for (DataType dtype : new DataType[] {DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16}) {
      try (Qwen3Model m = TinyFixture.model(dtype)) {
        assertThat(m.config().qkNorm()).isTrue();
        assertSameBits(m, "fixture, " + dtype);
      }
    }
  }

  @Test
  void aModelWithoutQueryAndKeyNormsToo() {
    Qwen3Config c = Qwen3Config.builder().optModelType("llama").setVocabSize(128).setHiddenSize(32)
        .setIntermediateSize(48).setNumHiddenLayers(3).setNumAttentionHeads(4).optNumKeyValueHeads(1)
        .optRopeTheta(10000).build();
    assertThat(c.qkNorm()).isFalse();
    try (Qwen3Model m = Qwen3Model.random(c, 5, Device.cpu(), DataType.FLOAT32)) {
      assertSameBits(m, "llama style, 4 query heads per key head");
    }
  }

  @Test
  void aModelWithBiasesDecodesFromJava() {
    Qwen3Config c = Qwen3Config.builder().optModelType("qwen2").setVocabSize(128).setHiddenSize(32)
        .setIntermediateSize(48).setNumHiddenLayers(2).setNumAttentionHeads(4).optNumKeyValueHeads(2)
        .optAttentionBias(true).optRopeTheta(10000).build();
    try (Qwen3Model m = Qwen3Model.random(c, 3, Device.cpu(), DataType.FLOAT32)) {
      assertThat(m.scriptedDecoding()).isFalse();
      long runs = ScriptedDecodeStep.runs();
      assertThat(decode(m, true).logits()).hasSize(13);
      assertThat(ScriptedDecodeStep.runs()).isEqualTo(runs);
    }
  }

  @Test
  void twoThreadsShareTheModuleAndGetWhatEachGetsAlone() throws Exception {
    try (Qwen3Model a = TinyFixture.model(DataType.FLOAT32);
        Qwen3Model b = TinyFixture.model(DataType.FLOAT64)) {
      Decoded aloneA = decode(a, true);
      Decoded aloneB = decode(b, true);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        List<Future<Decoded>> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          runs.add(pool.submit(() -> decode(a, true)));
          runs.add(pool.submit(() -> decode(b, true)));
        }
        for (int i = 0; i < runs.size(); i++) {
          Decoded got = runs.get(i).get(60, TimeUnit.SECONDS);
          Decoded want = i % 2 == 0 ? aloneA : aloneB;
          for (int s = 0; s < want.logits().size(); s++) {
            assertSameBits(want.logits().get(s), got.logits().get(s), "run " + i + ", call " + s);
          }
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void theArchiveIsWhatTorchJitSaveWritesForAModuleWithoutParameters() throws IOException {
    byte[] zip = ScriptedDecodeStep.archive("class DecodeStep(Module):\n  training : bool\n");
    List<String> names = new ArrayList<>();
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
      for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        names.add(e.getName());
        assertThat(e.getMethod()).as(e.getName() + " is stored, as libtorch's reader needs").isEqualTo(ZipEntry.STORED);
        if (e.getName().endsWith("version")) {
          assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("3\n");
        }
      }
    }
    assertThat(names).containsExactly("decode_step/data.pkl", "decode_step/code/__torch__.py",
        "decode_step/constants.pkl", "decode_step/version");
    // the same bytes every time (no clock in the entries)
    assertThat(ScriptedDecodeStep.archive("x")).isEqualTo(ScriptedDecodeStep.archive("x"));
  }

  @Test
  void codeLibtorchRefusesIsAnIoExceptionWithItsMessage() {
    String broken = ScriptedDecodeStep.code().replace("def forward(", "def forward((");
    assertThatThrownBy(() -> PyTorchNative.loadScript(ScriptedDecodeStep.archive(broken)))
        .isInstanceOf(IOException.class).hasMessageContaining("forward");
    assertThatThrownBy(() -> PyTorchNative.loadScript(new byte[] {'P', 'K', 3, 4, 0}))
        .isInstanceOf(IOException.class);
  }
}
