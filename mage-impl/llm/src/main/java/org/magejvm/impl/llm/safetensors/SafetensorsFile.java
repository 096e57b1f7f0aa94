package org.magejvm.impl.llm.safetensors;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * One memory-mapped safetensors file: an 8-byte little-endian header length, a UTF-8 JSON header, then the data
 * section. The header is read and fully validated by {@link #open}; tensor bytes are read through read-only mappings
 * of at most 1 GiB each, so neither the file nor a single tensor is limited to 2 GiB.
 *
 * <p>Validation rejects anything that could make a read go wrong or be ambiguous (bad JSON or types, unknown dtypes,
 * negative or overflowing shapes, ranges outside the data section or overlapping, byte counts that disagree with the
 * shape, duplicate names). As the reference implementation does, it requires the tensors to cover the data section
 * exactly: sorted by offset, each begins where the previous one ends (the first at 0) and the last ends at the end of
 * the file. Unused bytes between tensors or at the end are refused, because a header length that is off by a few
 * bytes (pointing into the header's space padding) would otherwise still parse and every tensor would be read
 * shifted. It is lenient where nothing is at stake: unknown fields in a tensor entry are ignored and {@code
 * "__metadata__": null} means no metadata.
 *
 * <p>{@link #load} copies (and converts) a tensor into memory owned by the new array: the array never aliases the
 * mapping, so writing to it never touches the file and it stays valid after {@link #close}. F32, F16 and BF16
 * tensors load as FLOAT32 or FLOAT16; BF16 is widened in Java, never created as a DJL BF16 array. Loading is safe from
 * several threads at once.
 *
 * <p>The file must not be truncated or rewritten in place while it is open: each load first checks that the file
 * has not shrunk (and fails with a {@link CheckpointException} if it has), but a file cut short during a load can
 * still surface as a JVM {@code InternalError}. Deleting the file, or replacing it by a rename as {@link
 * SafetensorsWriter} does, is safe: the mapping keeps the old contents.
 *
 * <p>{@link #close} drops the mappings; the operating system unmaps them when they are garbage-collected (Java 17 has
 * no safe explicit unmap). The file descriptor is closed as soon as {@link #open} returns.
 */
public final class SafetensorsFile implements TensorSource {

  /** Consecutive windows overlap by the largest element size, so no element straddles two mappings. */
  static final int OVERLAP = 8;
  /** Source mappings start this far apart and are this long plus {@link #OVERLAP}: exactly 1 GiB. */
  static final long DEFAULT_WINDOW_BYTES = (1L << 30) - OVERLAP;
  /** Destination arrays are filled through views of at most this many bytes. */
  static final long DEFAULT_SEGMENT_BYTES = 1L << 30;

  private final Path path;
  private final String label;
  private final String fileName;
  private final long fileSize;
  private final Object fileKey;
  private final long dataStart;
  private final SafetensorsHeader header;
  private final Map<String, TensorInfo> infos;
  private final long windowBytes;
  private final long segmentBytes;
  private volatile MappedByteBuffer[] windows;

  private SafetensorsFile(Path path, long fileSize, Object fileKey, long dataStart, SafetensorsHeader header,
      MappedByteBuffer[] windows, long windowBytes, long segmentBytes) {
    this.path = path;
    this.label = path.toString();
    this.fileName = path.getFileName() == null ? label : path.getFileName().toString();
    this.fileSize = fileSize;
    this.fileKey = fileKey;
    this.dataStart = dataStart;
    this.header = header;
    this.windows = windows;
    this.windowBytes = windowBytes;
    this.segmentBytes = segmentBytes;
    Map<String, TensorInfo> m = new LinkedHashMap<>();
    for (SafetensorsHeader.Entry e : header.entries().values()) {
      m.put(e.name(), new TensorInfo(e.name(), e.dtype().name(), e.shape(), fileName));
    }
    this.infos = Collections.unmodifiableMap(m);
  }

  /**
   * Opens, validates and maps a safetensors file.
   *
   * @param path the file
   * @return the open file
   * @throws CheckpointException naming the file (and the tensor or field) when it is missing, unreadable, truncated
   *     or malformed
   */
  public static SafetensorsFile open(Path path) {
    return open(path, DEFAULT_WINDOW_BYTES, DEFAULT_SEGMENT_BYTES);
  }

  /**
   * Opens a file with chosen mapping and fill sizes (tests use tiny ones to exercise the chunked paths).
   *
   * @param path the file
   * @param windowBytes distance between source mappings (each is 8 bytes longer), a positive multiple of 8 of at
   *     most 1 GiB - 8
   * @param segmentBytes size of each destination view, a positive multiple of 8 of at most 1 GiB
   * @return the open file
   */
  static SafetensorsFile open(Path path, long windowBytes, long segmentBytes) {
    if (windowBytes <= 0 || windowBytes % 8 != 0 || windowBytes > DEFAULT_WINDOW_BYTES
        || segmentBytes <= 0 || segmentBytes % 8 != 0 || segmentBytes > DEFAULT_SEGMENT_BYTES) {
      throw new IllegalArgumentException("window and segment sizes must be positive multiples of 8, at most 1 GiB "
          + "(windows: 1 GiB - 8)");
    }
    String label = path.toString();
    if (Files.isDirectory(path)) {
      throw new CheckpointException(label + ": is a directory, not a safetensors file");
    }
    if (!Files.exists(path)) {
      throw org.magejvm.impl.llm.checkpoint.CheckpointFiles.notFound(path, label + ": file does not exist");
    }
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      Object fileKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
      long size = channel.size();
      if (size < 8) {
        throw new CheckpointException(label + ": file is " + size
            + " bytes long, shorter than the 8-byte header length that starts every safetensors file");
      }
      ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      readFully(channel, prefix, 0);
      long headerLength = prefix.getLong(0);
      if (Long.compareUnsigned(headerLength, size - 8) > 0) {
        throw new CheckpointException(label + ": header length " + Long.toUnsignedString(headerLength)
            + " is larger than the " + (size - 8) + " bytes that follow the length prefix (file size " + size + ")");
      }
      if (headerLength > SafetensorsHeader.MAX_HEADER_BYTES) {
        throw new CheckpointException(label + ": header length " + headerLength + " exceeds the limit of "
            + SafetensorsHeader.MAX_HEADER_BYTES + " bytes");
      }
      ByteBuffer headerBuffer = ByteBuffer.allocate((int) headerLength);
      readFully(channel, headerBuffer, 8);
      long dataStart = 8 + headerLength;
      SafetensorsHeader header = SafetensorsHeader.parse(headerBuffer.array(), size - dataStart, label);
      int count = (int) ((size + windowBytes - 1) / windowBytes);
      MappedByteBuffer[] windows = new MappedByteBuffer[count];
      for (int i = 0; i < count; i++) {
        long start = i * windowBytes;
        long length = Math.min(size - start, windowBytes + OVERLAP);
        windows[i] = channel.map(FileChannel.MapMode.READ_ONLY, start, length);
      }
      return new SafetensorsFile(path, size, fileKey, dataStart, header, windows, windowBytes, segmentBytes);
    } catch (java.nio.file.AccessDeniedException e) {
      throw org.magejvm.impl.llm.checkpoint.CheckpointFiles.permissionDenied(path, e);
    } catch (IOException e) {
      throw new CheckpointException(label + ": cannot read the file: " + e, e);
    }
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
    long pos = position;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, pos);
      if (n < 0) {
        throw new EOFException("the file ended at byte " + pos + " while reading");
      }
      pos += n;
    }
  }

  /** @return the file's path */
  public Path path() {
    return path;
  }

  /** @return the file's size in bytes */
  public long fileSize() {
    return fileSize;
  }

  /** @return where the data section starts: 8 plus the header length */
  public long dataStart() {
    return dataStart;
  }

  /** @return the header's {@code __metadata__} string map (empty when absent), unmodifiable */
  public Map<String, String> metadata() {
    return header.metadata();
  }

  /** @return the tensor names in header order, unmodifiable */
  @Override
  public Set<String> names() {
    return infos.keySet();
  }

  /**
   * @param name a tensor name
   * @return its header entry; {@link TensorInfo#file()} is this file's name
   * @throws CheckpointException naming the file when there is no such tensor
   */
  @Override
  public TensorInfo info(String name) {
    TensorInfo info = infos.get(name);
    if (info == null) {
      throw missing(name);
    }
    return info;
  }

  /**
   * @param name a tensor name
   * @return the tensor's byte range in the file, {@code [begin, end)} relative to the start of the file
   * @throws CheckpointException when there is no such tensor
   */
  public long[] byteRange(String name) {
    SafetensorsHeader.Entry e = entry(name);
    return new long[] {dataStart + e.begin(), dataStart + e.end()};
  }

  /**
   * Copies a tensor into a new array owned by {@code manager}, converting F32, F16 or BF16 to the target type
   * (narrowing rounds to nearest, ties to even). On a GPU manager the tensor is filled on the CPU, then moved.
   *
   * @param manager the manager that will own the array
   * @param name the tensor name
   * @param target FLOAT32 or FLOAT16
   * @return the array, with the header's shape and the tensor's name
   * @throws CheckpointException naming the file and tensor when the tensor is missing, has another dtype, or the
   *     file shrank since it was opened
   * @throws IllegalArgumentException when the target is neither FLOAT32 nor FLOAT16
   * @throws IllegalStateException when this file is closed
   */
  @Override
  public NDArray load(NDManager manager, String name, DataType target) {
    return load(manager, name, target, NonFiniteCheck.ALLOW);
  }

  /**
   * Copies a tensor as {@link #load(NDManager, String, DataType)} does and looks for NaN and infinite values in the
   * converted result during the same copy.
   *
   * @param manager the manager that will own the array
   * @param name the tensor name
   * @param target FLOAT32 or FLOAT16
   * @param check what to do with non-finite values
   * @return the array, with the header's shape and the tensor's name
   * @throws CheckpointException as {@link #load(NDManager, String, DataType)}, and, with {@link
   *     NonFiniteCheck#REFUSE}, naming the file and tensor when the tensor holds a non-finite value
   */
  @Override
  public NDArray load(NDManager manager, String name, DataType target, NonFiniteCheck check) {
    Objects.requireNonNull(check, "check");
    if (target != DataType.FLOAT32 && target != DataType.FLOAT16) {
      throw new IllegalArgumentException("target type must be FLOAT32 or FLOAT16, got " + target.name());
    }
    SafetensorsHeader.Entry entry = entry(name);
    if (!entry.dtype().isLoadable()) {
      throw new CheckpointException(label + ": tensor '" + name + "' has unsupported dtype " + entry.dtype()
          + " (only F32, F16 and BF16 tensors load, as FLOAT32 or FLOAT16)");
    }
    MappedByteBuffer[] maps = windows;
    if (maps == null) {
      throw new IllegalStateException(label + " is closed");
    }
    Device device = manager.getDevice();
    if (!Device.Type.CPU.equals(device.getDeviceType())) {
      // array memory is only reachable from Java on the CPU: fill a CPU array, then move it
      try (NDManager cpu = manager.newSubManager(Device.cpu())) {
        NDArray onCpu = load(cpu, name, target, check);
        NDArray moved = onCpu.toDevice(device, true);
        moved.attach(manager);
        moved.setName(name);
        return moved;
      }
    }
    checkUnchanged(name);
    NDArray array = manager.create(new Shape(entry.shape()), target);
    Conversions.Scan scan = check == NonFiniteCheck.ALLOW ? null : new Conversions.Scan();
    try {
      fill(maps, array, entry, target, scan);
      if (scan != null && scan.count > 0) {
        String message = NonFinite.describe(label, name, entry.shape(), entry.dtype().name(), target, scan.count,
            scan.first, Float.intBitsToFloat(scan.firstBits));
        if (check == NonFiniteCheck.REFUSE) {
          throw new CheckpointException(message + NonFinite.REFUSED);
        }
        NonFinite.LOG.warn("{}", message);
      }
    } catch (InternalError e) {
      array.close();
      // how the JVM reports a fault on a mapped page (when it can report it at once): the file shrank under us
      throw new CheckpointException(label + ": tensor '" + name
          + "' could not be read; was the file truncated or replaced while open?", e);
    } catch (RuntimeException | Error e) {
      array.close();
      throw e;
    }
    array.setName(name);
    return array;
  }

  /**
   * Reading a mapped page beyond the end of a file that shrank after open faults, and the JVM may report that only
   * later, somewhere else; a cheap size check before each load turns the usual case into a clear error instead.
   */
  private void checkUnchanged(String name) {
    BasicFileAttributes now;
    try {
      now = Files.readAttributes(path, BasicFileAttributes.class);
    } catch (IOException e) {
      return; // deleted: the mapping still holds the old contents
    }
    if (fileKey != null && !fileKey.equals(now.fileKey())) {
      return; // replaced by another file: the mapping still holds the old one
    }
    if (now.size() < fileSize) {
      throw new CheckpointException(label + ": tensor '" + name + "' could not be read: the file was truncated "
          + "from " + fileSize + " to " + now.size() + " bytes after it was opened");
    }
  }

  private void fill(MappedByteBuffer[] maps, NDArray array, SafetensorsHeader.Entry entry, DataType target,
      Conversions.Scan scan) {
    long count = entry.elementCount();
    if (count == 0) {
      return;
    }
    int targetSize = target.getNumOfBytes();
    long perSegment = segmentBytes / targetSize;
    if (count <= perSegment) {
      fillSegment(maps, array, entry, 0, count, target, scan);
      return;
    }
    try (NDArray flat = array.reshape(-1)) {
      for (long first = 0; first < count; first += perSegment) {
        long n = Math.min(perSegment, count - first);
        try (NDArray view = flat.get(new NDIndex().addSliceDim(first, first + n))) {
          fillSegment(maps, view, entry, first, n, target, scan);
        }
      }
    }
  }

  /** Writes elements {@code [first, first + n)} of the tensor into {@code dst}, which holds exactly n elements. */
  private void fillSegment(MappedByteBuffer[] maps, NDArray dst, SafetensorsHeader.Entry entry, long first, long n,
      DataType target, Conversions.Scan scan) {
    ByteBuffer memory = dst.toByteBuffer(true);
    int targetSize = target.getNumOfBytes();
    if (!memory.isDirect() || memory.capacity() != n * targetSize) {
      throw new IllegalStateException("the engine did not expose the new array's memory directly (got "
          + memory.capacity() + " bytes, direct=" + memory.isDirect() + ")");
    }
    int sourceSize = entry.dtype().byteSize();
    long position = dataStart + entry.begin() + first * sourceSize;
    long done = 0;
    while (done < n) {
      int w = (int) (position / windowBytes);
      long windowStart = w * windowBytes;
      // every element that starts inside this window ends inside its mapping, thanks to the overlap
      long startsHere = (windowStart + windowBytes - position + sourceSize - 1) / sourceSize;
      int k = (int) Math.min(n - done, startsHere);
      ByteBuffer src = maps[w].slice((int) (position - windowStart), k * sourceSize);
      ByteBuffer dstPart = memory.slice((int) (done * targetSize), k * targetSize);
      Conversions.convert(src, dstPart, k, entry.dtype(), target, scan, first + done);
      done += k;
      position += (long) k * sourceSize;
    }
  }

  private SafetensorsHeader.Entry entry(String name) {
    SafetensorsHeader.Entry e = header.entries().get(name);
    if (e == null) {
      throw missing(name);
    }
    return e;
  }

  private CheckpointException missing(String name) {
    return new CheckpointException(
        label + ": no tensor named '" + name + "' (the file holds " + infos.size() + " tensors)");
  }

  /** Drops the mappings; later loads fail, arrays already loaded stay valid. Safe to call twice. */
  @Override
  public void close() {
    windows = null;
  }

  /** @return the path and tensor count, for logs */
  @Override
  public String toString() {
    return "SafetensorsFile[" + label + ", " + infos.size() + " tensors]";
  }
}
