package org.magejvm.impl.llm.safetensors;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.ShortBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.magejvm.api.util.AtomicFiles;

/**
 * Writes safetensors files that Python's {@code safetensors} and Hugging Face loaders read as they are: tensors in
 * sorted-name order, packed back to back, a header padded with spaces so the data section starts 8-byte aligned, and
 * {@code __metadata__} holding {@code "format": "pt"} unless another format is given. Values can be stored as F32,
 * F16 or BF16 (narrowing rounds to nearest, ties to even), from Java float arrays or from FLOAT32/FLOAT16 DJL arrays.
 *
 * <p>Arrays handed to the {@code add} methods are not copied: they are read when {@link #write} or {@link
 * #writeSharded} runs, so they must stay unchanged (and, for DJL arrays, open) until then. Each file is written to a
 * temporary file in the same directory, forced to disk and then moved into place ({@link AtomicFiles}), so a crash
 * never leaves a half-written file under the final name.
 */
public final class SafetensorsWriter {

  /** The metadata key Hugging Face loaders check, and the value written when none is given. */
  public static final String FORMAT_KEY = "format";
  /** The default {@value #FORMAT_KEY} value. */
  public static final String DEFAULT_FORMAT = "pt";

  private static final int SCRATCH_BYTES = 1 << 20;
  private static final int CHUNK = 1 << 16;
  private static final long SEGMENT_BYTES = 1L << 30;

  private final Map<String, Pending> tensors = new TreeMap<>();
  private final Map<String, String> metadata = new TreeMap<>();

  /** Creates an empty writer. */
  public SafetensorsWriter() {}

  /**
   * Adds a tensor from Java floats (row-major).
   *
   * @param name the tensor name (unique, not empty, not {@code __metadata__})
   * @param values the values; their count must equal the product of the shape (1 for a scalar)
   * @param shape the shape; an empty shape is a scalar
   * @param storage how to store it: F32, F16 or BF16
   * @return this writer
   * @throws IllegalArgumentException on a bad name, shape, count or storage type
   */
  public SafetensorsWriter add(String name, float[] values, long[] shape, SafetensorsDtype storage) {
    Objects.requireNonNull(values, "values");
    long count = checkShape(name, shape);
    if (count != values.length) {
      throw new IllegalArgumentException("tensor '" + name + "': shape " + Arrays.toString(shape) + " holds " + count
          + " elements but " + values.length + " values were given");
    }
    put(new FloatArrayTensor(name, floatStorage(name, storage), shape.clone(), values));
    return this;
  }

  /**
   * Adds a DJL array (FLOAT32 or FLOAT16, any device, any layout) with its own shape.
   *
   * @param name the tensor name (unique, not empty, not {@code __metadata__})
   * @param array the array; it must stay open until the file is written
   * @param storage how to store it: F32, F16 or BF16
   * @return this writer
   * @throws IllegalArgumentException on a bad name, array type or storage type
   */
  public SafetensorsWriter add(String name, NDArray array, SafetensorsDtype storage) {
    Objects.requireNonNull(array, "array");
    DataType type = array.getDataType();
    if (type != DataType.FLOAT32 && type != DataType.FLOAT16) {
      throw new IllegalArgumentException(
          "tensor '" + name + "': only FLOAT32 and FLOAT16 arrays can be written, got " + type.name());
    }
    long[] shape = array.getShape().getShape();
    checkShape(name, shape);
    put(new ArrayTensor(name, floatStorage(name, storage), shape, array));
    return this;
  }

  /**
   * Adds a tensor from bytes already in its stored form (little-endian), for any dtype.
   *
   * @param name the tensor name (unique, not empty, not {@code __metadata__})
   * @param dtype the dtype recorded in the header
   * @param shape the shape
   * @param littleEndianBytes exactly element count x dtype size bytes
   * @return this writer
   * @throws IllegalArgumentException on a bad name, shape or byte count
   */
  public SafetensorsWriter addRaw(String name, SafetensorsDtype dtype, long[] shape, byte[] littleEndianBytes) {
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(littleEndianBytes, "littleEndianBytes");
    long count = checkShape(name, shape);
    if (count * dtype.byteSize() != littleEndianBytes.length) {
      throw new IllegalArgumentException("tensor '" + name + "': shape " + Arrays.toString(shape) + " of " + dtype
          + " needs " + count * dtype.byteSize() + " bytes but " + littleEndianBytes.length + " were given");
    }
    put(new RawTensor(name, dtype, shape.clone(), littleEndianBytes));
    return this;
  }

