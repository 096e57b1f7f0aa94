package org.magejvm.examples.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The lab's programs (benchmarks and experiments behind docs/benchmarks.md and docs/results.md) as a plugin of the
 * tool: a module of the lab lists its programs by name in one implementation, registered in {@code
 * META-INF/services/org.magejvm.examples.cli.LabPrograms}, and {@code mage bench NAME} runs the one of that name. The
 * tool does not depend on the lab (the lab depends on it); the {@code mage} launcher puts the lab's jars on the class
 * path, and the programs are method references the compiler checks, not class names in strings.
 */
public interface LabPrograms {

  /** A program's entry point. */
  @FunctionalInterface
  interface Main {
    /**
     * Runs the program.
     *
     * @param args its arguments
     * @throws Exception whatever it throws (the tool reports it as any command's error)
     */
    void main(String[] args) throws Exception;
  }

  /** @return this module's programs by name, in the order {@code mage bench --help} lists them */
  Map<String, Main> programs();

  /**
   * Every program on the class path.
   *
   * @return the programs by name, modules in class-path order
   * @throws IllegalStateException when two modules name a program alike
   */
  static Map<String, Main> discover() {
    Map<String, Main> all = new LinkedHashMap<>();
    for (LabPrograms module : ServiceLoader.load(LabPrograms.class)) {
      for (Map.Entry<String, Main> e : module.programs().entrySet()) {
        if (all.putIfAbsent(e.getKey(), e.getValue()) != null) {
          throw new IllegalStateException("two lab modules name a program '" + e.getKey() + "' (the second is "
              + module.getClass().getName() + ")");
        }
      }
    }
    return all;
  }
}
