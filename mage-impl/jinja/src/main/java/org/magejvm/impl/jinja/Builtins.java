package org.magejvm.impl.jinja;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** Filters, tests, global functions, and the string and dict methods templates may call. */
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

  private static final Set<String> STRING_METHODS = Set.of(
      "startswith", "endswith", "split", "rsplit", "strip", "lstrip", "rstrip", "replace", "upper", "lower",
      "title", "capitalize", "find", "rfind", "count", "join", "splitlines", "isdigit", "isalpha", "isalnum",
      "isspace", "isupper", "islower");
  private static final Set<String> DICT_METHODS = Set.of("items", "keys", "values", "get");

  /** @return the bound method {@code obj.name}, or null when {@code obj} has no such method */
  static JinjaCallable method(Object obj, String name) {
    if (obj instanceof String && STRING_METHODS.contains(name)) {
      String s = (String) obj;
      return callable("str." + name, (args, kwargs) -> stringMethod(s, name, args, kwargs));
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

  private static Object stringMethod(String s, String name, List<Object> args, Map<String, Object> kwargs) {
    String what = "str." + name + "()";
    switch (name) {
      case "startswith":
      case "endswith": {
        Args a = new Args(what, args, kwargs, "prefix", "start", "end");
        Object p = a.require(0);
        String sub = substring(s, a.get(1, null), a.get(2, null));
        List<?> options = p instanceof Tuple ? (List<?>) p : List.of(p);
        for (Object o : options) {
          if (!(o instanceof String)) {
            throw new EvalError(what + " argument must be str or a tuple of str, not " + Values.typeName(o));
          }
          if (name.equals("startswith") ? sub.startsWith((String) o) : sub.endsWith((String) o)) {
            return true;
          }
        }
        return false;
      }
      case "split":
      case "rsplit": {
        Args a = new Args(what, args, kwargs, "sep", "maxsplit");
        String sep = a.string(0, null);
        long max = a.integer(1, -1);
        return Collections.unmodifiableList(new ArrayList<>(
            name.equals("split") ? split(s, sep, max) : rsplit(s, sep, max)));
      }
      case "strip":
        return Values.strip(s, new Args(what, args, kwargs, "chars").string(0, null));
      case "lstrip":
        return Values.lstrip(s, new Args(what, args, kwargs, "chars").string(0, null));
      case "rstrip":
        return Values.rstrip(s, new Args(what, args, kwargs, "chars").string(0, null));
      case "replace": {
        Args a = new Args(what, args, kwargs, "old", "new", "count");
        return replace(s, requireString(a, 0, what), requireString(a, 1, what), a.integer(2, -1));
      }
      case "upper":
        new Args(what, args, kwargs);
        return s.toUpperCase(Locale.ROOT);
      case "lower":
        new Args(what, args, kwargs);
        return s.toLowerCase(Locale.ROOT);
      case "title":
        new Args(what, args, kwargs);
        return pyTitle(s);
      case "capitalize":
        new Args(what, args, kwargs);
        return capitalize(s);
      case "find":
      case "rfind":
      case "count": {
        Args a = new Args(what, args, kwargs, "sub", "start", "end");
        String sub = requireString(a, 0, what);
        Object start = a.get(1, null);
        String hay = substring(s, start, a.get(2, null));
        long offset = start == null ? 0 : normalisedStart(s, start);
        if (name.equals("count")) {
          return countOccurrences(hay, sub);
        }
        int idx = name.equals("find") ? hay.indexOf(sub) : hay.lastIndexOf(sub);
        return idx < 0 ? -1L : offset + hay.codePointCount(0, idx);
      }
      case "join": {
        Args a = new Args(what, args, kwargs, "iterable");
        List<Object> parts = Values.iterate(a.require(0));
        long length = (long) s.length() * Math.max(0, parts.size() - 1);
        for (int i = 0; i < parts.size(); i++) {
          if (!(parts.get(i) instanceof String)) {
            throw new EvalError("sequence item " + i + ": expected str instance, "
                + Values.typeName(parts.get(i)) + " found");
          }
          length += ((String) parts.get(i)).length();
        }
        Render.checkString(length, "join()");
        StringBuilder sb = new StringBuilder((int) length);
        for (int i = 0; i < parts.size(); i++) {
          sb.append(i > 0 ? s : "").append((String) parts.get(i));
        }
        return sb.toString();
      }
      case "splitlines": {
        Args a = new Args(what, args, kwargs, "keepends");
        return Collections.unmodifiableList(new ArrayList<>(splitlines(s, a.bool(0, false))));
      }
      default:
        new Args(what, args, kwargs);
        return classify(s, name);
    }
  }

  private static String requireString(Args a, int i, String what) {
    Object v = a.require(i);
    if (!(v instanceof String)) {
      Values.checkDefined(v);
      throw new EvalError(what + " argument " + (i + 1) + " must be str, not " + Values.typeName(v));
    }
    return (String) v;
  }

  private static long normalisedStart(String s, Object start) {
    long n = Values.length(s);
    long i = Values.toLong(start);
    if (i < 0) {
      i = Math.max(0, i + n);
    }
    return Math.min(i, n);
  }

  private static String substring(String s, Object start, Object end) {
    if (start == null && end == null) {
      return s;
    }
    return (String) Values.slice(s, start, end, null);
  }

  private static long countOccurrences(String hay, String sub) {
    if (sub.isEmpty()) {
      return hay.codePointCount(0, hay.length()) + 1L;
    }
    long c = 0;
    int i = hay.indexOf(sub);
    while (i >= 0) {
      c++;
      i = hay.indexOf(sub, i + sub.length());
    }
    return c;
  }

  private static boolean classify(String s, String name) {
    if (s.isEmpty()) {
      return false;
    }
    switch (name) {
      case "isdigit":
        return s.codePoints().allMatch(Character::isDigit);
      case "isalpha":
        return s.codePoints().allMatch(Character::isLetter);
      case "isalnum":
        return s.codePoints().allMatch(Character::isLetterOrDigit);
      case "isspace":
        return Values.isAllSpace(s);
      case "isupper":
        return s.codePoints().anyMatch(Character::isUpperCase) && s.codePoints().noneMatch(Character::isLowerCase);
      default:
        return s.codePoints().anyMatch(Character::isLowerCase) && s.codePoints().noneMatch(Character::isUpperCase);
    }
  }

  static List<String> split(String s, String sep, long maxsplit) {
    List<String> out = new ArrayList<>();
    if (sep == null) {
      int i = 0;
      int n = s.length();
      while (true) {
        while (i < n && Values.isSpace(s.codePointAt(i))) {
          i += Character.charCount(s.codePointAt(i));
        }
        if (i >= n) {
          break;
        }
        if (maxsplit >= 0 && out.size() >= maxsplit) {
          out.add(s.substring(i));
          break;
        }
        int j = i;
        while (j < n && !Values.isSpace(s.codePointAt(j))) {
          j += Character.charCount(s.codePointAt(j));
        }
        out.add(s.substring(i, j));
        i = j;
      }
      return out;
    }
    if (sep.isEmpty()) {
      throw new EvalError("empty separator");
    }
    int start = 0;
    while (maxsplit < 0 || out.size() < maxsplit) {
      int idx = s.indexOf(sep, start);
      if (idx < 0) {
        break;
      }
      out.add(s.substring(start, idx));
      start = idx + sep.length();
    }
    out.add(s.substring(start));
    return out;
  }

  static List<String> rsplit(String s, String sep, long maxsplit) {
    if (maxsplit < 0) {
      return split(s, sep, -1);
    }
    List<String> out = new ArrayList<>();
    if (sep == null) {
      int j = s.length();
      while (true) {
        while (j > 0 && Values.isSpace(s.codePointBefore(j))) {
          j -= Character.charCount(s.codePointBefore(j));
        }
        if (j <= 0) {
          break;
        }
        if (out.size() >= maxsplit) {
          out.add(s.substring(0, j));
          break;
        }
        int i = j;
        while (i > 0 && !Values.isSpace(s.codePointBefore(i))) {
          i -= Character.charCount(s.codePointBefore(i));
        }
        out.add(s.substring(i, j));
        j = i;
      }
    } else {
      if (sep.isEmpty()) {
        throw new EvalError("empty separator");
      }
      int end = s.length();
      while (out.size() < maxsplit) {
        int idx = s.lastIndexOf(sep, end - sep.length());
        if (idx < 0) {
          break;
        }
        out.add(s.substring(idx + sep.length(), end));
        end = idx;
      }
      out.add(s.substring(0, end));
    }
    Collections.reverse(out);
    return out;
  }

  private static List<String> splitlines(String s, boolean keepends) {
    List<String> out = new ArrayList<>();
    int start = 0;
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      int brk = 0;
      if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') {
        brk = 2;
      } else if (c == '\n' || c == '\r' || c == '\u000b' || c == '\f' || c == '\u001c' || c == '\u001d'
          || c == '\u001e' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
        brk = 1;
      }
      if (brk > 0) {
        out.add(s.substring(start, keepends ? i + brk : i));
        i += brk;
        start = i;
      } else {
        i++;
      }
    }
    if (start < s.length()) {
      out.add(s.substring(start));
    }
    return out;
  }

  static String replace(String s, String old, String rep, long count) {
    if (rep.length() > old.length()) {
      long n = countOccurrences(s, old);
      if (count >= 0) {
        n = Math.min(n, count);
      }
      Render.checkString(s.length() + n * (rep.length() - old.length()), "replace()");
    }
    if (count < 0) {
      return s.replace(old, rep);
    }
    StringBuilder sb = new StringBuilder();
    int start = 0;
    long done = 0;
    if (old.isEmpty()) {
      List<String> cps = Values.codePointStrings(s);
      for (int k = 0; k <= cps.size(); k++) {
        if (done < count) {
          sb.append(rep);
          done++;
        }
        if (k < cps.size()) {
          sb.append(cps.get(k));
        }
      }
      return sb.toString();
    }
    while (done < count) {
      int idx = s.indexOf(old, start);
      if (idx < 0) {
        break;
      }
      sb.append(s, start, idx).append(rep);
      start = idx + old.length();
      done++;
    }
    return sb.append(s.substring(start)).toString();
  }

  private static String capitalize(String s) {
    if (s.isEmpty()) {
      return s;
    }
    int first = s.codePointAt(0);
    return new String(Character.toChars(Character.toTitleCase(first)))
        + s.substring(Character.charCount(first)).toLowerCase(Locale.ROOT);
  }

  private static String pyTitle(String s) {
    StringBuilder sb = new StringBuilder();
    boolean prevCased = false;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      boolean cased = Character.isUpperCase(cp) || Character.isLowerCase(cp) || Character.isTitleCase(cp);
      sb.appendCodePoint(prevCased ? Character.toLowerCase(cp) : Character.toTitleCase(cp));
      prevCased = cased;
      i += Character.charCount(cp);
    }
    return sb.toString();
  }

  // ================================================================ filters

  private static final Map<String, Filter> FILTERS = new LinkedHashMap<>();
  private static final Map<String, Test> TESTS = new LinkedHashMap<>();

  static boolean hasFilter(String name) {
    return FILTERS.containsKey(name);
  }

  static boolean hasTest(String name) {
    return TESTS.containsKey(name);
  }

  static Object filter(String name, Object value, List<Object> args, Map<String, Object> kwargs) {
    return FILTERS.get(name).apply(value, args, kwargs);
  }

  static boolean test(String name, Object value, List<Object> args, Map<String, Object> kwargs) {
    return TESTS.get(name).apply(value, args, kwargs);
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
      if (!TESTS.containsKey(testName)) {
        throw new EvalError(what + ": no test named '" + testName + "'");
      }
    }
    List<Object> out = new ArrayList<>();
    for (Object item : Values.iterate(value)) {
      Object v = attr == null ? item : attribute(item, attr);
      boolean ok = testName == null ? Values.truthy(v) : test(testName, v, rest, kwargs);
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
    List<String> lines = splitlines(s + "\n", false);
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
    FILTERS.put("capitalize", (v, a, k) -> capitalize(text(v, "capitalize")));
    Filter count = (v, a, k) -> {
      new Args("filter 'length'", a, k);
      return Values.length(v);
    };
    FILTERS.put("count", count);
    FILTERS.put("length", count);
    Filter dflt = (v, a, k) -> {
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
      List<Object> items = new ArrayList<>(items((Map<?, ?>) v));
      Function<Object, Object> key = keyFunction(null, cs);
      items.sort((x, y) -> Values.compare(key.apply(((List<?>) x).get(pos)), key.apply(((List<?>) y).get(pos)),
          "<"));
      if (args.bool(2, false)) {
        Collections.reverse(items);
      }
      return Collections.unmodifiableList(items);
    });
    Filter escape = (v, a, k) -> escapeHtml(text(v, "escape"));
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
      return items((Map<?, ?>) v);
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
          out.add(filter(f, item, a.subList(1, a.size()), k));
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
      return replace(text(v, "replace"), Values.str(args.require(0)), Values.str(args.require(1)),
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
    FILTERS.put("wordcount", (v, a, k) -> (long) split(text(v, "wordcount"), null, -1).size());

    // ---------------------------------------------------------------- tests
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
    Test eq = (v, a, k) -> Values.eq(v, new Args("test 'eq'", a, k, "other").require(0));
    TESTS.put("eq", eq);
    TESTS.put("equalto", eq);
    TESTS.put("==", eq);
    Test ne = (v, a, k) -> !Values.eq(v, new Args("test 'ne'", a, k, "other").require(0));
    TESTS.put("ne", ne);
    TESTS.put("!=", ne);
    Test lt = (v, a, k) -> Values.compare(v, new Args("test 'lt'", a, k, "other").require(0), "<") < 0;
    TESTS.put("lt", lt);
    TESTS.put("lessthan", lt);
    TESTS.put("<", lt);
    Test le = (v, a, k) -> Values.compare(v, new Args("test 'le'", a, k, "other").require(0), "<=") <= 0;
    TESTS.put("le", le);
    TESTS.put("<=", le);
    Test gt = (v, a, k) -> Values.compare(v, new Args("test 'gt'", a, k, "other").require(0), ">") > 0;
    TESTS.put("gt", gt);
    TESTS.put("greaterthan", gt);
    TESTS.put(">", gt);
    Test ge = (v, a, k) -> Values.compare(v, new Args("test 'ge'", a, k, "other").require(0), ">=") >= 0;
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

  // ================================================================ global functions

  /** @return the globals every template sees */
  static Map<String, Object> globals() {
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("range", callable("range", (args, kwargs) -> {
      if (!kwargs.isEmpty() || args.isEmpty() || args.size() > 3) {
        throw new EvalError("range() takes 1 to 3 positional integer arguments");
      }
      for (Object o : args) {
        if (!Values.isInteger(o)) {
          Values.checkDefined(o);
          throw new EvalError("range() arguments must be integers, not " + Values.typeName(o));
        }
      }
      long start = args.size() == 1 ? 0 : Values.toLong(args.get(0));
      long stop = Values.toLong(args.get(args.size() == 1 ? 0 : 1));
      long step = args.size() == 3 ? Values.toLong(args.get(2)) : 1;
      if (step == 0) {
        throw new EvalError("range() arg 3 must not be zero");
      }
      // the item count, computed without overflow before anything is allocated
      java.math.BigInteger span = java.math.BigInteger.valueOf(stop).subtract(java.math.BigInteger.valueOf(start));
      java.math.BigInteger st = java.math.BigInteger.valueOf(step);
      java.math.BigInteger count = span.signum() == 0 || span.signum() != st.signum() ? java.math.BigInteger.ZERO
          : span.abs().add(st.abs()).subtract(java.math.BigInteger.ONE).divide(st.abs());
      long max = Render.limits().maxRangeItems();
      if (count.compareTo(java.math.BigInteger.valueOf(max)) > 0) {
        throw new Render.LimitError("range() of " + count + " items is more than " + max + " (as in Jinja2's "
            + "sandbox)", "maxRangeItems", max);
      }
      List<Object> out = new ArrayList<>(count.intValue());
      long i = start;
      for (int n = count.intValue(); n > 0; n--) {
        out.add(i);
        i += step;
      }
      return Collections.unmodifiableList(out);
    }));
    g.put("dict", callable("dict", (args, kwargs) -> {
      Map<Object, Object> m = new LinkedHashMap<>();
      if (args.size() > 1) {
        throw new EvalError("dict() takes at most 1 positional argument");
      }
      if (args.size() == 1) {
        if (!(args.get(0) instanceof Map)) {
          throw new EvalError("dict() positional argument must be a dict, not " + Values.typeName(args.get(0)));
        }
        m.putAll((Map<?, ?>) args.get(0));
      }
      m.putAll(kwargs);
      return Collections.unmodifiableMap(m);
    }));
    g.put("namespace", callable("namespace", (args, kwargs) -> {
      Namespace ns = new Namespace();
      if (args.size() > 1) {
        throw new EvalError("namespace() takes at most 1 positional argument");
      }
      if (args.size() == 1) {
        if (!(args.get(0) instanceof Map)) {
          throw new EvalError("namespace() positional argument must be a dict, not "
              + Values.typeName(args.get(0)));
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) args.get(0)).entrySet()) {
          ns.attrs.put(Values.str(e.getKey()), e.getValue());
        }
      }
      ns.attrs.putAll(kwargs);
      return ns;
    }));
    g.put("raise_exception", callable("raise_exception", (args, kwargs) -> {
      Args a = new Args("raise_exception()", args, kwargs, "message");
      throw new EvalError("the template raised an error: " + Values.str(a.get(0, "")));
    }));
    g.put("strftime_now", callable("strftime_now", (args, kwargs) -> {
      Args a = new Args("strftime_now()", args, kwargs, "format");
      return strftime(LocalDateTime.now(), a.string(0, "%Y-%m-%d"));
    }));
    return g;
  }

  /** Python's {@code datetime.strftime} for the common directives. */
  static String strftime(LocalDateTime t, String format) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 >= format.length()) {
        sb.append(c);
        continue;
      }
      char d = format.charAt(++i);
      switch (d) {
        case 'Y':
          sb.append(String.format("%04d", t.getYear()));
          break;
        case 'y':
          sb.append(String.format("%02d", t.getYear() % 100));
          break;
        case 'm':
          sb.append(String.format("%02d", t.getMonthValue()));
          break;
        case 'd':
          sb.append(String.format("%02d", t.getDayOfMonth()));
          break;
        case 'H':
          sb.append(String.format("%02d", t.getHour()));
          break;
        case 'I':
          sb.append(String.format("%02d", (t.getHour() + 11) % 12 + 1));
          break;
        case 'M':
          sb.append(String.format("%02d", t.getMinute()));
          break;
        case 'S':
          sb.append(String.format("%02d", t.getSecond()));
          break;
        case 'p':
          sb.append(t.getHour() < 12 ? "AM" : "PM");
          break;
        case 'j':
          sb.append(String.format("%03d", t.getDayOfYear()));
          break;
        case 'b':
          sb.append(t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
          break;
        case 'B':
          sb.append(t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
          break;
        case 'a':
          sb.append(t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
          break;
        case 'A':
          sb.append(t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
          break;
        case '%':
          sb.append('%');
          break;
        default:
          throw new EvalError("strftime_now(): unsupported directive %" + d);
      }
    }
    return sb.toString();
  }
}
