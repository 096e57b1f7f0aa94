package org.magejvm.impl.jinja;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** Jinja's built-in filters ({@code value | name(args)}), by name. */
final class Filters {

  private Filters() {}

  private static final Map<String, Builtins.Filter> FILTERS = new LinkedHashMap<>();

  /** @return whether a filter of this name exists */
  static boolean has(String name) {
    return FILTERS.containsKey(name);
  }

  /** Applies the filter {@code name}, which must exist, to a value. */
  static Object apply(String name, Object value, List<Object> args, Map<String, Object> kwargs) {
    return FILTERS.get(name).apply(value, args, kwargs);
  }

  private static String text(Object v, String what) {
    if (v instanceof String) {
      return (String) v;
    }
    if (v instanceof Undefined) {
      return "";
    }
    return Values.str(v);
  }

  private static Object attribute(Object item, String path) {
    Object cur = item;
    for (String part : path.split("\\.")) {
      cur = part.chars().allMatch(Character::isDigit) && !part.isEmpty()
          ? Values.getItem(cur, Long.parseLong(part)) : Values.getItem(cur, part);
    }
    return cur;
  }

  private static Function<Object, Object> keyFunction(String attribute, boolean caseSensitive) {
    return v -> {
      Object k = attribute == null ? v : attribute(v, attribute);
      if (!caseSensitive && k instanceof String) {
        return ((String) k).toLowerCase(Locale.ROOT);
      }
      return k;
    };
  }

  private static Comparator<Object> comparator(Function<Object, Object> key) {
    return (a, b) -> Values.compare(key.apply(a), key.apply(b), "<");
  }

  private static Object minMax(Object value, List<Object> args, Map<String, Object> kwargs, boolean max) {
    Args a = new Args("filter '" + (max ? "max" : "min") + "'", args, kwargs, "case_sensitive", "attribute");
    List<Object> items = Values.iterate(value);
    if (items.isEmpty()) {
      return new Undefined("no " + (max ? "max" : "min") + " item, sequence was empty");
    }
    Comparator<Object> cmp = comparator(keyFunction(a.string(1, null), a.bool(0, false)));
    return max ? Collections.max(items, cmp) : Collections.min(items, cmp);
  }

  private static List<Object> selectOrReject(Object value, List<Object> args, Map<String, Object> kwargs,
      boolean select, boolean byAttr) {
    String what = "filter '" + (select ? "select" : "reject") + (byAttr ? "attr'" : "'");
    List<Object> rest = new ArrayList<>(args);
    String attr = null;
    if (byAttr) {
      if (rest.isEmpty() || !(rest.get(0) instanceof String)) {
        throw new EvalError(what + " needs an attribute name");
      }
      attr = (String) rest.remove(0);
    }
    String testName = null;
    if (!rest.isEmpty()) {
      if (!(rest.get(0) instanceof String)) {
        throw new EvalError(what + " needs a test name");
      }
      testName = (String) rest.remove(0);
      if (!Predicates.has(testName)) {
        throw new EvalError(what + ": no test named '" + testName + "'");
      }
    }
    List<Object> out = new ArrayList<>();
    for (Object item : Values.iterate(value)) {
      Object v = attr == null ? item : attribute(item, attr);
      boolean ok = testName == null ? Values.truthy(v) : Predicates.apply(testName, v, rest, kwargs);
      if (ok == select) {
        out.add(item);
      }
    }
    return Collections.unmodifiableList(out);
  }

  private static Object toInt(Object value, Object dflt, long base) {
    if (value instanceof Long) {
      return value;
    } else if (value instanceof Boolean) {
      return Values.toLong(value);
    } else if (value instanceof Double) {
      double d = (Double) value;
      return Double.isFinite(d) ? (long) d : dflt;
    } else if (value instanceof String) {
      String s = Values.strip((String) value, null).replace("_", "");
      try {
        return Long.parseLong(s, (int) base);
      } catch (NumberFormatException ex) {
        try {
          return (long) Double.parseDouble(s);
        } catch (NumberFormatException ex2) {
          return dflt;
        }
      }
    }
    return dflt;
  }