  /**
   * Adds a {@code __metadata__} entry.
   *
   * @param key the key (unique)
   * @param value the value
   * @return this writer
   * @throws IllegalArgumentException when the key was added before
   */
  public SafetensorsWriter addMetadata(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (metadata.putIfAbsent(key, value) != null) {
      throw new IllegalArgumentException("metadata key '" + key + "' was added twice");
    }
    return this;
  }

  /** @return the number of tensors added */
  public int size() {
    return tensors.size();
  }

  /**
   * Writes every tensor to one file.
   *
   * @param file the file to create or replace
   * @throws UncheckedIOException when writing fails
   */
  public void write(Path file) {
    writeFile(file, new ArrayList<>(tensors.values()));
  }

  /**
   * Writes a sharded checkpoint: shards named {@code <base>-00001-of-0000N.safetensors}, each holding whole tensors
   * in sorted-name order and at most {@code maxShardBytes} of tensor data (a single larger tensor gets a shard of its
   * own), plus the index {@code <base>.safetensors.index.json} with {@code metadata.total_size} and {@code
   * weight_map}. Every shard carries the same {@code __metadata__}. Always writes an index, even for one shard.
   *
   * @param dir the directory (created if missing)
   * @param baseName the file name stem, {@code model} for Hugging Face checkpoints
   * @param maxShardBytes the data budget per shard, positive
   * @return the index file
   * @throws UncheckedIOException when writing fails
   */
  public Path writeSharded(Path dir, String baseName, long maxShardBytes) {
    if (maxShardBytes <= 0) {
      throw new IllegalArgumentException("maxShardBytes must be positive, got " + maxShardBytes);
    }
    if (baseName == null || baseName.isEmpty() || baseName.contains("/") || baseName.contains("\\")) {
      throw new IllegalArgumentException("baseName must be a plain file name stem, got '" + baseName + "'");
    }
    List<List<Pending>> groups = new ArrayList<>();
    List<Pending> current = new ArrayList<>();
    long currentBytes = 0;
    long total = 0;
    for (Pending t : tensors.values()) {
      if (!current.isEmpty() && currentBytes + t.byteSize() > maxShardBytes) {
        groups.add(current);
        current = new ArrayList<>();
        currentBytes = 0;
      }
      current.add(t);
      currentBytes += t.byteSize();
      total += t.byteSize();
    }
    if (!current.isEmpty() || groups.isEmpty()) {
      groups.add(current);
    }
    Map<String, String> weightMap = new TreeMap<>();
    try {
      Files.createDirectories(dir);
      for (int i = 0; i < groups.size(); i++) {
        String shard = String.format(Locale.ROOT, "%s-%05d-of-%05d.safetensors", baseName, i + 1, groups.size());
        writeFile(dir.resolve(shard), groups.get(i));
        for (Pending t : groups.get(i)) {
          weightMap.put(t.name, shard);
        }
      }
      StringWriter text = new StringWriter();
      try (JsonWriter json = new JsonWriter(text)) {
        json.setIndent("  ");
        json.beginObject();
        json.name("metadata").beginObject().name("total_size").value(total).endObject();
        json.name("weight_map").beginObject();
        for (Map.Entry<String, String> e : weightMap.entrySet()) {
          json.name(e.getKey()).value(e.getValue());
        }
        json.endObject();
        json.endObject();
      }
      Path index = dir.resolve(baseName + ".safetensors.index.json");
      byte[] bytes = (text + "\n").getBytes(StandardCharsets.UTF_8);
      AtomicFiles.write(index, bytes);
      return index;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the sharded checkpoint in " + dir + ": " + e.getMessage(), e);
    }
  }

