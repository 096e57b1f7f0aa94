package org.magejvm.examples.cli;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Finds and runs the programs of {@code mage-bench} and {@code mage-research} by class name. The tool does not depend
 * on those modules (they depend on it, and research code is no part of the product); the {@code mage} launcher puts
 * their jars on the class path, and a tool without them says how to get them.
 */
final class ClassPathPrograms {
  private ClassPathPrograms() {}

  /**
   * @param className a fully qualified class name of {@code mage-bench} or {@code mage-research}
   * @return the class
   * @throws IllegalStateException naming the jars when the class is not on the class path
   */
  static Class<?> load(String className) {
    try {
      return Class.forName(className);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(className + " is not on the class path: the benchmark and research programs"
          + " live in examples/bench/target/mage-bench.jar and examples/research/target/mage-research.jar, which the"
          + " `mage` launcher adds when they are built (mvn -B -q package -DskipTests)", e);
    }
  }

  /**
   * Calls a method, rethrowing what it threw.
   *
   * @param method the method
   * @param target the object, or null for a static method
   * @param args its arguments
   * @return what it returned
   * @throws Exception what the method threw
   */
  static Object invoke(Method method, Object target, Object... args) throws Exception {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw unwrap(e);
    }
  }

  /**
   * Calls a constructor, rethrowing what it threw.
   *
   * @param constructor the constructor
   * @param args its arguments
   * @return the new object
   * @throws Exception what the constructor threw
   */
  static Object construct(Constructor<?> constructor, Object... args) throws Exception {
    try {
      return constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      throw unwrap(e);
    }
  }

  private static Exception unwrap(InvocationTargetException e) {
    Throwable cause = e.getCause();
    if (cause instanceof Exception exception) {
      return exception;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return e;
  }
}
