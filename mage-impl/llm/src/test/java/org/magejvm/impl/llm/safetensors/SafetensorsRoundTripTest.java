package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

class SafetensorsRoundTripTest {

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

  private static float[] values(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) r.nextGaussian() * 3;
    }
    return v;
  }

  private static float[] expected(float[] values, SafetensorsDtype storage, DataType target) {
    float[] out = new float[values.length];
    for (int i = 0; i < values.length; i++) {
      float stored = storage == SafetensorsDtype.F32 ? values[i]
          : storage == SafetensorsDtype.F16 ? HalfPrecision.halfToFloat(HalfPrecision.floatToHalf(values[i]))
          : HalfPrecision.bf16ToFloat(HalfPrecision.floatToBf16(values[i]));
      out[i] = target == DataType.FLOAT32 ? stored : HalfPrecision.halfToFloat(HalfPrecision.floatToHalf(stored));
    }
    return out;
  }

  @Test
  void roundTripsEveryStorageTypeIntoBothTargets() {
    float[] v = values(2 * 3 * 5, 1);
    Path file = dir.resolve("rt.safetensors");
    new SafetensorsWriter()
        .add("f32", v, new long[] {2, 3, 5}, SafetensorsDtype.F32)
        .add("f16", v, new long[] {6, 5}, SafetensorsDtype.F16)
        .add("bf16", v, new long[] {30}, SafetensorsDtype.BF16)
        .write(file);
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      assertThat(st.names()).containsExactly("bf16", "f16", "f32");
      assertThat(st.info("f32").shape()).containsExactly(2, 3, 5);
      assertThat(st.info("bf16").dtype()).isEqualTo("BF16");
      assertThat(st.info("f16").file()).isEqualTo("rt.safetensors");
      for (String name : st.names()) {
        SafetensorsDtype storage = SafetensorsDtype.valueOf(name.toUpperCase(java.util.Locale.ROOT));
        for (DataType target : new DataType[] {DataType.FLOAT32, DataType.FLOAT16}) {
          NDArray a = m.create(new Shape(0)); // placeholder to prove arrays go to the given manager
          a.close();
          NDArray loaded = st.load(m, name, target);
          assertThat(loaded.getDataType()).isEqualTo(target);
          assertThat(loaded.getShape()).isEqualTo(new Shape(st.info(name).shape()));
          assertThat(loaded.getName()).isEqualTo(name);
          assertThat(loaded.getManager()).isSameAs(m);
          assertThat(loaded.toType(DataType.FLOAT32, false).toFloatArray())
              .as("%s -> %s", name, target).containsExactly(expected(v, storage, target));
        }
      }
    }
  }

  @Test
  void bf16KeepsRepresentableValuesExactly() {
    float[] v = {0.68884f, 0.6875f, 1f, -2.5f, 3.140625f, 1f + 0x1p-8f, 1f + 3 * 0x1p-8f, 3.4e38f, -0f, 1e-3f};
    float[] want = {0.6875f, 0.6875f, 1f, -2.5f, 3.140625f, 1f, 1.015625f, Float.POSITIVE_INFINITY, -0f,
        0.00099945068359375f};
    Path file = dir.resolve("bf16.safetensors");
    new SafetensorsWriter().add("w", v, new long[] {v.length}, SafetensorsDtype.BF16).write(file);
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      assertThat(st.load(m, "w", DataType.FLOAT32).toFloatArray()).containsExactly(want);
    }
  }

  @Test
  void scalarsAndZeroSizeTensors() {
    Path file = dir.resolve("shapes.safetensors");
    new SafetensorsWriter()
        .add("scalar", new float[] {2.5f}, new long[0], SafetensorsDtype.F32)
        .add("scalar_bf16", new float[] {-1.5f}, new long[0], SafetensorsDtype.BF16)
        .add("empty", new float[0], new long[] {0, 4}, SafetensorsDtype.F32)
        .add("empty_f16", new float[0], new long[] {3, 0}, SafetensorsDtype.F16)
        .add("after", new float[] {7, 8}, new long[] {2}, SafetensorsDtype.F16)
        .write(file);
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      NDArray scalar = st.load(m, "scalar", DataType.FLOAT32);
      assertThat(scalar.getShape()).isEqualTo(new Shape());
      assertThat(scalar.toFloatArray()).containsExactly(2.5f);
      assertThat(st.load(m, "scalar_bf16", DataType.FLOAT16).toType(DataType.FLOAT32, false).toFloatArray())
          .containsExactly(-1.5f);
      NDArray empty = st.load(m, "empty", DataType.FLOAT32);
      assertThat(empty.getShape()).isEqualTo(new Shape(0, 4));
      assertThat(empty.size()).isZero();
      assertThat(st.load(m, "empty_f16", DataType.FLOAT32).getShape()).isEqualTo(new Shape(3, 0));
      assertThat(st.load(m, "after", DataType.FLOAT32).toFloatArray()).containsExactly(7f, 8f);
      assertThat(st.byteRange("empty")[0]).isEqualTo(st.byteRange("empty")[1]);
    }
  }

  @Test
  void headerIsAlignedPaddedWithSpacesAndCarriesMetadata() throws Exception {
    Path file = dir.resolve("meta.safetensors");
    new SafetensorsWriter()
        .add("x", new float[] {1, 2, 3}, new long[] {3}, SafetensorsDtype.F16)
        .addMetadata("note", "café <&> \"quoted\"")
        .write(file);
    byte[] bytes = Files.readAllBytes(file);
    long n = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    assertThat((8 + n) % 8).isZero();
    String header = new String(bytes, 8, (int) n, StandardCharsets.UTF_8);
    assertThat(header).startsWith("{\"__metadata__\":{\"format\":\"pt\",\"note\":");
    assertThat(header.trim()).endsWith("}");
    assertThat(header.substring(header.trim().length())).matches(" *");
    try (SafetensorsFile st = SafetensorsFile.open(file)) {
      assertThat(st.metadata()).containsExactly(Map.entry("format", "pt"), Map.entry("note", "café <&> \"quoted\""));
      assertThat(st.dataStart()).isEqualTo(8 + n);
      assertThat(st.fileSize()).isEqualTo(8 + n + 6);
    }
    new SafetensorsWriter().add("x", new float[] {1}, new long[] {1}, SafetensorsDtype.F32)
        .addMetadata("format", "mlx").write(file);
    try (SafetensorsFile st = SafetensorsFile.open(file)) {
      assertThat(st.metadata()).containsExactly(Map.entry("format", "mlx"));
    }
  }

  @Test
  void outputIsDeterministicWhateverTheAddOrder() throws Exception {
    float[] a = values(10, 2);
    float[] b = values(7, 3);
    Path first = dir.resolve("one.safetensors");
    Path second = dir.resolve("two.safetensors");
    new SafetensorsWriter().add("b", b, new long[] {7}, SafetensorsDtype.BF16)
        .add("a", a, new long[] {2, 5}, SafetensorsDtype.F32).addMetadata("k", "v").write(first);
    new SafetensorsWriter().addMetadata("k", "v").add("a", a, new long[] {2, 5}, SafetensorsDtype.F32)
        .add("b", b, new long[] {7}, SafetensorsDtype.BF16).write(second);
    assertThat(Files.readAllBytes(first)).isEqualTo(Files.readAllBytes(second));
  }

  @Test
  void djlReadsWhatWeWrite() throws Exception {
    float[] v = values(12, 4);
    Path file = dir.resolve("djl.safetensors");
    new SafetensorsWriter().add("w32", v, new long[] {3, 4}, SafetensorsDtype.F32)
        .add("w16", v, new long[] {12}, SafetensorsDtype.F16).write(file);
    try (NDManager m = manager.newSubManager()) {
      NDList list = NDList.decode(m, Files.readAllBytes(file));
      assertThat(list.get("w32").getShape()).isEqualTo(new Shape(3, 4));
      assertThat(list.get("w32").toFloatArray()).containsExactly(v);
      assertThat(list.get("w16").getDataType()).isEqualTo(DataType.FLOAT16);
      assertThat(list.get("w16").toType(DataType.FLOAT32, false).toFloatArray())
          .containsExactly(expected(v, SafetensorsDtype.F16, DataType.FLOAT32));
    }
  }

  @Test
  void writesDjlArraysIncludingNonContiguousAndHalfOnes() {
    Path file = dir.resolve("arrays.safetensors");
    try (NDManager m = manager.newSubManager()) {
      NDArray base = m.arange(0f, 6f).reshape(2, 3).div(7);
      NDArray transposed = base.transpose(); // a strided view: logical order differs from memory order
      NDArray half = base.toType(DataType.FLOAT16, false);
      NDArray scalar = m.create(3.25f);
      new SafetensorsWriter()
          .add("t", transposed, SafetensorsDtype.F32)
          .add("h_as_f16", half, SafetensorsDtype.F16)
          .add("h_as_f32", half, SafetensorsDtype.F32)
          .add("t_as_bf16", transposed, SafetensorsDtype.BF16)
          .add("s", scalar, SafetensorsDtype.F32)
          .add("e", m.zeros(new Shape(2, 0)), SafetensorsDtype.F16)
          .write(file);
      float[] tv = transposed.toFloatArray();
      float[] hv = half.toType(DataType.FLOAT32, false).toFloatArray();
      try (SafetensorsFile st = SafetensorsFile.open(file)) {
        NDArray t = st.load(m, "t", DataType.FLOAT32);
        assertThat(t.getShape()).isEqualTo(new Shape(3, 2));
        assertThat(t.toFloatArray()).containsExactly(tv);
        assertThat(st.load(m, "h_as_f16", DataType.FLOAT32).toFloatArray()).containsExactly(hv);
        assertThat(st.load(m, "h_as_f32", DataType.FLOAT32).toFloatArray()).containsExactly(hv);
        assertThat(st.load(m, "t_as_bf16", DataType.FLOAT32).toFloatArray())
            .containsExactly(expected(tv, SafetensorsDtype.BF16, DataType.FLOAT32));
        assertThat(st.load(m, "s", DataType.FLOAT32).getShape()).isEqualTo(new Shape());
        assertThat(st.load(m, "e", DataType.FLOAT16).getShape()).isEqualTo(new Shape(2, 0));
      }
    }
  }

  @Test
  void tinyMappingsAndSegmentsGiveTheSameValues() {
    // odd element counts make later tensors start at offsets that are not multiples of their element size,
    // so with tiny windows elements straddle window boundaries and tensors span many windows and segments
    Path file = dir.resolve("chunks.safetensors");
    float[] v = values(53, 5);
    new SafetensorsWriter()
        .add("a_bf16", values(3, 6), new long[] {3}, SafetensorsDtype.BF16)
        .add("b_f32", v, new long[] {53}, SafetensorsDtype.F32)
        .add("c_f16", values(7, 7), new long[] {7}, SafetensorsDtype.F16)
        .add("d_f32", values(6, 8), new long[] {2, 3}, SafetensorsDtype.F32)
        .add("e_bf16", v, new long[] {53, 1}, SafetensorsDtype.BF16)
        .add("f_f16", v, new long[] {1, 53}, SafetensorsDtype.F16)
        .write(file);
    try (NDManager m = manager.newSubManager(); SafetensorsFile reference = SafetensorsFile.open(file)) {
      for (long window : new long[] {8, 16, 24, 40, 64, SafetensorsFile.DEFAULT_WINDOW_BYTES}) {
        for (long segment : new long[] {8, 16, 24, 1L << 30}) {
          try (SafetensorsFile st = SafetensorsFile.open(file, window, segment)) {
            for (String name : st.names()) {
              for (DataType target : new DataType[] {DataType.FLOAT32, DataType.FLOAT16}) {
                NDArray want = reference.load(m, name, target);
                NDArray got = st.load(m, name, target);
                assertThat(got.getShape()).isEqualTo(want.getShape());
                assertThat(got.toType(DataType.FLOAT32, false).toFloatArray())
                    .as("%s window %d segment %d -> %s", name, window, segment, target)
                    .containsExactly(want.toType(DataType.FLOAT32, false).toFloatArray());
                got.close();
                want.close();
              }
            }
          }
        }
      }
    }
  }

  @Test
  void loadedArraysOwnTheirMemory() throws Exception {
    Path file = dir.resolve("alias.safetensors");
    float[] v = values(64, 9);
    new SafetensorsWriter()
        .add("f32", v, new long[] {8, 8}, SafetensorsDtype.F32)
        .add("f16", v, new long[] {64}, SafetensorsDtype.F16)
        .write(file);
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    try (NDManager m = manager.newSubManager()) {
      NDArray f32;
      NDArray f16;
      try (SafetensorsFile st = SafetensorsFile.open(file)) {
        f32 = st.load(m, "f32", DataType.FLOAT32);
        f16 = st.load(m, "f16", DataType.FLOAT16);
        f32.muli(-2).addi(1);
        f16.subi(100);
        // a second load of the same tensor from the same open file is not affected either
        assertThat(st.load(m, "f32", DataType.FLOAT32).toFloatArray()).containsExactly(v);
      }
      System.gc(); // let dropped mappings go; the arrays must not care
      float[] changed = f32.toFloatArray();
      for (int i = 0; i < v.length; i++) {
        assertThat(changed[i]).isEqualTo(v[i] * -2 + 1);
      }
      assertThat(f16.toType(DataType.FLOAT32, false).toFloatArray()[0]).isNotEqualTo(v[0]);
      try (SafetensorsFile again = SafetensorsFile.open(file)) {
        assertThat(again.load(m, "f32", DataType.FLOAT32).toFloatArray()).containsExactly(v);
        assertThat(again.load(m, "f16", DataType.FLOAT32).toFloatArray())
            .containsExactly(expected(v, SafetensorsDtype.F16, DataType.FLOAT32));
      }
    }
    assertThat(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))).isEqualTo(digest);
  }

  @Test
  void loadsFromSeveralThreadsAtOnce() throws Exception {
    Path file = dir.resolve("threads.safetensors");
    SafetensorsWriter writer = new SafetensorsWriter();
    for (int t = 0; t < 16; t++) {
      writer.add("t" + t, values(1000 + t, t), new long[] {1000 + t}, t % 2 == 0 ? SafetensorsDtype.BF16
          : SafetensorsDtype.F32);
    }
    writer.write(file);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (SafetensorsFile st = SafetensorsFile.open(file, 64, 1L << 30); NDManager m = manager.newSubManager()) {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int round = 0; round < 8; round++) {
        for (int t = 0; t < 16; t++) {
          int index = t;
          results.add(pool.submit(() -> {
            float[] want = expected(values(1000 + index, index),
                index % 2 == 0 ? SafetensorsDtype.BF16 : SafetensorsDtype.F32, DataType.FLOAT32);
            try (NDArray a = st.load(m, "t" + index, DataType.FLOAT32)) {
              return Arrays.equals(a.toFloatArray(), want);
            }
          }));
        }
      }
      for (Future<Boolean> r : results) {
        assertThat(r.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFileTruncatedWhileOpenGivesACheckpointException() throws Exception {
    Path file = dir.resolve("shrinking.safetensors");
    new SafetensorsWriter().add("big", values(64 * 1024, 10), new long[] {64, 1024}, SafetensorsDtype.F32)
        .write(file);
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
        raf.setLength(st.dataStart() + 100); // the mapped pages past the new end now fault
      }
      assertThatThrownBy(() -> st.load(m, "big", DataType.FLOAT32))
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("shrinking.safetensors").hasMessageContaining("'big'")
          .hasMessageContaining("truncated");
    }
  }

  @Test
  void rewritingAnOpenFileLeavesTheOpenOneIntact() throws Exception {
    Path file = dir.resolve("rewrite.safetensors");
    new SafetensorsWriter().add("w", values(4096, 1), new long[] {4096}, SafetensorsDtype.F32).write(file);
    try (SafetensorsFile old = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      new SafetensorsWriter().add("w", new float[] {5, 6}, new long[] {2}, SafetensorsDtype.F32).write(file);
      assertThat(old.load(m, "w", DataType.FLOAT32).toFloatArray()).containsExactly(values(4096, 1));
      try (SafetensorsFile fresh = SafetensorsFile.open(file)) {
        assertThat(fresh.load(m, "w", DataType.FLOAT32).toFloatArray()).containsExactly(5f, 6f);
      }
      Files.delete(file);
      assertThat(old.load(m, "w", DataType.FLOAT32).toFloatArray()).containsExactly(values(4096, 1));
    }
  }

  @Test
  void closedFilesRefuseToLoadButKeepTheirHeader() {
    Path file = dir.resolve("closed.safetensors");
    new SafetensorsWriter().add("x", new float[] {1}, new long[] {1}, SafetensorsDtype.F32).write(file);
    SafetensorsFile st = SafetensorsFile.open(file);
    st.close();
    st.close();
    assertThat(st.names()).containsExactly("x");
    try (NDManager m = manager.newSubManager()) {
      assertThatThrownBy(() -> st.load(m, "x", DataType.FLOAT32))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed.safetensors");
    }
  }

  @Test
  void writerRejectsBadInput() {
    SafetensorsWriter w = new SafetensorsWriter().add("a", new float[2], new long[] {2}, SafetensorsDtype.F32);
    assertThatThrownBy(() -> w.add("a", new float[1], new long[] {1}, SafetensorsDtype.F32))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a' was added twice");
    assertThatThrownBy(() -> w.add("b", new float[5], new long[] {2, 3}, SafetensorsDtype.F32))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'b'").hasMessageContaining("6 elements");
    assertThatThrownBy(() -> w.add("c", new float[1], new long[] {1}, SafetensorsDtype.I32))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'c'").hasMessageContaining("I32");
    assertThatThrownBy(() -> w.add("__metadata__", new float[1], new long[] {1}, SafetensorsDtype.F32))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> w.add("", new float[1], new long[] {1}, SafetensorsDtype.F32))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> w.add("d", new float[0], new long[] {-1}, SafetensorsDtype.F32))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
    assertThatThrownBy(() -> w.addRaw("e", SafetensorsDtype.I64, new long[] {2}, new byte[8]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 bytes");
    assertThatThrownBy(() -> w.addMetadata("k", "1").addMetadata("k", "2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'k'");
    try (NDManager m = manager.newSubManager()) {
      assertThatThrownBy(() -> w.add("i", m.create(new int[] {1, 2}), SafetensorsDtype.F32))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("INT32");
    }
    assertThat(w.size()).isEqualTo(1);
  }

  @Test
  void rawTensorsOfOtherDtypesOpenButRefuseToLoad() {
    Path file = dir.resolve("ints.safetensors");
    new SafetensorsWriter().addRaw("ids", SafetensorsDtype.I64, new long[] {2}, new byte[16])
        .add("w", new float[] {1, 2}, new long[] {2}, SafetensorsDtype.F32).write(file);
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      assertThat(st.info("ids").dtype()).isEqualTo("I64");
      assertThatThrownBy(() -> st.load(m, "ids", DataType.FLOAT32))
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("ints.safetensors").hasMessageContaining("'ids'").hasMessageContaining("unsupported dtype I64");
      assertThatThrownBy(() -> st.load(m, "w", DataType.INT32))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("INT32");
      assertThatThrownBy(() -> st.load(m, "nope", DataType.FLOAT32))
          .isInstanceOf(CheckpointException.class).hasMessageContaining("ints.safetensors").hasMessageContaining("'nope'");
      assertThatThrownBy(() -> st.info("nope"))
          .isInstanceOf(CheckpointException.class).hasMessageContaining("'nope'");
      assertThat(List.copyOf(st.names())).containsExactly("ids", "w");
    }
  }

  @Test
  void writtenFilesHaveTheUmaskPermissionsAndNoTemporaryFileIsLeft() throws Exception {
    // written through a temporary sibling that is renamed over the target; it gets the umask's permissions, not
    // createTempFile's 0600, so a checkpoint written by one user or service can be read by another
    Path sub = Files.createDirectory(dir.resolve("perm"));
    Path plain = Files.createFile(sub.resolve("plain"));
    Path weights = sub.resolve("model.safetensors");
    new SafetensorsWriter().add("w", new float[] {1, 2}, new long[] {2}, SafetensorsDtype.F32).write(weights);
    assertThat(Files.getPosixFilePermissions(weights)).isEqualTo(Files.getPosixFilePermissions(plain));
    try (var files = Files.list(sub)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("plain", "model.safetensors");
    }
  }
}
