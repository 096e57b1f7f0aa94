package org.magejvm.impl.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The entry points to the built-ins: filters ({@link Filters}), tests ({@link Predicates}), global functions
 * ({@link Globals}), and the string ({@link StringMethods}) and dict methods templates may call.
 */
final class Builtins {

  private Builtins() {}

  /** A filter: the value on the left of the bar, then the call's arguments. */
  @FunctionalInterface
  interface Filter {
    Object apply(Object value, List<Object> args, Map<String, Object> kwargs);
  }

  /** A test: the value on the left of {@code is}, then the test's arguments. */
  @FunctionalInterface
  interface Test {
    boolean apply(Object value, List<Object> args, Map<String, Object> kwargs);
  }

  /** A bound method or global function. */
  @FunctionalInterface
  interface Fn {
    Object call(List<Object> args, Map<String, Object> kwargs);
  }

  static JinjaCallable callable(String name, Fn fn) {
    return new JinjaCallable() {
      @Override
      public Object call(List<Object> args, Map<String, Object> kwargs) {
        return fn.call(args, kwargs);
      }

      @Override
      public String name() {
        return name;
      }
    };
  }

  // ================================================================ methods

  private static final Set<String> DICT_METHODS = Set.of("items", "keys", "values", "get");

  /** @return the bound method {@code obj.name}, or null when {@code obj} has no such method */
  static JinjaCallable method(Object obj, String name) {
    if (obj instanceof String && StringMethods.NAMES.contains(name)) {
      String s = (String) obj;
      return callable("str." + name, (args, kwargs) -> StringMethods.call(s, name, args, kwargs));
    }
    if (obj instanceof Map && DICT_METHODS.contains(name)) {
      Map<?, ?> m = (Map<?, ?>) obj;
      return callable("dict." + name, (args, kwargs) -> dictMethod(m, name, args, kwargs));
    }
    return null;
  }

  private static Object dictMethod(Map<?, ?> m, String name, List<Object> args, Map<String, Object> kwargs) {
    String what = "dict." + name + "()";
    switch (name) {
      case "items": {
        new Args(what, args, kwargs);
        return items(m);
      }
      case "keys":
        new Args(what, args, kwargs);
        return Collections.unmodifiableList(new ArrayList<>(m.keySet()));
      case "values":
        new Args(what, args, kwargs);
        return Collections.unmodifiableList(new ArrayList<>(m.values()));
      default: {
        Args a = new Args(what, args, kwargs, "key", "default");
        Object key = a.require(0);
        return m.containsKey(key) ? m.get(key) : a.get(1, null);
      }
    }
  }

  static List<Object> items(Map<?, ?> m) {
    List<Object> out = new ArrayList<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      out.add(new Tuple(java.util.Arrays.asList(e.getKey(), e.getValue())));
    }
    return Collections.unmodifiableList(out);
  }

  // ================================================================ filters, tests, globals

  static boolean hasFilter(String name) {
    return Filters.has(name);
  }

  static boolean hasTest(String name) {
    return Predicates.has(name);
  }

  static Object filter(String name, Object value, List<Object> args, Map<String, Object> kwargs) {
    return Filters.apply(name, value, args, kwargs);
  }

  static boolean test(String name, Object value, List<Object> args, Map<String, Object> kwargs) {
    return Predicates.apply(name, value, args, kwargs);
  }

  /** @return the globals every template sees */
  static Map<String, Object> globals() {
    return Globals.create();
  }
}
