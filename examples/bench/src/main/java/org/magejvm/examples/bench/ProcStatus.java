package org.magejvm.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.magejvm.impl.train.MemoryProbe;

/** Reads this process's memory figures from {@code /proc/self/status} (Linux); -1 where unavailable. */
final class ProcStatus {
  /** The trainer's probe of the same figures, so that both read and reset them one way. */
  private static final MemoryProbe PROCESS = MemoryProbe.processRss();

  private ProcStatus() {}

  /** @return the resident set size now, in MiB */
  static double rssMiB() {
    return field("VmRSS:");
  }

  /** @return the peak resident set size so far (since the last {@link #resetPeak()}), in MiB */
  static double peakRssMiB() {
    return PROCESS.peakMiB();
  }

  /**
   * Resets the peak resident set size to the current one (writes 5 to {@code /proc/self/clear_refs}, Linux 4.0+), so
   * that {@link #peakRssMiB()} measures one phase of a program.
   *
   * @return whether the reset worked
   */
  static boolean resetPeak() {
    return PROCESS.reset();
  }

  /** @return the machine's load averages over 1, 5 and 15 minutes as printed by /proc/loadavg, or "?" */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  private static double field(String name) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(name)) {
          String[] parts = line.substring(name.length()).trim().split("\\s+");
          return Long.parseLong(parts[0]) / 1024.0;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
