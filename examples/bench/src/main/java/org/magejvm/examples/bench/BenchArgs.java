package org.magejvm.examples.bench;

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
}