  private static Object toFloat(Object value, Object dflt) {
    if (Values.isNumber(value)) {
      return Values.toDouble(value);
    } else if (value instanceof String) {
      try {
        return Double.parseDouble(Values.strip((String) value, null));
      } catch (NumberFormatException ex) {
        return dflt;
      }
    }
    return dflt;
  }

  private static String escapeHtml(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&#34;")
        .replace("'", "&#39;");
  }

  /** Jinja's {@code indent} filter, including its handling of the last line. */
  private static String indent(String s, String pad, boolean first, boolean blank) {
    List<String> lines = StringMethods.splitlines(s + "\n", false);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (i > 0) {
        sb.append('\n').append(blank || !line.isEmpty() ? pad : "");
      }
      sb.append(line);
    }
    return (first ? pad : "") + sb;
  }

  static {
    FILTERS.put("abs", (v, a, k) -> {
      new Args("filter 'abs'", a, k);
      if (Values.isInteger(v)) {
        return Math.abs(Values.toLong(v));
      } else if (v instanceof Double) {
        return Math.abs((Double) v);
      }
      Values.checkDefined(v);
      throw new EvalError("bad operand type for abs(): '" + Values.typeName(v) + "'");
    });
    FILTERS.put("attr", (v, a, k) -> Values.getAttr(v, new Args("filter 'attr'", a, k, "name").string(0, "")));
    FILTERS.put("capitalize", (v, a, k) -> StringMethods.capitalize(text(v, "capitalize")));
    Builtins.Filter count = (v, a, k) -> {
      new Args("filter 'length'", a, k);
      return Values.length(v);
    };
    FILTERS.put("count", count);
    FILTERS.put("length", count);
    Builtins.Filter dflt = (v, a, k) -> {
      Args args = new Args("filter 'default'", a, k, "default_value", "boolean");
      Object d = args.get(0, "");
      boolean bool = args.bool(1, false);
      if (v instanceof Undefined || (bool && !Values.truthy(v))) {
        return d;
      }
      return v;
    };
    FILTERS.put("default", dflt);
    FILTERS.put("d", dflt);
    FILTERS.put("dictsort", (v, a, k) -> {
      Args args = new Args("filter 'dictsort'", a, k, "case_sensitive", "by", "reverse");
      if (!(v instanceof Map)) {
        Values.checkDefined(v);
        throw new EvalError("filter 'dictsort' needs a dict, not " + Values.typeName(v));
      }
      boolean cs = args.bool(0, false);
      String by = args.string(1, "key");
      int pos = by.equals("value") ? 1 : 0;
      if (!by.equals("key") && !by.equals("value")) {
        throw new EvalError("filter 'dictsort': 'by' must be 'key' or 'value', not '" + by + "'");
      }
      List<Object> items = new ArrayList<>(Builtins.items((Map<?, ?>) v));
      Function<Object, Object> key = keyFunction(null, cs);
      items.sort((x, y) -> Values.compare(key.apply(((List<?>) x).get(pos)), key.apply(((List<?>) y).get(pos)),
          "<"));
      if (args.bool(2, false)) {
        Collections.reverse(items);
      }
      return Collections.unmodifiableList(items);
    });
    Builtins.Filter escape = (v, a, k) -> escapeHtml(text(v, "escape"));
    FILTERS.put("escape", escape);
    FILTERS.put("e", escape);
    FILTERS.put("first", (v, a, k) -> {
      List<Object> items = Values.iterate(v);
      return items.isEmpty() ? new Undefined("no first item, sequence was empty") : items.get(0);
    });
    FILTERS.put("float", (v, a, k) -> toFloat(v, new Args("filter 'float'", a, k, "default").get(0, 0.0)));
    FILTERS.put("indent", (v, a, k) -> {
      Args args = new Args("filter 'indent'", a, k, "width", "first", "blank");
      Object w = args.get(0, 4L);
      String pad;
      if (w instanceof String) {
        pad = (String) w;
      } else {
        long width = Math.max(0, Values.toLong(w));
        Render.checkString(width, "indent width");
        pad = " ".repeat((int) width);
      }
      String input = text(v, "indent");
      Render.checkString(input.length() + (long) pad.length() * (input.length() + 1), "indent");
      return indent(input, pad, args.bool(1, false), args.bool(2, false));
    });
    FILTERS.put("int", (v, a, k) -> {
      Args args = new Args("filter 'int'", a, k, "default", "base");
      return toInt(v, args.get(0, 0L), args.integer(1, 10));
    });
    FILTERS.put("items", (v, a, k) -> {
      if (v instanceof Undefined) {
        return List.of();
      }
      if (!(v instanceof Map)) {
        throw new EvalError("filter 'items' needs a dict, not " + Values.typeName(v));
      }
      return Builtins.items((Map<?, ?>) v);
    });
    FILTERS.put("join", (v, a, k) -> {
      Args args = new Args("filter 'join'", a, k, "d", "attribute");
      String sep = args.string(0, "");
      String attr = args.string(1, null);
      List<Object> items = Values.iterate(v);
      List<String> parts = new ArrayList<>(items.size());
      long length = (long) sep.length() * Math.max(0, items.size() - 1);
      for (int i = 0; i < items.size(); i++) {
        Object item = attr == null ? items.get(i) : attribute(items.get(i), attr);
        String part = Values.str(item);
        parts.add(part);
        length += part.length();
        Render.checkString(length, "filter 'join'");
      }
      StringBuilder sb = new StringBuilder((int) length);
      for (int i = 0; i < parts.size(); i++) {
        sb.append(i > 0 ? sep : "").append(parts.get(i));
      }
      return sb.toString();
    });
    FILTERS.put("last", (v, a, k) -> {
      List<Object> items = Values.iterate(v);
      return items.isEmpty() ? new Undefined("no last item, sequence was empty") : items.get(items.size() - 1);
    });
    FILTERS.put("list", (v, a, k) -> Collections.unmodifiableList(new ArrayList<>(Values.iterate(v))));
    FILTERS.put("lower", (v, a, k) -> text(v, "lower").toLowerCase(Locale.ROOT));
    FILTERS.put("map", (v, a, k) -> {
      List<Object> out = new ArrayList<>();
      if (k.containsKey("attribute")) {
        Args args = new Args("filter 'map'", a, k, "attribute", "default");
        String attr = args.string(0, null);
        Object d = args.get(1, null);
        for (Object item : Values.iterate(v)) {
          Object r = attribute(item, attr);
          out.add(r instanceof Undefined && args.has(1) ? d : r);
        }
      } else {
        if (a.isEmpty() || !(a.get(0) instanceof String)) {
          throw new EvalError("filter 'map' needs a filter name or attribute=...");
        }
        String f = (String) a.get(0);
        if (!FILTERS.containsKey(f)) {
          throw new EvalError("filter 'map': no filter named '" + f + "'");
        }
        for (Object item : Values.iterate(v)) {
          out.add(apply(f, item, a.subList(1, a.size()), k));
        }
      }
      return Collections.unmodifiableList(out);
    });
    FILTERS.put("max", (v, a, k) -> minMax(v, a, k, true));
    FILTERS.put("min", (v, a, k) -> minMax(v, a, k, false));
    FILTERS.put("reject", (v, a, k) -> selectOrReject(v, a, k, false, false));
    FILTERS.put("rejectattr", (v, a, k) -> selectOrReject(v, a, k, false, true));
    FILTERS.put("replace", (v, a, k) -> {
      Args args = new Args("filter 'replace'", a, k, "old", "new", "count");
      Object c = args.get(2, null);
      return StringMethods.replace(text(v, "replace"), Values.str(args.require(0)), Values.str(args.require(1)),
          c == null ? -1 : Values.toLong(c));
    });
    FILTERS.put("reverse", (v, a, k) -> {
      if (v instanceof String) {
        return Values.slice(v, null, null, -1L);
      }
      List<Object> items = new ArrayList<>(Values.iterate(v));
      Collections.reverse(items);
      return Collections.unmodifiableList(items);
    });
    FILTERS.put("round", (v, a, k) -> {
      Args args = new Args("filter 'round'", a, k, "precision", "method");
      long precision = args.integer(0, 0);
      String method = args.string(1, "common");
      if (!Values.isNumber(v)) {
        Values.checkDefined(v);
        throw new EvalError("filter 'round' needs a number, not " + Values.typeName(v));
      }
      RoundingMode mode;
      switch (method) {
        case "common":
          mode = RoundingMode.HALF_EVEN;
          break;
        case "ceil":
          mode = RoundingMode.CEILING;
          break;
        case "floor":
          mode = RoundingMode.FLOOR;
          break;
        default:
          throw new EvalError("filter 'round': method must be 'common', 'ceil' or 'floor', not '" + method + "'");
      }
      return new BigDecimal(Values.toDouble(v)).setScale((int) precision, mode).doubleValue();
    });
    FILTERS.put("safe", (v, a, k) -> v);
    FILTERS.put("select", (v, a, k) -> selectOrReject(v, a, k, true, false));
    FILTERS.put("selectattr", (v, a, k) -> selectOrReject(v, a, k, true, true));
    FILTERS.put("sort", (v, a, k) -> {
      Args args = new Args("filter 'sort'", a, k, "reverse", "case_sensitive", "attribute");
      List<Object> items = new ArrayList<>(Values.iterate(v));
      items.sort(comparator(keyFunction(args.string(2, null), args.bool(1, false))));
      if (args.bool(0, false)) {
        Collections.reverse(items);
      }
      return Collections.unmodifiableList(items);
    });
    FILTERS.put("string", (v, a, k) -> Values.str(v));
    FILTERS.put("sum", (v, a, k) -> {
      Args args = new Args("filter 'sum'", a, k, "attribute", "start");
      String attr = args.string(0, null);
      Object total = args.get(1, 0L);
      for (Object item : Values.iterate(v)) {
        total = Values.add(total, attr == null ? item : attribute(item, attr));
      }
      return total;
    });
    FILTERS.put("title", (v, a, k) -> {
      StringBuilder sb = new StringBuilder();
      boolean start = true;
      String s = text(v, "title");
      for (int i = 0; i < s.length(); ) {
        int cp = s.codePointAt(i);
        boolean sepChar = Values.isSpace(cp) || "-({[<".indexOf(cp) >= 0;
        sb.appendCodePoint(sepChar ? cp : start ? Character.toUpperCase(cp) : Character.toLowerCase(cp));
        start = sepChar;
        i += Character.charCount(cp);
      }
      return sb.toString();
    });
    FILTERS.put("tojson", (v, a, k) -> {
      Args args = new Args("filter 'tojson'", a, k, "ensure_ascii", "indent", "separators", "sort_keys");
      return PyJson.dumps(v, args.bool(0, false), args.get(1, null), args.get(2, null), args.bool(3, false));
    });
    FILTERS.put("trim", (v, a, k) -> Values.strip(text(v, "trim"),
        new Args("filter 'trim'", a, k, "chars").string(0, null)));
    FILTERS.put("unique", (v, a, k) -> {
      Args args = new Args("filter 'unique'", a, k, "case_sensitive", "attribute");
      Function<Object, Object> key = keyFunction(args.string(1, null), args.bool(0, false));
      List<Object> out = new ArrayList<>();
      List<Object> seen = new ArrayList<>();
      for (Object item : Values.iterate(v)) {
        Object kv = key.apply(item);
        if (seen.stream().noneMatch(s -> Values.eq(s, kv))) {
          seen.add(kv);
          out.add(item);
        }
      }
      return Collections.unmodifiableList(out);
    });
    FILTERS.put("upper", (v, a, k) -> text(v, "upper").toUpperCase(Locale.ROOT));
    FILTERS.put("wordcount", (v, a, k) -> (long) StringMethods.split(text(v, "wordcount"), null, -1).size());
  }
}
