package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files and tensors beyond the 2 GiB limit of a Java buffer, using sparse files so nothing large is written.
 * The single-tensor case needs about 2 GiB of memory and is opt-in: {@code -Dmage.test.hugeTensor=true}.
 */
class LargeFileTest {

  private static final Set<String> NON_SPARSE = Set.of("vfat", "msdos", "fat", "fat32", "exfat", "hfs");

  @TempDir Path dir;

  /** Creates a sparse file of the given length starting with the header, or skips the test where impossible. */
  private Path sparseFile(String name, String header, long length) throws IOException {
    String type = Files.getFileStore(dir).type().toLowerCase(Locale.ROOT);
    assumeTrue(!NON_SPARSE.contains(type), "file system " + type + " has no sparse files");
    byte[] h = header.getBytes(StandardCharsets.UTF_8);
    ByteBuffer prefix = ByteBuffer.allocate(8 + h.length).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length).put(h);
    Path file = dir.resolve(name);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(length);
      raf.write(prefix.array());
    } catch (IOException e) {
      assumeTrue(false, "cannot create a sparse " + length + "-byte file: " + e);
    }
    return file;
  }

  private static void writeAt(Path file, long position, byte[] bytes) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(position);
      raf.write(bytes);
    }
  }

  @Test
  void tensorsBeyondTwoGibibytes() throws Exception {
    long filler = (1L << 31) + 3; // odd, so the tensors after it are not even 4-byte aligned
    String header = "{" + StFiles.entry("filler", "U8", "[" + filler + "]", 0, filler) + ","
        + StFiles.entry("tail_f32", "F32", "[2,2]", filler, filler + 16) + ","
        + StFiles.entry("tail_bf16", "BF16", "[3]", filler + 16, filler + 22) + "}";
    int headerLength = header.getBytes(StandardCharsets.UTF_8).length;
    long dataStart = 8 + headerLength;
    Path file = sparseFile("big.safetensors", header, dataStart + filler + 22);
    writeAt(file, dataStart + filler, StFiles.f32(1.5f, -2f, 1e-3f, 65504f));
    writeAt(file, dataStart + filler + 16, StFiles.shorts(
        HalfPrecision.floatToBf16(0.68884f), HalfPrecision.floatToBf16(-3f), HalfPrecision.floatToBf16(1e20f)));
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch");
        SafetensorsFile st = SafetensorsFile.open(file)) {
      assertThat(st.fileSize()).isGreaterThan(1L << 31);
      assertThat(st.byteRange("tail_f32")[0]).isGreaterThan(1L << 31);
      NDArray f32 = st.load(m, "tail_f32", DataType.FLOAT32);
      assertThat(f32.getShape()).isEqualTo(new Shape(2, 2));
      assertThat(f32.toFloatArray()).containsExactly(1.5f, -2f, 1e-3f, 65504f);
      assertThat(st.load(m, "tail_bf16", DataType.FLOAT32).toFloatArray())
          .containsExactly(0.6875f, -3f, HalfPrecision.bf16ToFloat(HalfPrecision.floatToBf16(1e20f)));
      assertThat(st.load(m, "tail_f32", DataType.FLOAT16).toType(DataType.FLOAT32, false).toFloatArray())
          .containsExactly(1.5f, -2f, 0.0010004043579101562f, 65504f);
      assertThat(st.info("filler").shape()).containsExactly(filler);
    }
  }

  @Test
  void oneTensorLargerThanTwoGibibytes() throws Exception {
    assumeTrue(Boolean.getBoolean("mage.test.hugeTensor"), "opt-in: -Dmage.test.hugeTensor=true");
    long count = (1L << 30) + 5; // F16: 2 GiB + 10 bytes, more than one Java buffer
    long bytes = count * 2;
    String header = "{" + StFiles.entry("huge", "F16", "[" + count + "]", 0, bytes) + "}";
    long dataStart = 8 + header.getBytes(StandardCharsets.UTF_8).length;
    Path file = sparseFile("huge.safetensors", header, dataStart + bytes);
    long[] marks = {0, (1L << 29) - 1, 1L << 29, (1L << 30) - 1, 1L << 30, count - 1};
    for (int i = 0; i < marks.length; i++) {
      writeAt(file, dataStart + marks[i] * 2, StFiles.shorts(HalfPrecision.floatToHalf(i + 1)));
    }
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch");
        SafetensorsFile st = SafetensorsFile.open(file);
        NDArray a = st.load(m, "huge", DataType.FLOAT16)) {
      assertThat(a.getShape()).isEqualTo(new Shape(count));
      for (int i = 0; i < marks.length; i++) {
        try (NDArray one = a.get(new NDIndex().addSliceDim(marks[i], marks[i] + 1))) {
          assertThat(one.toType(DataType.FLOAT32, false).toFloatArray()).containsExactly(i + 1f);
        }
        if (marks[i] > 0) {
          try (NDArray before = a.get(new NDIndex().addSliceDim(marks[i] - 1, marks[i]))) {
            boolean marked = marks[i] - 1 == marks[Math.max(0, i - 1)];
            assertThat(before.toType(DataType.FLOAT32, false).toFloatArray()).containsExactly(marked ? i : 0f);
          }
        }
      }
    }
  }
}
