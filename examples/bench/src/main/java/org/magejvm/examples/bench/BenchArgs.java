package org.magejvm.examples.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The {@code key=value} arguments of the benchmarks that take them. */
final class BenchArgs {
  private BenchArgs() {}

  /**
   * Overwrites defaults with the arguments.
   *
   * @param options the known keys with their defaults, changed in place
   * @param args {@code key=value} arguments
   * @throws IllegalArgumentException naming the argument and the known keys when a key is unknown or has no value
   */
  static void apply(Map<String, String> options, String[] args) {
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq < 0 || !options.containsKey(a.substring(0, eq))) {
        throw new IllegalArgumentException("unknown argument " + a + "; known keys: " + options.keySet());
      }
      options.put(a.substring(0, eq), a.substring(eq + 1));
    }
  }

  /**
   * An integer option.
   *
   * @param options the options
   * @param key the option's key
   * @param min its least allowed value
   * @return its value
   * @throws IllegalArgumentException naming the option when its value is not an integer or is below {@code min}
   */
  static int intOption(Map<String, String> options, String key, int min) {
    String text = options.get(key);
    int value;
    try {
      value = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + text + ": expected an integer", e);
    }
    if (value < min) {
      throw new IllegalArgumentException(key + "=" + text + ": must be at least " + min);
    }
    return value;
  }

  /**
   * The work directory a benchmark's {@code dir=} option names (created if missing), or a new temporary directory
   * when it is empty.
   *
   * @param options the options, holding {@code dir}
   * @param tempPrefix the temporary directory's name prefix
   * @return the directory
   * @throws UncheckedIOException when it cannot be created
   */
  static Path workDir(Map<String, String> options, String tempPrefix) {
    String dir = options.get("dir");
    try {
      return dir.isEmpty() ? Files.createTempDirectory(tempPrefix) : Files.createDirectories(Path.of(dir));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the work directory " + (dir.isEmpty() ? tempPrefix : dir)
          + ": " + e.getMessage(), e);
    }
  }
}
