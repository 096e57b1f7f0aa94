package org.magejvm.impl.llm.model;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Records the libtorch operators the process runs (every thread, CPU time per call) into a Chrome trace file, which
 * chrome://tracing or Perfetto opens; the benchmarks use it to see where a decoding step's time goes. Profiling slows
 * every operator down, so times taken while it runs are not the program's.
 *
 * <p>One recording at a time per process: {@link #start()}, run the work, {@link #stop(Path)}.
 */
public final class OperatorProfiler {
  private static boolean running;

  private OperatorProfiler() {}

  /**
   * Starts recording.
   *
   * @throws IllegalStateException when a recording is already running
   */
  public static synchronized void start() {
    if (running) {
      throw new IllegalStateException("the operator profiler is already recording");
    }
    PyTorchNative.startProfile();
    running = true;
  }

  /**
   * Stops recording and writes what was recorded since {@link #start()}.
   *
   * @param file the Chrome trace file to write (its directory must exist)
   * @throws IllegalStateException when no recording is running
   * @throws IllegalArgumentException when the file's directory does not exist (the recording is stopped and
   *     dropped)
   * @throws UncheckedIOException when the recording cannot be dropped into a temporary file either
   */
  public static synchronized void stop(Path file) {
    Objects.requireNonNull(file, "file");
    if (!running) {
      throw new IllegalStateException("the operator profiler is not recording");
    }
    running = false;
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null && !Files.isDirectory(dir)) {
      // the profiler must stop either way; what it recorded goes to a temporary file that is deleted
      try {
        Path dropped = Files.createTempFile("mage-operator-trace", ".json");
        PyTorchNative.stopProfile(dropped.toString());
        Files.deleteIfExists(dropped);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      throw new IllegalArgumentException("cannot write the operator trace " + file + ": " + dir
          + " is not a directory");
    }
    PyTorchNative.stopProfile(file.toAbsolutePath().toString());
  }
}