  private void writeFile(Path file, List<Pending> group) {
    Map<String, String> meta = new TreeMap<>(metadata);
    meta.putIfAbsent(FORMAT_KEY, DEFAULT_FORMAT);
    byte[] header = header(group, meta);
    Path dir = file.toAbsolutePath().getParent();
    try {
      Files.createDirectories(dir);
      AtomicFiles.write(file, out -> {
        ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        scratch.putLong(header.length);
        flush(scratch, out);
        writeFully(out, ByteBuffer.wrap(header));
        for (Pending t : group) {
          t.write(out, scratch);
          flush(scratch, out);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** The JSON header, padded with spaces so that 8 + its length is a multiple of 8. */
  private static byte[] header(List<Pending> group, Map<String, String> meta) {
    StringWriter text = new StringWriter();
    try (JsonWriter json = new JsonWriter(text)) {
      json.setHtmlSafe(false);
      json.beginObject();
      json.name(SafetensorsHeader.METADATA_KEY).beginObject();
      for (Map.Entry<String, String> e : meta.entrySet()) {
        json.name(e.getKey()).value(e.getValue());
      }
      json.endObject();
      long offset = 0;
      for (Pending t : group) {
        json.name(t.name).beginObject();
        json.name("dtype").value(t.dtype.name());
        json.name("shape").beginArray();
        for (long d : t.shape) {
          json.value(d);
        }
        json.endArray();
        json.name("data_offsets").beginArray().value(offset).value(offset + t.byteSize()).endArray();
        json.endObject();
        offset += t.byteSize();
      }
      json.endObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    byte[] raw = text.toString().getBytes(StandardCharsets.UTF_8);
    int padded = (raw.length + 7) / 8 * 8;
    byte[] out = Arrays.copyOf(raw, padded);
    Arrays.fill(out, raw.length, padded, (byte) ' ');
    return out;
  }

  private void put(Pending t) {
    if (tensors.putIfAbsent(t.name, t) != null) {
      throw new IllegalArgumentException("tensor '" + t.name + "' was added twice");
    }
  }

  private static long checkShape(String name, long[] shape) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(shape, "shape");
    if (name.isEmpty() || SafetensorsHeader.METADATA_KEY.equals(name)) {
      throw new IllegalArgumentException("'" + name + "' cannot be a tensor name");
    }
    long count = 1;
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException(
            "tensor '" + name + "': negative dimension in shape " + Arrays.toString(shape));
      }
      count = Math.multiplyExact(count, d);
    }
    return count;
  }

  private static SafetensorsDtype floatStorage(String name, SafetensorsDtype storage) {
    Objects.requireNonNull(storage, "storage");
    if (!storage.isLoadable()) {
      throw new IllegalArgumentException(
          "tensor '" + name + "': floats can be stored as F32, F16 or BF16, not " + storage);
    }
    return storage;
  }

  private static void flush(ByteBuffer scratch, FileChannel out) throws IOException {
    scratch.flip();
    writeFully(out, scratch);
    scratch.clear();
  }

  private static void writeFully(FileChannel out, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      out.write(buffer);
    }
  }

  /** Appends {@code n} floats, stored as {@code dtype}, flushing the scratch buffer whenever it fills. */
  private static void encode(float[] values, int offset, int n, SafetensorsDtype dtype, ByteBuffer scratch,
      FileChannel out) throws IOException {
    int size = dtype.byteSize();
    int done = 0;
    short[] shorts = dtype == SafetensorsDtype.F32 ? null : new short[Math.min(n, CHUNK)];
    while (done < n) {
      if (scratch.remaining() < size) {
        flush(scratch, out);
      }
      int k = Math.min(n - done, scratch.remaining() / size);
      if (shorts != null) {
        k = Math.min(k, shorts.length);
      }
      if (dtype == SafetensorsDtype.F32) {
        scratch.asFloatBuffer().put(values, offset + done, k);
      } else {
        boolean half = dtype == SafetensorsDtype.F16;
        for (int i = 0; i < k; i++) {
          int bits = Float.floatToRawIntBits(values[offset + done + i]);
          shorts[i] = (short) (half ? HalfPrecision.floatBitsToHalf(bits) : HalfPrecision.floatBitsToBf16(bits));
        }
        scratch.asShortBuffer().put(shorts, 0, k);
      }
      scratch.position(scratch.position() + k * size);
      done += k;
    }
  }

  /** One tensor waiting to be written. */
  private abstract static class Pending {
    final String name;
    final SafetensorsDtype dtype;
    final long[] shape;
    final long count;

    Pending(String name, SafetensorsDtype dtype, long[] shape) {
      this.name = name;
      this.dtype = dtype;
      this.shape = shape;
      long c = 1;
      for (long d : shape) {
        c *= d;
      }
      this.count = c;
    }

    long byteSize() {
      return count * dtype.byteSize();
    }

    /** Appends the stored bytes through the (little-endian) scratch buffer. */
    abstract void write(FileChannel out, ByteBuffer scratch) throws IOException;
  }

  private static final class FloatArrayTensor extends Pending {
    private final float[] values;

    FloatArrayTensor(String name, SafetensorsDtype dtype, long[] shape, float[] values) {
      super(name, dtype, shape);
      this.values = values;
    }

    @Override
    void write(FileChannel out, ByteBuffer scratch) throws IOException {
      encode(values, 0, values.length, dtype, scratch, out);
    }
  }

  private static final class RawTensor extends Pending {
    private final byte[] bytes;

    RawTensor(String name, SafetensorsDtype dtype, long[] shape, byte[] bytes) {
      super(name, dtype, shape);
      this.bytes = bytes;
    }

    @Override
    void write(FileChannel out, ByteBuffer scratch) throws IOException {
      flush(scratch, out);
      writeFully(out, ByteBuffer.wrap(bytes));
    }
  }

  private static final class ArrayTensor extends Pending {
    private final NDArray array;

    ArrayTensor(String name, SafetensorsDtype dtype, long[] shape, NDArray array) {
      super(name, dtype, shape);
      this.array = array;
    }

    @Override
    void write(FileChannel out, ByteBuffer scratch) throws IOException {
      if (count == 0) {
        return;
      }
      boolean onCpu = Device.Type.CPU.equals(array.getDevice().getDeviceType());
      NDArray cpu = onCpu ? array : array.toDevice(Device.cpu(), true);
      // a reshape gives a contiguous array (a view when possible), whose memory DJL exposes directly
      try (NDArray flat = cpu.reshape(-1)) {
        DataType type = flat.getDataType();
        long perSegment = SEGMENT_BYTES / type.getNumOfBytes();
        for (long first = 0; first < count; first += perSegment) {
          long n = Math.min(perSegment, count - first);
          if (n == count) {
            writeSegment(flat.toByteBuffer(true), type, (int) n, out, scratch);
          } else {
            try (NDArray view = flat.get(new NDIndex().addSliceDim(first, first + n))) {
              writeSegment(view.toByteBuffer(true), type, (int) n, out, scratch);
            }
          }
        }
      } finally {
        if (cpu != array) {
          cpu.close();
        }
      }
    }

    private void writeSegment(ByteBuffer memory, DataType type, int n, FileChannel out, ByteBuffer scratch)
        throws IOException {
      ByteBuffer data = memory.duplicate().order(ByteOrder.nativeOrder());
      if (type == DataType.FLOAT32) {
        FloatBuffer floats = data.asFloatBuffer();
        float[] chunk = new float[Math.min(n, CHUNK)];
        for (int done = 0; done < n; done += chunk.length) {
          int k = Math.min(chunk.length, n - done);
          floats.get(chunk, 0, k);
          encode(chunk, 0, k, dtype, scratch, out);
        }
        return;
      }
      ShortBuffer halves = data.asShortBuffer();
      short[] chunk = new short[Math.min(n, CHUNK)];
      float[] widened = dtype == SafetensorsDtype.F16 ? null : new float[chunk.length];
      for (int done = 0; done < n; done += chunk.length) {
        int k = Math.min(chunk.length, n - done);
        halves.get(chunk, 0, k);
        if (widened == null) {
          // F16 to F16: the bits as they are (keeps NaN payloads)
          for (int i = 0; i < k; i++) {
            if (scratch.remaining() < 2) {
              flush(scratch, out);
            }
            scratch.putShort(chunk[i]);
          }
        } else {
          for (int i = 0; i < k; i++) {
            widened[i] = HalfPrecision.halfToFloat(chunk[i]);
          }
          encode(widened, 0, k, dtype, scratch, out);
        }
      }
    }
  }
}
