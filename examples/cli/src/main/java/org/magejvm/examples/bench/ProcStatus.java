package org.magejvm.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads this process's memory figures from {@code /proc/self/status} (Linux); -1 where unavailable. */
final class ProcStatus {
  private ProcStatus() {}

  /** @return the resident set size now, in MiB */
  static double rssMiB() {
    return field("VmRSS:");
  }

  /** @return the peak resident set size so far, in MiB */
  static double peakRssMiB() {
    return field("VmHWM:");
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
