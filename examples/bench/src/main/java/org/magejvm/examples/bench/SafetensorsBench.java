package org.magejvm.examples.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsFile;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;

/**
 * Load throughput of the safetensors reader: writes a ~256 MB F32 file and a ~128 MB BF16 file (64 tensors of
 * 1024 x 1024 each) to a temporary directory, then times loading every tensor into FLOAT32 and FLOAT16 arrays.
 *
 * <p>"cold" drops the file's pages from the OS page cache first (through {@code dd iflag=nocache}, which only touches
 * this file; reported as unavailable where that fails), so it includes reading from disk; "warm" repeats the load
 * with the file cached. For comparison it also times DJL's own {@code NDList.decode} on the F32 file (DJL cannot read
 * BF16). Throughput is file data bytes per second (MB = 10^6 bytes). A small file is loaded first so that the
 * timed runs do not include JIT compilation. The files are deleted at the end.
 *
 * <p>Arguments (all optional): {@code [directory] [warm repetitions, default 5]}. Run with
 * {@code -Dai.djl.offline=true}.
 */
public final class SafetensorsBench {

  private static final int TENSORS = 64;
  private static final int ROWS = 1024;
  private static final int COLS = 1024;

  private SafetensorsBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args optional directory and repetition count
   * @throws Exception when a file cannot be written or read
   */
  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("safetensors-bench");
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Files.createDirectories(dir);
    Path f32 = dir.resolve("bench-f32.safetensors");
    Path bf16 = dir.resolve("bench-bf16.safetensors");
    try (NDManager manager = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      System.out.printf(Locale.ROOT, "safetensors load benchmark: %d tensors of %dx%d per file, %d warm runs, "
          + "%d CPUs, java %s%n", TENSORS, ROWS, COLS, repetitions, Runtime.getRuntime().availableProcessors(),
          System.getProperty("java.version"));
      warmUp(manager, dir);
      write(f32, SafetensorsDtype.F32);
      write(bf16, SafetensorsDtype.BF16);
      for (Path file : List.of(f32, bf16)) {
        for (DataType target : List.of(DataType.FLOAT32, DataType.FLOAT16)) {
          measure(manager, file, target, repetitions);
        }
      }
      measureDjlDecode(manager, f32, repetitions);
    } finally {
      Files.deleteIfExists(f32);
      Files.deleteIfExists(bf16);
      if (args.length == 0) {
        try (Stream<Path> rest = Files.list(dir)) {
          if (rest.findAny().isEmpty()) {
            Files.delete(dir);
          }
        }
      }
    }
  }

  /** Compiles the load paths before anything is timed, with a small file of every stored type. */
  private static void warmUp(NDManager manager, Path dir) throws IOException {
    Path small = dir.resolve("bench-warmup.safetensors");
    float[] values = new float[256 * 256];
    Arrays.fill(values, 0.5f);
    SafetensorsWriter writer = new SafetensorsWriter();
    for (SafetensorsDtype dtype : List.of(SafetensorsDtype.F32, SafetensorsDtype.F16, SafetensorsDtype.BF16)) {
      for (int t = 0; t < 4; t++) {
        writer.add(dtype + "." + t, values, new long[] {256, 256}, dtype);
      }
    }
    try {
      writer.write(small);
      for (int round = 0; round < 20; round++) {
        try (SafetensorsFile st = SafetensorsFile.open(small)) {
          for (String name : st.names()) {
            for (DataType target : List.of(DataType.FLOAT32, DataType.FLOAT16)) {
              st.load(manager, name, target).close();
            }
          }
        }
      }
    } finally {
      Files.deleteIfExists(small);
    }
  }

  private static void write(Path file, SafetensorsDtype dtype) {
    SplittableRandom random = new SplittableRandom(1);
    float[][] pool = new float[4][ROWS * COLS];
    for (float[] values : pool) {
      for (int i = 0; i < values.length; i++) {
        values[i] = (float) random.nextGaussian() * 0.02f;
      }
    }
    SafetensorsWriter writer = new SafetensorsWriter();
    for (int t = 0; t < TENSORS; t++) {
      writer.add(String.format(Locale.ROOT, "layers.%02d.weight", t), pool[t % pool.length],
          new long[] {ROWS, COLS}, dtype);
    }
    long start = System.nanoTime();
    writer.write(file);
    long ns = System.nanoTime() - start;
    long bytes = file.toFile().length();
    System.out.printf(Locale.ROOT, "write %-22s %7.1f MB in %7.1f ms  (%6.0f MB/s, including fsync)%n",
        file.getFileName(), bytes / 1e6, ns / 1e6, bytes / 1e6 / (ns / 1e9));
  }

  private static void measure(NDManager manager, Path file, DataType target, int repetitions) throws Exception {
    long dataBytes;
    try (SafetensorsFile st = SafetensorsFile.open(file)) {
      dataBytes = st.fileSize() - st.dataStart();
    }
    String label = file.getFileName() + " -> " + target.name();
    boolean dropped = dropFromPageCache(file);
    long cold = loadAll(manager, file, target);
    report(label, dropped ? "cold (not cached)" : "first (cache kept)", dataBytes, cold);
    long[] warm = new long[repetitions];
    for (int i = 0; i < repetitions; i++) {
      warm[i] = loadAll(manager, file, target);
    }
    Arrays.sort(warm);
    report(label, "warm best", dataBytes, warm[0]);
    report(label, "warm median", dataBytes, warm[repetitions / 2]);
  }

  /** Opens the file, loads (and frees) every tensor, closes it; returns nanoseconds. */
  private static long loadAll(NDManager manager, Path file, DataType target) {
    long start = System.nanoTime();
    try (SafetensorsFile st = SafetensorsFile.open(file)) {
      for (String name : st.names()) {
        try (NDArray array = st.load(manager, name, target)) {
          if (array.size() != (long) ROWS * COLS) {
            throw new IllegalStateException("wrong size for " + name);
          }
        }
      }
    }
    return System.nanoTime() - start;
  }

  private static void measureDjlDecode(NDManager manager, Path file, int repetitions) throws Exception {
    long dataBytes;
    try (SafetensorsFile st = SafetensorsFile.open(file)) {
      dataBytes = st.fileSize() - st.dataStart();
    }
    String label = file.getFileName() + " DJL NDList.decode";
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < repetitions; i++) {
      long start = System.nanoTime();
      try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 20);
          NDManager sub = manager.newSubManager()) {
        NDList list = NDList.decode(sub, in);
        if (list.size() != TENSORS) {
          throw new IllegalStateException("DJL decoded " + list.size() + " tensors");
        }
      }
      times.add(System.nanoTime() - start);
    }
    times.sort(null);
    report(label, "warm best", dataBytes, times.get(0));
    report(label, "warm median", dataBytes, times.get(times.size() / 2));
  }

  private static void report(String label, String kind, long bytes, long ns) {
    System.out.printf(Locale.ROOT, "load %-38s %-19s %8.1f ms  %7.0f MB/s%n", label, kind, ns / 1e6,
        bytes / 1e6 / (ns / 1e9));
  }

  /** Asks the OS to drop this file's cached pages (Linux, GNU dd); false when that is not possible here. */
  private static boolean dropFromPageCache(Path file) throws InterruptedException {
    // pages still mapped by earlier (closed but not yet collected) mappings cannot be dropped: collect them first
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    try {
      Process p = new ProcessBuilder("dd", "if=" + file, "iflag=nocache", "count=0", "status=none")
          .redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
