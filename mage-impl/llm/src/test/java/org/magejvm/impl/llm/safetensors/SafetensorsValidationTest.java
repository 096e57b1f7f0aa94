package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.magejvm.impl.llm.safetensors.StFiles.entry;
import static org.magejvm.impl.llm.safetensors.StFiles.f32;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

class SafetensorsValidationTest {

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

  /** Opening a file with this header and data fails, naming the file and every fragment. */
  private void assertBad(String header, byte[] data, String... fragments) throws Exception {
    Path file = StFiles.raw(dir, "bad.safetensors", header, data);
    assertThatThrownBy(() -> SafetensorsFile.open(file).close())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContainingAll(fragments);
  }

  private static String obj(String... entries) {
    return "{" + String.join(",", entries) + "}";
  }

  @Test
  void filesShorterThanTheLengthPrefix() throws Exception {
    for (int size : new int[] {0, 1, 7}) {
      Path file = dir.resolve("short" + size + ".safetensors");
      Files.write(file, new byte[size]);
      assertThatThrownBy(() -> SafetensorsFile.open(file))
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("is " + size + " bytes long")
          .hasMessageContaining("8-byte header length");
    }
  }

  @Test
  void headerLengthLargerThanTheFile() throws Exception {
    byte[] header = "{}".getBytes(StandardCharsets.UTF_8);
    Path file = StFiles.rawBytes(dir, "long.safetensors", 1000, header, new byte[4]);
    assertThatThrownBy(() -> SafetensorsFile.open(file))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("header length 1000")
        .hasMessageContaining("the 6 bytes that follow");
    Path unsigned = StFiles.rawBytes(dir, "unsigned.safetensors", -1L, header, new byte[0]);
    assertThatThrownBy(() -> SafetensorsFile.open(unsigned))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("unsigned.safetensors")
        .hasMessageContaining("header length 18446744073709551615")
        .hasMessageContaining("the 2 bytes");
  }

