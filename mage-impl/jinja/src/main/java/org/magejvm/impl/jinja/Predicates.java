package org.magejvm.impl.jinja;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Jinja's built-in tests ({@code value is name(args)}), by name. */
final class Predicates {

  private Predicates() {}

  private static final Map<String, Builtins.Test> TESTS = new LinkedHashMap<>();

  /** @return whether a test of this name exists */
  static boolean has(String name) {
    return TESTS.containsKey(name);
  }

  /** Applies the test {@code name}, which must exist, to a value. */
  static boolean apply(String name, Object value, List<Object> args, Map<String, Object> kwargs) {
    return TESTS.get(name).apply(value, args, kwargs);
  }

  static {
    TESTS.put("defined", (v, a, k) -> !(v instanceof Undefined));
    TESTS.put("undefined", (v, a, k) -> v instanceof Undefined);
    TESTS.put("none", (v, a, k) -> v == null);
    TESTS.put("boolean", (v, a, k) -> v instanceof Boolean);
    TESTS.put("true", (v, a, k) -> Boolean.TRUE.equals(v));
    TESTS.put("false", (v, a, k) -> Boolean.FALSE.equals(v));
    TESTS.put("integer", (v, a, k) -> v instanceof Long);
    TESTS.put("float", (v, a, k) -> v instanceof Double);
    TESTS.put("number", (v, a, k) -> Values.isNumber(v));
    TESTS.put("string", (v, a, k) -> v instanceof String);
    TESTS.put("mapping", (v, a, k) -> v instanceof Map);
    TESTS.put("sequence", (v, a, k) -> v instanceof List || v instanceof String || v instanceof Map);
    TESTS.put("iterable", (v, a, k) -> v instanceof List || v instanceof String || v instanceof Map);
    TESTS.put("callable", (v, a, k) -> v instanceof JinjaCallable);
    TESTS.put("odd", (v, a, k) -> Math.floorMod(intArg(v, "odd"), 2L) == 1);
    TESTS.put("even", (v, a, k) -> Math.floorMod(intArg(v, "even"), 2L) == 0);
    TESTS.put("divisibleby", (v, a, k) -> {
      long d = new Args("test 'divisibleby'", a, k, "num").integer(0, 1);
      if (d == 0) {
        throw new EvalError("integer division or modulo by zero");
      }
      return Math.floorMod(intArg(v, "divisibleby"), d) == 0;
    });
    Builtins.Test eq = (v, a, k) -> Values.eq(v, new Args("test 'eq'", a, k, "other").require(0));
    TESTS.put("eq", eq);
    TESTS.put("equalto", eq);
    TESTS.put("==", eq);
    Builtins.Test ne = (v, a, k) -> !Values.eq(v, new Args("test 'ne'", a, k, "other").require(0));
    TESTS.put("ne", ne);
    TESTS.put("!=", ne);
    Builtins.Test lt = (v, a, k) -> Values.compare(v, new Args("test 'lt'", a, k, "other").require(0), "<") < 0;
    TESTS.put("lt", lt);
    TESTS.put("lessthan", lt);
    TESTS.put("<", lt);
    Builtins.Test le = (v, a, k) -> Values.compare(v, new Args("test 'le'", a, k, "other").require(0), "<=") <= 0;
    TESTS.put("le", le);
    TESTS.put("<=", le);
    Builtins.Test gt = (v, a, k) -> Values.compare(v, new Args("test 'gt'", a, k, "other").require(0), ">") > 0;
    TESTS.put("gt", gt);
    TESTS.put("greaterthan", gt);
    TESTS.put(">", gt);
    Builtins.Test ge = (v, a, k) -> Values.compare(v, new Args("test 'ge'", a, k, "other").require(0), ">=") >= 0;
    TESTS.put("ge", ge);
    TESTS.put(">=", ge);
    TESTS.put("in", (v, a, k) -> Values.contains(new Args("test 'in'", a, k, "seq").require(0), v));
    TESTS.put("lower", (v, a, k) -> v instanceof String && ((String) v).equals(((String) v).toLowerCase(
        Locale.ROOT)));
    TESTS.put("upper", (v, a, k) -> v instanceof String && ((String) v).equals(((String) v).toUpperCase(
        Locale.ROOT)));
    TESTS.put("sameas", (v, a, k) -> {
      Object o = new Args("test 'sameas'", a, k, "other").require(0);
      return v == o || (v instanceof Boolean || v == null) && java.util.Objects.equals(v, o);
    });
    TESTS.put("escaped", (v, a, k) -> false);
  }

  private static long intArg(Object v, String test) {
    if (!Values.isInteger(v)) {
      Values.checkDefined(v);
      throw new EvalError("test '" + test + "' needs an integer, not " + Values.typeName(v));
    }
    return Values.toLong(v);
  }
}
