package org.magejvm.impl.jinja;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Python semantics for template values.
 *
 * <p>Representation: Python {@code None} is Java {@code null}; {@code bool} is {@link Boolean}; {@code int} is
 * {@link Long}; {@code float} is {@link Double}; {@code str} is {@link String} (indexed and measured in code
 * points, like Python); {@code list} is {@link List}; {@code tuple} is {@link Tuple}; {@code dict} is {@link Map};
 * plus {@link Namespace}, {@link LoopInfo}, {@link JinjaCallable} and {@link Undefined}.
 */
final class Values {

  private Values() {}

  // ---------------------------------------------------------------- whitespace (Python str.isspace)

  static boolean isSpace(int cp) {
    return Character.isWhitespace(cp) || Character.isSpaceChar(cp) || cp == 0x85;
  }

  static boolean isAllSpace(String s) {
    return s.codePoints().allMatch(Values::isSpace);
  }

  private static boolean stripped(int cp, String chars) {
    return chars == null ? isSpace(cp) : chars.indexOf(cp) >= 0;
  }

  static String lstrip(String s, String chars) {
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      if (!stripped(cp, chars)) {
        break;
      }
      i += Character.charCount(cp);
    }
    return s.substring(i);
  }

  static String rstrip(String s, String chars) {
    int j = s.length();
    while (j > 0) {
      int cp = s.codePointBefore(j);
      if (!stripped(cp, chars)) {
        break;
      }
      j -= Character.charCount(cp);
    }
    return s.substring(0, j);
  }

  static String strip(String s, String chars) {
    return lstrip(rstrip(s, chars), chars);
  }

  // ---------------------------------------------------------------- types

  static String typeName(Object v) {
    if (v == null) {
      return "NoneType";
    } else if (v instanceof Boolean) {
      return "bool";
    } else if (v instanceof Long) {
      return "int";
    } else if (v instanceof Double) {
      return "float";
    } else if (v instanceof String) {
      return "str";
    } else if (v instanceof Tuple) {
      return "tuple";
    } else if (v instanceof List) {
      return "list";
    } else if (v instanceof Map) {
      return "dict";
    } else if (v instanceof Namespace) {
      return "Namespace";
    } else if (v instanceof LoopInfo) {
      return "LoopContext";
    } else if (v instanceof JinjaCallable) {
      return "function";
    } else if (v instanceof Undefined) {
      return "Undefined";
    }
    return v.getClass().getSimpleName();
  }

  static boolean isNumber(Object v) {
    return v instanceof Long || v instanceof Double || v instanceof Boolean;
  }

  static boolean isInteger(Object v) {
    return v instanceof Long || v instanceof Boolean;
  }

  static long toLong(Object v) {
    if (v instanceof Boolean) {
      return ((Boolean) v) ? 1 : 0;
    }
    return (Long) v;
  }

  static double toDouble(Object v) {
    if (v instanceof Double) {
      return (Double) v;
    }
    return toLong(v);
  }

  static Object checkDefined(Object v) {
    if (v instanceof Undefined) {
      throw ((Undefined) v).fail();
    }
    return v;
  }

  // ---------------------------------------------------------------- truth, str, repr

  static boolean truthy(Object v) {
    if (v == null || v instanceof Undefined) {
      return false;
    } else if (v instanceof Boolean) {
      return (Boolean) v;
    } else if (v instanceof Long) {
      return (Long) v != 0;
    } else if (v instanceof Double) {
      return (Double) v != 0.0;
    } else if (v instanceof String) {
      return !((String) v).isEmpty();
    } else if (v instanceof Collection) {
      return !((Collection<?>) v).isEmpty();
    } else if (v instanceof Map) {
      return !((Map<?, ?>) v).isEmpty();
    }
    return true;
  }

  /** Python {@code str(v)}; undefined prints as the empty string. */
  static String str(Object v) {
    if (v instanceof String) {
      return (String) v;
    } else if (v instanceof Undefined) {
      return "";
    }
    return repr(v);
  }

  /** Python {@code repr(v)}. */
  static String repr(Object v) {
    if (v == null) {
      return "None";
    } else if (v instanceof Boolean) {
      return (Boolean) v ? "True" : "False";
    } else if (v instanceof Long) {
      return v.toString();
    } else if (v instanceof Double) {
      return floatRepr((Double) v);
    } else if (v instanceof String) {
      return stringRepr((String) v);
    } else if (v instanceof Tuple) {
      List<?> t = (List<?>) v;
      StringBuilder sb = new StringBuilder("(");
      for (int i = 0; i < t.size(); i++) {
        sb.append(i > 0 ? ", " : "").append(repr(t.get(i)));
      }
      return sb.append(t.size() == 1 ? ",)" : ")").toString();
    } else if (v instanceof List) {
      List<?> l = (List<?>) v;
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < l.size(); i++) {
        sb.append(i > 0 ? ", " : "").append(repr(l.get(i)));
      }
      return sb.append(']').toString();
    } else if (v instanceof Map) {
      return mapRepr((Map<?, ?>) v);
    } else if (v instanceof Namespace) {
      return "<Namespace " + mapRepr(((Namespace) v).attrs) + ">";
    } else if (v instanceof Undefined) {
      return "Undefined";
    } else if (v instanceof JinjaCallable) {
      return "<function " + ((JinjaCallable) v).name() + ">";
    } else if (v instanceof LoopInfo) {
      return "<LoopContext>";
    }
    return String.valueOf(v);
  }

  private static String mapRepr(Map<?, ?> m) {
    StringBuilder sb = new StringBuilder("{");
    boolean first = true;
    for (Map.Entry<?, ?> e : m.entrySet()) {
      sb.append(first ? "" : ", ").append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
      first = false;
    }
    return sb.append('}').toString();
  }

  static String stringRepr(String s) {
    char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    StringBuilder sb = new StringBuilder().append(quote);
    s.codePoints().forEach(cp -> {
      if (cp == quote || cp == '\\') {
        sb.append('\\').appendCodePoint(cp);
      } else if (cp == '\n') {
        sb.append("\\n");
      } else if (cp == '\r') {
        sb.append("\\r");
      } else if (cp == '\t') {
        sb.append("\\t");
      } else if (!printable(cp)) {
        if (cp < 0x100) {
          sb.append(String.format("\\x%02x", cp));
        } else if (cp < 0x10000) {
          sb.append(String.format("\\u%04x", cp));
        } else {
          sb.append(String.format("\\U%08x", cp));
        }
      } else {
        sb.appendCodePoint(cp);
      }
    });
    return sb.append(quote).toString();
  }

  private static boolean printable(int cp) {
    if (cp == ' ') {
      return true;
    }
    switch (Character.getType(cp)) {
      case Character.CONTROL:
      case Character.FORMAT:
      case Character.SURROGATE:
      case Character.PRIVATE_USE:
      case Character.UNASSIGNED:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
      case Character.SPACE_SEPARATOR:
        return false;
      default:
        return true;
    }
  }

  /** Python's {@code repr(float)}: shortest round-trip digits, exponent form outside [1e-4, 1e16). */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    } else if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    } else if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal bd = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
    String digits = bd.unscaledValue().toString();
    int decpt = digits.length() - bd.scale();
    StringBuilder sb = new StringBuilder(d < 0 ? "-" : "");
    if (decpt > 16 || decpt < -3) {
      sb.append(digits.charAt(0));
      if (digits.length() > 1) {
        sb.append('.').append(digits, 1, digits.length());
      }
      int exp = decpt - 1;
      sb.append('e').append(exp < 0 ? '-' : '+');
      String e = Integer.toString(Math.abs(exp));
      sb.append(e.length() < 2 ? "0" + e : e);
    } else if (decpt <= 0) {
      sb.append("0.").append("0".repeat(-decpt)).append(digits);
    } else if (decpt >= digits.length()) {
      sb.append(digits).append("0".repeat(decpt - digits.length())).append(".0");
    } else {
      sb.append(digits, 0, decpt).append('.').append(digits, decpt, digits.length());
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------- equality and ordering

  static boolean eq(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof Undefined || b instanceof Undefined) {
      return a instanceof Undefined && b instanceof Undefined;
    }
    if (isNumber(a) && isNumber(b)) {
      if (isInteger(a) && isInteger(b)) {
        return toLong(a) == toLong(b);
      }
      return toDouble(a) == toDouble(b);
    }
    if (a instanceof String || b instanceof String) {
      return a.equals(b);
    }
    if (a instanceof List && b instanceof List) {
      if ((a instanceof Tuple) != (b instanceof Tuple)) {
        return false;
      }
      List<?> x = (List<?>) a;
      List<?> y = (List<?>) b;
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!eq(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Map && b instanceof Map) {
      Map<?, ?> x = (Map<?, ?>) a;
      Map<?, ?> y = (Map<?, ?>) b;
      if (x.size() != y.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : x.entrySet()) {
        if (!y.containsKey(e.getKey()) || !eq(e.getValue(), y.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  /** Python ordering for {@code <, <=, >, >=}; fails for unorderable pairs. */
  static int compare(Object a, Object b, String op) {
    if (isNumber(a) && isNumber(b)) {
      if (isInteger(a) && isInteger(b)) {
        return Long.compare(toLong(a), toLong(b));
      }
      return Double.compare(toDouble(a), toDouble(b));
    }
    if (a instanceof String && b instanceof String) {
      return compareCodePoints((String) a, (String) b);
    }
    if (a instanceof List && b instanceof List && (a instanceof Tuple) == (b instanceof Tuple)) {
      List<?> x = (List<?>) a;
      List<?> y = (List<?>) b;
      for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
        if (!eq(x.get(i), y.get(i))) {
          return compare(x.get(i), y.get(i), op);
        }
      }
      return Integer.compare(x.size(), y.size());
    }
    checkDefined(a);
    checkDefined(b);
    throw new EvalError("'" + op + "' not supported between instances of '" + typeName(a) + "' and '"
        + typeName(b) + "'");
  }

  static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i);
      int y = b.codePointAt(j);
      if (x != y) {
        return Integer.compare(x, y);
      }
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  // ---------------------------------------------------------------- containers

  static long length(Object v) {
    if (v instanceof String) {
      String s = (String) v;
      return s.codePointCount(0, s.length());
    } else if (v instanceof Collection) {
      return ((Collection<?>) v).size();
    } else if (v instanceof Map) {
      return ((Map<?, ?>) v).size();
    } else if (v instanceof Undefined) {
      return 0;
    }
    throw new EvalError("object of type '" + typeName(v) + "' has no len()");
  }

  /** The items a {@code for} loop or a filter walks over. */
  static List<Object> iterate(Object v) {
    if (v instanceof Undefined) {
      return List.of();
    } else if (v instanceof List) {
      @SuppressWarnings("unchecked")
      List<Object> l = (List<Object>) v;
      return l;
    } else if (v instanceof Map) {
      return new ArrayList<>(((Map<?, ?>) v).keySet());
    } else if (v instanceof String) {
      Render.checkList(((String) v).length(), "iterating over a string");
      return new ArrayList<>(codePointStrings((String) v));
    } else if (v instanceof Collection) {
      return new ArrayList<>((Collection<?>) v);
    }
    throw new EvalError("'" + typeName(v) + "' object is not iterable");
  }

  static List<String> codePointStrings(String s) {
    List<String> out = new ArrayList<>(s.length());
    s.codePoints().forEach(cp -> out.add(new String(Character.toChars(cp))));
    return out;
  }

  static boolean contains(Object container, Object item) {
    if (container instanceof String) {
      if (!(item instanceof String)) {
        checkDefined(item);
        throw new EvalError("'in <string>' requires string as left operand, not " + typeName(item));
      }
      return ((String) container).contains((String) item);
    } else if (container instanceof Map) {
      return ((Map<?, ?>) container).containsKey(item);
    } else if (container instanceof Undefined) {
      return false;
    }
    for (Object o : iterate(container)) {
      if (eq(o, item)) {
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- attribute and item access

  /** Jinja's {@code obj.name}: a method or attribute first, then an item; undefined when neither exists. */
  static Object getAttr(Object obj, String name) {
    checkDefined(obj);
    Object method = Builtins.method(obj, name);
    if (method != null) {
      return method;
    }
    if (obj instanceof Map) {
      Map<?, ?> m = (Map<?, ?>) obj;
      if (m.containsKey(name)) {
        return m.get(name);
      }
    } else if (obj instanceof Namespace) {
      Namespace ns = (Namespace) obj;
      if (ns.attrs.containsKey(name)) {
        return ns.attrs.get(name);
      }
    } else if (obj instanceof LoopInfo) {
      return ((LoopInfo) obj).attr(name);
    }
    return Undefined.noAttribute(obj, name);
  }

  /** Jinja's {@code obj[key]}: an item first, then (for string keys) an attribute; undefined when neither exists. */
  static Object getItem(Object obj, Object key) {
    checkDefined(obj);
    if (obj instanceof Map) {
      Map<?, ?> m = (Map<?, ?>) obj;
      Object k = key instanceof Boolean || key instanceof Double ? normaliseKey(m, key) : key;
      if (m.containsKey(k)) {
        return m.get(k);
      }
    } else if ((obj instanceof List || obj instanceof String) && isInteger(key)) {
      boolean isString = obj instanceof String;
      List<?> l = isString ? codePointStrings((String) obj) : (List<?>) obj;
      long i = toLong(key);
      if (i < 0) {
        i += l.size();
      }
      if (i >= 0 && i < l.size()) {
        return l.get((int) i);
      }
      return new Undefined("'" + typeName(obj) + " object' has no element " + toLong(key));
    }
    if (key instanceof String) {
      return getAttr(obj, (String) key);
    }
    return Undefined.noAttribute(obj, key);
  }

  private static Object normaliseKey(Map<?, ?> m, Object key) {
    for (Object k : m.keySet()) {
      if (eq(k, key)) {
        return k;
      }
    }
    return key;
  }

  /** Python slicing {@code obj[start:stop:step]} of a list, tuple or string; undefined for other values. */
  static Object slice(Object obj, Object start, Object stop, Object step) {
    checkDefined(obj);
    long st = step == null ? 1 : sliceIndex(step, "step");
    if (st == 0) {
      throw new EvalError("slice step cannot be zero");
    }
    List<?> items;
    if (obj instanceof String) {
      items = codePointStrings((String) obj);
    } else if (obj instanceof List) {
      items = (List<?>) obj;
    } else {
      return Undefined.noAttribute(obj, "slice");
    }
    long n = items.size();
    long lo;
    long hi;
    if (st > 0) {
      lo = start == null ? 0 : clampIndex(sliceIndex(start, "start"), n, 0, n);
      hi = stop == null ? n : clampIndex(sliceIndex(stop, "stop"), n, 0, n);
    } else {
      lo = start == null ? n - 1 : clampIndex(sliceIndex(start, "start"), n, -1, n - 1);
      hi = stop == null ? -1 : clampIndex(sliceIndex(stop, "stop"), n, -1, n - 1);
    }
    List<Object> out = new ArrayList<>();
    for (long i = lo; st > 0 ? i < hi : i > hi; i += st) {
      out.add(items.get((int) i));
    }
    if (obj instanceof String) {
      return String.join("", out.stream().map(o -> (String) o).toList());
    }
    return obj instanceof Tuple ? new Tuple(out) : Collections.unmodifiableList(out);
  }

  private static long sliceIndex(Object v, String what) {
    if (v == null) {
      return 0;
    }
    if (!isInteger(v)) {
      checkDefined(v);
      throw new EvalError("slice " + what + " must be an integer or none, not " + typeName(v));
    }
    return toLong(v);
  }

  private static long clampIndex(long i, long n, long min, long max) {
    if (i < 0) {
      i += n;
    }
    return Math.max(min, Math.min(max, i));
  }

  // ---------------------------------------------------------------- arithmetic

  static Object binary(String op, Object a, Object b) {
    switch (op) {
      case "+":
        return add(a, b);
      case "-":
        return numeric(op, a, b);
      case "*":
        return mul(a, b);
      case "/":
        return div(a, b);
      case "//":
        return floorDiv(a, b);
      case "%":
        return mod(a, b);
      case "**":
        return pow(a, b);
      default:
        throw new EvalError("unknown operator " + op);
    }
  }

  private static EvalError typeError(String op, Object a, Object b) {
    checkDefined(a);
    checkDefined(b);
    return new EvalError("unsupported operand type(s) for " + op + ": '" + typeName(a) + "' and '" + typeName(b)
        + "'");
  }

  static Object add(Object a, Object b) {
    if (a instanceof String && b instanceof String) {
      Render.checkString((long) ((String) a).length() + ((String) b).length(), "'+'");
      return (String) a + b;
    }
    if (a instanceof String) {
      checkDefined(b);
      throw new EvalError("can only concatenate str (not \"" + typeName(b) + "\") to str");
    }
    if (a instanceof List && b instanceof List && (a instanceof Tuple) == (b instanceof Tuple)) {
      Render.checkList((long) ((List<?>) a).size() + ((List<?>) b).size(), "'+'");
      List<Object> out = new ArrayList<>((List<?>) a);
      out.addAll((List<?>) b);
      return a instanceof Tuple ? new Tuple(out) : Collections.unmodifiableList(out);
    }
    return numeric("+", a, b);
  }

  private static Object numeric(String op, Object a, Object b) {
    if (!isNumber(a) || !isNumber(b)) {
      throw typeError(op, a, b);
    }
    if (isInteger(a) && isInteger(b)) {
      long x = toLong(a);
      long y = toLong(b);
      return op.equals("+") ? Math.addExact(x, y) : Math.subtractExact(x, y);
    }
    double x = toDouble(a);
    double y = toDouble(b);
    return op.equals("+") ? x + y : x - y;
  }

  static Object mul(Object a, Object b) {
    if ((a instanceof String || a instanceof List) && isInteger(b)) {
      return repeat(a, toLong(b));
    }
    if ((b instanceof String || b instanceof List) && isInteger(a)) {
      return repeat(b, toLong(a));
    }
    if (!isNumber(a) || !isNumber(b)) {
      throw typeError("*", a, b);
    }
    if (isInteger(a) && isInteger(b)) {
      return Math.multiplyExact(toLong(a), toLong(b));
    }
    return toDouble(a) * toDouble(b);
  }

  private static Object repeat(Object seq, long times) {
    long n = Math.max(0, times);
    if (seq instanceof String) {
      String s = (String) seq;
      // checked in 64 bits before the cast, so 'x' * (2**32 + 1) cannot wrap to 'x' * 1
      long length = s.isEmpty() ? 0 : Math.multiplyHigh(s.length(), n) != 0 ? -1 : s.length() * n;
      Render.checkString(length, "'*' on a string");
      return s.isEmpty() || n == 0 ? "" : s.repeat((int) n);
    }
    List<?> items = (List<?>) seq;
    long size = items.isEmpty() ? 0 : Math.multiplyHigh(items.size(), n) != 0 ? -1 : items.size() * n;
    Render.checkList(size, "'*' on a list");
    List<Object> out = new ArrayList<>((int) size);
    for (long i = 0; i < n && !items.isEmpty(); i++) {
      out.addAll(items);
    }
    return seq instanceof Tuple ? new Tuple(out) : Collections.unmodifiableList(out);
  }

  static Object div(Object a, Object b) {
    if (!isNumber(a) || !isNumber(b)) {
      throw typeError("/", a, b);
    }
    double y = toDouble(b);
    if (y == 0) {
      throw new EvalError("division by zero");
    }
    return toDouble(a) / y;
  }

  static Object floorDiv(Object a, Object b) {
    if (!isNumber(a) || !isNumber(b)) {
      throw typeError("//", a, b);
    }
    if (toDouble(b) == 0) {
      throw new EvalError("integer division or modulo by zero");
    }
    if (isInteger(a) && isInteger(b)) {
      return Math.floorDiv(toLong(a), toLong(b));
    }
    return Math.floor(toDouble(a) / toDouble(b));
  }

  static Object mod(Object a, Object b) {
    if (a instanceof String) {
      throw new EvalError("printf-style string formatting ('...' % value) is not supported");
    }
    if (!isNumber(a) || !isNumber(b)) {
      throw typeError("%", a, b);
    }
    if (toDouble(b) == 0) {
      throw new EvalError("integer division or modulo by zero");
    }
    if (isInteger(a) && isInteger(b)) {
      return Math.floorMod(toLong(a), toLong(b));
    }
    double x = toDouble(a);
    double y = toDouble(b);
    double r = x % y;
    if (r != 0 && (r < 0) != (y < 0)) {
      r += y;
    }
    return r;
  }

  static Object pow(Object a, Object b) {
    if (!isNumber(a) || !isNumber(b)) {
      throw typeError("**", a, b);
    }
    if (isInteger(a) && isInteger(b) && toLong(b) >= 0) {
      // by squaring: at most 64 steps, whatever the exponent (1 ** 10**18 must not loop 10**18 times)
      long base = toLong(a);
      long exponent = toLong(b);
      if (base == 0 || base == 1) {
        return exponent == 0 ? 1L : base;
      }
      if (base == -1) {
        return (exponent & 1) == 0 ? 1L : -1L;
      }
      long result = 1;
      while (true) {
        if ((exponent & 1) != 0) {
          result = Math.multiplyExact(result, base);
        }
        exponent >>= 1;
        if (exponent == 0) {
          return result;
        }
        base = Math.multiplyExact(base, base);
      }
    }
    return Math.pow(toDouble(a), toDouble(b));
  }

  static Object negate(Object v) {
    if (isInteger(v)) {
      return Math.negateExact(toLong(v));
    } else if (v instanceof Double) {
      return -(Double) v;
    }
    checkDefined(v);
    throw new EvalError("bad operand type for unary -: '" + typeName(v) + "'");
  }

  // ---------------------------------------------------------------- conversion from Java

  /**
   * Converts a Java value passed as a template variable into the template's representation, deeply and
   * immutably.
   *
   * @param v the value
   * @param path where it sits, for error messages
   * @return the converted value
   */
  static Object fromJava(Object v, String path) {
    if (v == null || v instanceof String || v instanceof Boolean || v instanceof Long || v instanceof Double
        || v instanceof Undefined || v instanceof Tuple || v instanceof Namespace || v instanceof JinjaCallable) {
      return v;
    } else if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    } else if (v instanceof Float) {
      return ((Float) v).doubleValue();
    } else if (v instanceof Character) {
      return v.toString();
    } else if (v instanceof Map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        Object k = fromJava(e.getKey(), path + " key");
        out.put(k, fromJava(e.getValue(), path + "[" + repr(k) + "]"));
      }
      return Collections.unmodifiableMap(out);
    } else if (v instanceof Iterable) {
      List<Object> out = new ArrayList<>();
      int i = 0;
      for (Iterator<?> it = ((Iterable<?>) v).iterator(); it.hasNext(); i++) {
        out.add(fromJava(it.next(), path + "[" + i + "]"));
      }
      return Collections.unmodifiableList(out);
    } else if (v instanceof Object[]) {
      return fromJava(java.util.Arrays.asList((Object[]) v), path);
    } else if (v instanceof int[]) {
      return fromJava(java.util.Arrays.stream((int[]) v).boxed().toList(), path);
    } else if (v instanceof long[]) {
      return fromJava(java.util.Arrays.stream((long[]) v).boxed().toList(), path);
    } else if (v instanceof double[]) {
      return fromJava(java.util.Arrays.stream((double[]) v).boxed().toList(), path);
    }
    throw new IllegalArgumentException("template variable " + path + " has unsupported type "
        + v.getClass().getName() + " (use String, Boolean, a number, List, Map, or null)");
  }
}
