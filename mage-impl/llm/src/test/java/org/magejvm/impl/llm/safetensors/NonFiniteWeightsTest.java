package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/** NaN and infinite weights are found during the copy and named (issue 12). */
class NonFiniteWeightsTest {

  private static NDManager manager;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
  }

  @AfterAll
  static void stop() {
    manager.close();
  }

  private Path file() {
    float[] big = new float[1000];
    for (int i = 0; i < big.length; i++) {
      big[i] = i * 0.001f;
    }
    big[777] = Float.NEGATIVE_INFINITY;
    big[901] = Float.NaN;
    Path file = dir.resolve("w.safetensors");
    new SafetensorsWriter()
        .add("ok32", new float[] {1, 2, 3}, new long[] {3}, SafetensorsDtype.F32)
        .add("ok16", new float[] {1, 2, 3}, new long[] {3}, SafetensorsDtype.F16)
        .add("okbf", new float[] {1, 2, 3}, new long[] {3}, SafetensorsDtype.BF16)
        .add("nan32", new float[] {1, Float.NaN, 3, Float.NaN}, new long[] {2, 2}, SafetensorsDtype.F32)
        .add("inf16", new float[] {0, 0, Float.POSITIVE_INFINITY}, new long[] {3}, SafetensorsDtype.F16)
        .add("nanbf", new float[] {Float.NaN}, new long[] {1}, SafetensorsDtype.BF16)
        .add("huge32", new float[] {1, 1e6f}, new long[] {2}, SafetensorsDtype.F32)
        .add("big", big, new long[] {10, 100}, SafetensorsDtype.BF16)
        .write(file);
    return file;
  }

  @Test
  void refusedWithFileTensorCountAndFirstIndex() {
    Path file = file();
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      for (String ok : Set.of("ok32", "ok16", "okbf")) {
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.FLOAT16}) {
          assertThat(st.load(m, ok, t, NonFiniteCheck.REFUSE).toType(DataType.FLOAT32, false).toFloatArray())
              .containsExactly(1f, 2f, 3f);
        }
      }
      assertThatThrownBy(() -> st.load(m, "nan32", DataType.FLOAT32, NonFiniteCheck.REFUSE))
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("tensor 'nan32'")
          .hasMessageContaining("holds 2 non-finite values")
          .hasMessageContaining("flat index 1");
      assertThatThrownBy(() -> st.load(m, "inf16", DataType.FLOAT32, NonFiniteCheck.REFUSE))
          .hasMessageContaining("tensor 'inf16'").hasMessageContaining("Infinity").hasMessageContaining("index 2");
      assertThatThrownBy(() -> st.load(m, "inf16", DataType.FLOAT16, NonFiniteCheck.REFUSE))
          .hasMessageContaining("tensor 'inf16'");
      assertThatThrownBy(() -> st.load(m, "nanbf", DataType.FLOAT16, NonFiniteCheck.REFUSE))
          .hasMessageContaining("tensor 'nanbf'").hasMessageContaining("NaN");
      assertThatThrownBy(() -> st.load(m, "big", DataType.FLOAT32, NonFiniteCheck.REFUSE))
          .hasMessageContaining("holds 2 non-finite values").hasMessageContaining("-Infinity, is at flat index 777");
      // 1e6 is finite in float32 but beyond float16: what is loaded is what counts
      assertThat(st.load(m, "huge32", DataType.FLOAT32, NonFiniteCheck.REFUSE).toFloatArray())
          .containsExactly(1f, 1e6f);
      assertThatThrownBy(() -> st.load(m, "huge32", DataType.FLOAT16, NonFiniteCheck.REFUSE))
          .hasMessageContaining("loaded as FLOAT16").hasMessageContaining("index 1");
      // warn and allow load the values as they are
      for (NonFiniteCheck check : new NonFiniteCheck[] {NonFiniteCheck.WARN, NonFiniteCheck.ALLOW}) {
        float[] v = st.load(m, "nan32", DataType.FLOAT32, check).toFloatArray();
        assertThat(v[0]).isEqualTo(1f);
        assertThat(v[1]).isNaN();
      }
      assertThat(st.load(m, "nan32", DataType.FLOAT32).toFloatArray()[3]).isNaN(); // the plain load does not look
    }
  }

  @Test
  void theChunkedPathReportsTheRightIndex() {
    Path file = file();
    // 64-byte windows and segments: the 1000-element tensor is read in many pieces
    try (SafetensorsFile st = SafetensorsFile.open(file, 64, 64); NDManager m = manager.newSubManager()) {
      for (DataType t : new DataType[] {DataType.FLOAT32, DataType.FLOAT16}) {
        assertThatThrownBy(() -> st.load(m, "big", t, NonFiniteCheck.REFUSE))
            .hasMessageContaining("holds 2 non-finite values").hasMessageContaining("flat index 777");
      }
    }
  }

  @Test
  void otherSourcesAreCheckedOnTheLoadedArray() {
    Path file = file();
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      TensorSource plain = new TensorSource() { // only the three-argument load: the interface's default checks
        @Override
        public Set<String> names() {
          return st.names();
        }

        @Override
        public TensorInfo info(String name) {
          return st.info(name);
        }

        @Override
        public NDArray load(NDManager mm, String name, DataType target) {
          return st.load(mm, name, target);
        }

        @Override
        public void close() {}
      };
      assertThat(plain.load(m, "ok32", DataType.FLOAT32, NonFiniteCheck.REFUSE).toFloatArray())
          .containsExactly(1f, 2f, 3f);
      assertThatThrownBy(() -> plain.load(m, "big", DataType.FLOAT32, NonFiniteCheck.REFUSE))
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("w.safetensors").hasMessageContaining("tensor 'big'")
          .hasMessageContaining("holds 2 non-finite values").hasMessageContaining("flat index 777");
      assertThat(plain.load(m, "big", DataType.FLOAT32, NonFiniteCheck.WARN).getShape().size()).isEqualTo(1000);
    }
  }
}
