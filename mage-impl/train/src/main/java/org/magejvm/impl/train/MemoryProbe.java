package org.magejvm.impl.train;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.magejvm.api.annotation.Api;

/**
 * Measures the peak memory of one phase of a training iteration: {@link MageTrainer} calls {@link #reset()} before
 * the rollout, the scoring and the update, and {@link #peakMiB()} after each, and reports the figures as
 * {@code memory/rollout_peak_mib}, {@code memory/scoring_peak_mib} and {@code memory/update_peak_mib}.
 *
 * <p>{@link #processRss()} reads the process's resident set size from Linux's {@code /proc/self/status} ({@code
 * VmHWM}) and resets it through {@code /proc/self/clear_refs}; the figure covers the whole process (JVM heap, native
 * libtorch memory and everything else), which is what decides whether a run fits on a machine. Where the files are
 * missing or not writable the probe reports -1.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public interface MemoryProbe {

  /**
   * Starts a new phase: forget the peak so far.
   *
   * @return whether the peak was reset; when not, {@link #peakMiB()} keeps reporting the peak of everything before
   */
  boolean reset();

  /** @return the peak since the last {@link #reset()}, in MiB, or -1 when it cannot be measured */
  double peakMiB();

  /** @return a probe of the process's peak resident set size (Linux); -1 elsewhere */
  static MemoryProbe processRss() {
    return new MemoryProbe() {
      @Override
      public boolean reset() {
        try {
          Files.writeString(Path.of("/proc/self/clear_refs"), "5");
          return true;
        } catch (IOException | RuntimeException e) {
          return false; // not Linux, or not allowed: peakMiB() then reports the process's peak so far
        }
      }

      @Override
      public double peakMiB() {
        try {
          for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
              return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) / 1024.0;
            }
          }
        } catch (IOException | RuntimeException e) {
          return -1;
        }
        return -1;
      }

      @Override
      public String toString() {
        return "MemoryProbe.processRss()";
      }
    };
  }
}