  @Test
  void headerLongerThanTheLimit() throws Exception {
    Path file = dir.resolve("huge-header.safetensors");
    long declared = SafetensorsHeader.MAX_HEADER_BYTES + 1;
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(declared + 100); // sparse where supported; never read
      raf.write(new byte[] {(byte) (declared), (byte) (declared >> 8), (byte) (declared >> 16),
          (byte) (declared >> 24), 0, 0, 0, 0});
    }
    assertThatThrownBy(() -> SafetensorsFile.open(file))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("header length " + declared + " exceeds the limit");
  }

  @Test
  void headerThatIsNotUtf8() throws Exception {
    byte[] header = {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};
    Path file = StFiles.rawBytes(dir, "utf.safetensors", header.length, header, new byte[0]);
    assertThatThrownBy(() -> SafetensorsFile.open(file))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("utf.safetensors").hasMessageContaining("not valid UTF-8");
  }

  @Test
  void headerThatIsNotJson() throws Exception {
    String good = entry("w", "F32", "[1]", 0, 4);
    for (String text : new String[] {"", " ", "{", "{\"w\":}", "{'w':1}", "{" + good + ",}", "{" + good + "} x",
        "{" + good + "}{}", "{" + good + "} []", "{w:1}", "{\"w\" 1}", "nul", "{\"__metadata__\":{\"k\":\"\\q\"}}"}) {
      assertBad(text, f32(1), "not valid JSON");
    }
    assertBad("{\"w\" 1}", f32(1), "header is not valid JSON: ", "line 1 column");
  }

  @Test
  void headerThatIsNotAnObject() throws Exception {
    assertBad("[]", new byte[0], "must be a JSON object, found an array");
    assertBad("3", new byte[0], "must be a JSON object, found a number");
    assertBad("\"text\"", new byte[0], "must be a JSON object, found a string");
    assertBad("null", new byte[0], "must be a JSON object, found null");
  }

  @Test
  void entriesWithMissingOrMistypedFields() throws Exception {
    byte[] d = f32(1, 2);
    assertBad(obj("\"w\":[1]"), d, "tensor 'w'", "entry must be a JSON object, found an array");
    assertBad(obj("\"w\":{\"shape\":[2],\"data_offsets\":[0,8]}"), d, "tensor 'w'", "missing field 'dtype'");
    assertBad(obj("\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}"), d, "tensor 'w'", "missing field 'shape'");
    assertBad(obj("\"w\":{\"dtype\":\"F32\",\"shape\":[2]}"), d, "tensor 'w'", "missing field 'data_offsets'");
    assertBad(obj("\"w\":{\"dtype\":3,\"shape\":[2],\"data_offsets\":[0,8]}"), d,
        "tensor 'w'", "field 'dtype' must be a string, found a number");
    assertBad(obj("\"w\":{\"dtype\":null,\"shape\":[2],\"data_offsets\":[0,8]}"), d,
        "tensor 'w'", "field 'dtype' must be a string, found null");
    assertBad(obj(entry("w", "F32", "\"2\"", 0, 8)), d, "tensor 'w'", "field 'shape' must be an array of integers");
    assertBad(obj(entry("w", "F32", "{}", 0, 8)), d, "tensor 'w'", "field 'shape' must be an array");
    assertBad(obj(entry("w", "F32", "[1.5]", 0, 8)), d, "tensor 'w'", "'shape' element 0 must be an integer, found 1.5");
    assertBad(obj(entry("w", "F32", "[2.0]", 0, 8)), d, "tensor 'w'", "found 2.0");
    assertBad(obj(entry("w", "F32", "[1, 2e0]", 0, 8)), d, "tensor 'w'", "element 1", "found 2e0");
    assertBad(obj(entry("w", "F32", "[\"2\"]", 0, 8)), d, "tensor 'w'", "element 0 must be an integer, found a string");
    assertBad(obj(entry("w", "F32", "[null]", 0, 8)), d, "tensor 'w'", "found null");
    assertBad(obj(entry("w", "F32", "[[2]]", 0, 8)), d, "tensor 'w'", "found an array");
    assertBad(obj(entry("w", "F32", "[99999999999999999999]", 0, 8)), d,
        "tensor 'w'", "'shape' element 0 is out of the 64-bit range: 99999999999999999999");
    assertBad(obj("\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":{}}"), d,
        "tensor 'w'", "field 'data_offsets' must be an array");
    assertBad(obj("\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}"), d,
        "tensor 'w'", "'data_offsets' must hold exactly 2 integers", "found 1");
    assertBad(obj("\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8,8]}"), d,
        "tensor 'w'", "'data_offsets' must hold exactly 2 integers", "found 3");
    assertBad(obj("\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8.5]}"), d,
        "tensor 'w'", "'data_offsets' element 1 must be an integer, found 8.5");
    assertBad(obj("\"w\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}"), d,
        "tensor 'w'", "field 'dtype' appears twice");
    assertBad(obj(entry("w", "F32", "[2]", 0, 8), entry("w", "F32", "[2]", 0, 8)), d,
        "tensor 'w' appears twice");
  }

  @Test
  void unknownDtypes() throws Exception {
    assertBad(obj(entry("w", "F42", "[2]", 0, 8)), f32(1, 2), "tensor 'w'", "unknown dtype 'F42'", "BF16");
    assertBad(obj(entry("w", "f32", "[2]", 0, 8)), f32(1, 2), "tensor 'w'", "unknown dtype 'f32'");
    assertBad(obj(entry("w", "", "[2]", 0, 8)), f32(1, 2), "tensor 'w'", "unknown dtype ''");
  }

  @Test
  void negativeDimensionsAndOverflowingShapes() throws Exception {
    assertBad(obj(entry("w", "F32", "[2,-3]", 0, 8)), f32(1, 2), "tensor 'w'", "negative dimension -3",
        "[2, -3]");
    assertBad(obj(entry("w", "F32", "[4294967296,4294967296]", 0, 8)), f32(1, 2), "tensor 'w'",
        "[4294967296, 4294967296]", "more elements");
    assertBad(obj(entry("w", "F32", "[4611686018427387904]", 0, 8)), f32(1, 2), "tensor 'w'",
        "more elements (or bytes)");
  }

  @Test
  void badOffsets() throws Exception {
    byte[] d = f32(1, 2);
    assertBad(obj(entry("w", "F32", "[1]", -4, 0)), d, "tensor 'w'", "data_offsets [-4, 0] are negative");
    assertBad(obj(entry("w", "F32", "[1]", 4, -8)), d, "tensor 'w'", "are negative");
    assertBad(obj(entry("w", "F32", "[1]", 8, 4)), d, "tensor 'w'", "data_offsets [8, 4] are reversed");
    assertBad(obj(entry("w", "F32", "[3]", 0, 12)), d, "tensor 'w'", "data_offsets [0, 12]",
        "beyond the data section, which holds 8 bytes");
    assertBad(obj(entry("w", "F32", "[1]", 8, 12)), d, "tensor 'w'", "holds 8 bytes");
    assertBad(obj(entry("w", "F32", "[3]", 0, 8)), d, "tensor 'w'", "span 8 bytes", "needs 12 bytes",
        "3 elements x 4 bytes");
    assertBad(obj(entry("w", "BF16", "[2,2]", 0, 4)), d, "tensor 'w'", "span 4 bytes", "needs 8 bytes");
    assertBad(obj(entry("w", "F32", "[0]", 0, 4)), d, "tensor 'w'", "span 4 bytes", "needs 0 bytes");
  }

  @Test
  void overlappingTensors() throws Exception {
    byte[] d = f32(1, 2, 3, 4);
    assertBad(obj(entry("a", "F32", "[2]", 0, 8), entry("b", "F32", "[2]", 4, 12)), d,
        "tensor 'b'", "'a'", "overlaps");
    assertBad(obj(entry("outer", "F32", "[4]", 0, 16), entry("inner", "F32", "[1]", 8, 12)), d,
        "'outer'", "'inner'", "overlaps");
    assertBad(obj(entry("x", "F32", "[1]", 0, 4), entry("y", "F32", "[1]", 0, 4)), f32(1), "'x'", "'y'", "overlaps");
    // touching ranges and an empty tensor at a boundary are fine
    Path ok = StFiles.raw(dir, "ok.safetensors", obj(entry("a", "F32", "[2]", 0, 8), entry("b", "F32", "[2]", 8, 16),
        entry("e", "F32", "[0]", 8, 8)), d);
    try (SafetensorsFile st = SafetensorsFile.open(ok); NDManager m = manager.newSubManager()) {
      assertThat(st.load(m, "b", DataType.FLOAT32).toFloatArray()).containsExactly(3f, 4f);
      assertThat(st.load(m, "e", DataType.FLOAT32).getShape().getShape()).containsExactly(0L);
    }
    // an empty tensor inside another one is refused, as the reference implementation does (InvalidOffset)
    assertBad(obj(entry("a", "F32", "[4]", 0, 16), entry("e", "F32", "[0]", 4, 4)), d, "tensor 'e'",
        "do not continue the data section at byte 16", "overlaps tensor 'a'");
  }

  @Test
  void tensorsMustCoverTheDataSectionContiguously() throws Exception {
    byte[] d = f32(1, 2, 3, 4);
    assertBad(obj(entry("w", "F32", "[3]", 4, 16)), d, "tensor 'w'", "data_offsets [4, 16]",
        "the first tensor (by offset) must begin at 0");
    assertBad(obj(entry("a", "F32", "[1]", 0, 4), entry("b", "F32", "[2]", 8, 16)), d, "tensor 'b'",
        "leaves 4 unused bytes after tensor 'a'");
    assertBad(obj(entry("a", "F32", "[2]", 0, 8), entry("b", "F32", "[1]", 8, 12)), d,
        "the tensors cover 12 bytes but the data section holds 16", "last tensor must end at the end of the file");
    assertBad(obj(), d, "the tensors cover 0 bytes but the data section holds 16");
    // the reference implementation's InvalidHeaderStart
    assertBad(" " + obj(entry("w", "F32", "[4]", 0, 16)), d, "header must begin with '{' at byte 8, found a space");
    // an empty file (no tensors, no data) is fine
    Path empty = StFiles.raw(dir, "empty.safetensors", "{}", new byte[0]);
    try (SafetensorsFile st = SafetensorsFile.open(empty)) {
      assertThat(st.names()).isEmpty();
    }
  }

  /**
   * The exact damage from issue 12: a header-length field one byte short, pointing into the header's trailing space
   * padding. The JSON still parses, the data section would start one byte early and every tensor would be read
   * shifted; it must be refused, naming the file.
   */
  @Test
  void headerLengthOneByteShortIsRefused() throws Exception {
    Path good = smallFile();
    byte[] bytes = Files.readAllBytes(good);
    long length = java.nio.ByteBuffer.wrap(bytes, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    assertThat(bytes[(int) (8 + length - 1)]).as("the writer pads the header with spaces").isEqualTo((byte) ' ');
    for (long shortBy = 1; shortBy <= 8 && bytes[(int) (8 + length - shortBy)] == ' '; shortBy++) {
      byte[] damaged = bytes.clone();
      java.nio.ByteBuffer.wrap(damaged, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(length - shortBy);
      Path file = dir.resolve("short-header-" + shortBy + ".safetensors");
      Files.write(file, damaged);
      assertThatThrownBy(() -> SafetensorsFile.open(file).close())
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("the data section holds " + (bytes.length - 8 - length + shortBy))
          .hasMessageContaining("header length");
    }
    // one byte long instead: the data section starts one byte late, so the last tensor ends beyond it
    byte[] damaged = bytes.clone();
    java.nio.ByteBuffer.wrap(damaged, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(length + 1);
    Path file = dir.resolve("long-header.safetensors");
    Files.write(file, damaged);
    assertThatThrownBy(() -> SafetensorsFile.open(file).close())
        .isInstanceOf(CheckpointException.class).hasMessageContaining(file.toString());
  }

  @Test
  void metadataMustBeStrings() throws Exception {
    String w = entry("w", "F32", "[1]", 0, 4);
    assertBad(obj("\"__metadata__\":[1]", w), f32(1), "'__metadata__' must be an object of strings, found an array");
    assertBad(obj("\"__metadata__\":{\"format\":1}", w), f32(1), "'__metadata__' entry 'format'",
        "must be a string, found a number");
    assertBad(obj("\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}", w), f32(1), "the key 'a' twice");
    assertBad(obj("\"__metadata__\":{}", w, "\"__metadata__\":{}"), f32(1), "two '__metadata__'");
    Path file = StFiles.raw(dir, "nullmeta.safetensors", obj("\"__metadata__\":null", w), f32(1));
    try (SafetensorsFile st = SafetensorsFile.open(file)) {
      assertThat(st.metadata()).isEmpty();
      assertThat(st.names()).containsExactly("w");
    }
  }

  @Test
  void unknownFieldsAreIgnored() throws Exception {
    String header = obj("\"w\":{\"extra\":{\"nested\":[1,{\"x\":null}]},\"dtype\":\"F32\",\"shape\":[1],"
        + "\"data_offsets\":[0,4]}");
    Path file = StFiles.raw(dir, "extra.safetensors", header, f32(5));
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      assertThat(st.load(m, "w", DataType.FLOAT32).toFloatArray()).containsExactly(5f);
    }
  }

  @Test
  void missingFilesAndDirectories() {
    Path missing = dir.resolve("nope.safetensors");
    assertThatThrownBy(() -> SafetensorsFile.open(missing))
        .isInstanceOf(CheckpointException.class).hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> SafetensorsFile.open(dir))
        .isInstanceOf(CheckpointException.class).hasMessageContaining(dir.toString())
        .hasMessageContaining("is a directory");
  }

  /** A small valid file: several dtypes, a scalar, an empty tensor. */
  private Path smallFile() {
    Path file = dir.resolve("small.safetensors");
    new SafetensorsWriter()
        .add("a", new float[] {1, -2, 3.5f, 4, 5, 6}, new long[] {2, 3}, SafetensorsDtype.F32)
        .add("b", new float[] {0.5f, 0.25f, -8}, new long[] {3}, SafetensorsDtype.BF16)
        .add("c", new float[] {7}, new long[0], SafetensorsDtype.F16)
        .add("d", new float[0], new long[] {0, 2}, SafetensorsDtype.F32)
        .addMetadata("k", "v")
        .write(file);
    return file;
  }

  @Test
  void everyTruncationOfAValidFileIsRejected() throws Exception {
    byte[] full = Files.readAllBytes(smallFile());
    for (int length = 0; length < full.length; length++) {
      Path cut = dir.resolve("cut" + length + ".safetensors"); // a fresh file each time: no flush on truncation
      Files.write(cut, Arrays.copyOf(full, length));
      try (SafetensorsFile st = SafetensorsFile.open(cut)) {
        fail("a file cut to " + length + " of " + full.length + " bytes opened: " + st);
      } catch (CheckpointException expected) {
        assertThat(expected.getMessage()).contains(cut.toString());
      }
    }
  }

  @Test
  void unusedTrailingBytesAreRefused() throws Exception {
    byte[] full = Files.readAllBytes(smallFile());
    for (int extra = 1; extra <= 16; extra++) {
      Path padded = dir.resolve("padded" + extra + ".safetensors");
      Files.write(padded, Arrays.copyOf(full, full.length + extra));
      final int n = extra;
      assertThatThrownBy(() -> SafetensorsFile.open(padded).close())
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(padded.toString())
          .hasMessageContaining("the last tensor must end at the end of the file")
          .satisfies(e -> assertThat(e.getMessage()).contains("holds " + (full.length + n - dataStartOf(full))));
    }
  }

  private static long dataStartOf(byte[] file) {
    return 8 + java.nio.ByteBuffer.wrap(file, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
  }

  @Test
  void corruptingAnyHeaderByteGivesACheckpointExceptionOrAWorkingFile() throws Exception {
    byte[] full = Files.readAllBytes(smallFile());
    int dataStart;
    try (SafetensorsFile st = SafetensorsFile.open(smallFile())) {
      dataStart = (int) st.dataStart();
    }
    byte[] replacements = "}]\",9-x".getBytes(StandardCharsets.US_ASCII);
    byte[] extra = {(byte) 0xFF};
    int valid = 0;
    int rejected = 0;
    for (int pos = 8; pos < dataStart; pos++) {
      for (int r = 0; r < replacements.length + extra.length; r++) {
        byte b = r < replacements.length ? replacements[r] : extra[r - replacements.length];
        if (full[pos] == b) {
          continue;
        }
        byte[] copy = full.clone();
        copy[pos] = b;
        byte[] header = Arrays.copyOfRange(copy, 8, dataStart);
        try {
          SafetensorsHeader.parse(header, full.length - dataStart, "mutated.safetensors");
        } catch (CheckpointException e) {
          assertThat(e.getMessage()).startsWith("mutated.safetensors: ");
          rejected++;
          continue;
        } catch (RuntimeException e) {
          throw new AssertionError("byte " + pos + " set to " + b + " gave " + e, e);
        }
        valid++;
        Path mutated = dir.resolve("mutated" + valid + ".safetensors");
        if (valid % 5 == 1) { // writing and loading every one of them would only repeat the same checks
          Files.write(mutated, copy);
          loadEverything(mutated);
        }
      }
    }
    assertThat(rejected).isGreaterThan(500);
    assertThat(valid).isGreaterThan(0); // e.g. a changed metadata value or a renamed tensor
  }

  @Test
  void randomHeadersAreEitherRejectedOrSelfConsistent() throws Exception {
    SplittableRandom random = new SplittableRandom(42);
    String[] dtypes = {"F32", "F16", "BF16", "I8", "U8", "F64", "I64", "X"};
    int valid = 0;
    for (int iteration = 0; iteration < 3000; iteration++) {
      int count = random.nextInt(4);
      List<String> parts = new ArrayList<>();
      long chained = 0;
      long furthest = 0;
      for (int t = 0; t < count; t++) {
        String dtype = dtypes[random.nextInt(dtypes.length)];
        int rank = random.nextInt(3);
        long[] shape = new long[rank];
        for (int i = 0; i < rank; i++) {
          shape[i] = random.nextInt(-1, 5);
        }
        long elements = 1;
        for (long d : shape) {
          elements *= Math.max(d, 0);
        }
        int size = dtype.equals("F32") ? 4 : dtype.endsWith("16") ? 2 : dtype.endsWith("8") ? 1 : 8;
        // usually the next contiguous range with the right size, sometimes anything
        long begin = random.nextInt(4) == 0 ? random.nextInt(-2, 66) : chained;
        long end = random.nextInt(4) == 0 ? begin + random.nextInt(-2, 34) : begin + elements * size;
        chained = end;
        furthest = Math.max(furthest, end);
        parts.add(entry("t" + t, dtype, Arrays.toString(shape), begin, end));
      }
      String header = obj(parts.toArray(new String[0]));
      long dataLength = random.nextInt(8) == 0 ? furthest + 1 : furthest;
      SafetensorsHeader parsed;
      try {
        parsed = SafetensorsHeader.parse(header.getBytes(StandardCharsets.UTF_8), dataLength, "random");
      } catch (CheckpointException e) {
        continue;
      }
      valid++;
      // independent re-check of the invariants the parser promises
      List<long[]> ranges = new ArrayList<>();
      for (SafetensorsHeader.Entry e : parsed.entries().values()) {
        long elements = 1;
        for (long d : e.shape()) {
          assertThat(d).isNotNegative();
          elements *= d;
        }
        assertThat(e.elementCount()).isEqualTo(elements);
        assertThat(e.end() - e.begin()).isEqualTo(elements * e.dtype().byteSize());
        assertThat(e.begin()).isNotNegative();
        assertThat(e.end()).isLessThanOrEqualTo(dataLength);
        ranges.add(new long[] {e.begin(), e.end()});
      }
      // sorted by offset, the ranges tile [0, dataLength) exactly
      ranges.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
      long at = 0;
      for (long[] r : ranges) {
        assertThat(r[0]).as("%s", header).isEqualTo(at);
        at = r[1];
      }
      assertThat(at).as("%s", header).isEqualTo(dataLength);
    }
    assertThat(valid).isGreaterThan(100);
  }

  private void loadEverything(Path file) {
    try (SafetensorsFile st = SafetensorsFile.open(file); NDManager m = manager.newSubManager()) {
      for (String name : st.names()) {
        for (DataType target : new DataType[] {DataType.FLOAT32, DataType.FLOAT16}) {
          try {
            NDArray a = st.load(m, name, target);
            assertThat(a.getShape().getShape()).isEqualTo(st.info(name).shape());
          } catch (CheckpointException e) {
            assertThat(e.getMessage()).contains("unsupported dtype");
          }
        }
      }
    }
  }
}
