package org.magejvm.examples.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
   * An option naming a constant of an enum, case-insensitively.
   *
   * @param options the options
   * @param key the option's key
   * @param type the enum
   * @param <E> the enum type
   * @return the constant
   * @throws IllegalArgumentException naming the option and the choices when the value names none
   */
  static <E extends Enum<E>> E enumOption(Map<String, String> options, String key, Class<E> type) {
    String text = options.get(key);
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(text.trim())) {
        return e;
      }
    }
    throw new IllegalArgumentException(key + "=" + text + ": expected one of " + java.util.Arrays.stream(
        type.getEnumConstants()).map(e -> e.name().toLowerCase(java.util.Locale.ROOT))
        .collect(java.util.stream.Collectors.joining(", ")));
  }

  /**
   * A comma-separated list of integers, such as {@code batches=1,8,64}.
   *
   * @param options the options
   * @param key the option's key
   * @param min the least allowed value of each item
   * @return the items in order (empty for an empty value)
   * @throws IllegalArgumentException naming the option and the item that is not an integer or is below {@code min}
   */
  static List<Integer> intList(Map<String, String> options, String key, int min) {
    List<Integer> out = new ArrayList<>();
    String text = options.get(key).trim();
    for (String item : text.isEmpty() ? new String[0] : text.split(",")) {
      out.add(integer(key, text, item, min));
    }
    return out;
  }

  /**
   * A comma-separated list of pairs of integers, such as {@code nocache10m=1:256,8:32}.
   *
   * @param options the options
   * @param key the option's key
   * @param min the least allowed value of either number
   * @return the pairs in order (empty for an empty value)
   * @throws IllegalArgumentException naming the option and the item that is not two integers joined by a colon
   */
  static List<int[]> pairList(Map<String, String> options, String key, int min) {
    List<int[]> out = new ArrayList<>();
    String text = options.get(key).trim();
    for (String item : text.isEmpty() ? new String[0] : text.split(",")) {
      String[] parts = item.split(":", -1);
      if (parts.length != 2) {
        throw new IllegalArgumentException(key + "=" + text + ": " + item.trim() + " is not two integers joined by"
            + " a colon");
      }
      out.add(new int[] {integer(key, text, parts[0], min), integer(key, text, parts[1], min)});
    }
    return out;
  }

  private static int integer(String key, String text, String item, int min) {
    int value;
    try {
      value = Integer.parseInt(item.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + text + ": " + item.trim() + " is not an integer", e);
    }
    if (value < min) {
      throw new IllegalArgumentException(key + "=" + text + ": " + item.trim() + " is below " + min);
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
