package org.magejvm.impl.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code json.dumps} as {@code transformers}' {@code tojson} filter calls it: {@code ensure_ascii} off by
 * default, optional {@code indent}, {@code separators} and {@code sort_keys}, and Python's default separators
 * ({@code ", "} and {@code ": "}, or {@code ","} and {@code ": "} when indenting).
 */
final class PyJson {

  private final boolean ensureAscii;
  private final String indent;
  private final String itemSep;
  private final String keySep;
  private final boolean sortKeys;

  private PyJson(boolean ensureAscii, String indent, String itemSep, String keySep, boolean sortKeys) {
    this.ensureAscii = ensureAscii;
    this.indent = indent;
    this.itemSep = itemSep;
    this.keySep = keySep;
    this.sortKeys = sortKeys;
  }

  static String dumps(Object value, boolean ensureAscii, Object indent, Object separators, boolean sortKeys) {
    String ind = null;
    if (indent instanceof String) {
      ind = (String) indent;
    } else if (Values.isInteger(indent)) {
      long width = Math.max(0, Values.toLong(indent));
      Render.checkString(width, "tojson indent");
      ind = " ".repeat((int) width);
    } else if (indent != null) {
      throw new EvalError("tojson: indent must be an integer, a string or none, not " + Values.typeName(indent));
    }
    String itemSep = ind == null ? ", " : ",";
    String keySep = ": ";
    if (separators != null) {
      if (!(separators instanceof List) || ((List<?>) separators).size() != 2
          || !(((List<?>) separators).get(0) instanceof String)
          || !(((List<?>) separators).get(1) instanceof String)) {
        throw new EvalError("tojson: separators must be a pair of strings");
      }
      itemSep = (String) ((List<?>) separators).get(0);
      keySep = (String) ((List<?>) separators).get(1);
    }
    StringBuilder sb = new StringBuilder();
    new PyJson(ensureAscii, ind, itemSep, keySep, sortKeys).write(value, sb, 0);
    return sb.toString();
  }

  private void newline(StringBuilder sb, int level) {
    if (indent != null) {
      Render.checkString(sb.length() + 1L + (long) indent.length() * level, "tojson");
      sb.append('\n').append(indent.repeat(level));
    }
  }

  private void write(Object v, StringBuilder sb, int level) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Boolean) {
      sb.append((Boolean) v ? "true" : "false");
    } else if (v instanceof Long) {
      sb.append(v);
    } else if (v instanceof Double) {
      double d = (Double) v;
      sb.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity")
          : Values.floatRepr(d));
    } else if (v instanceof String) {
      writeString((String) v, sb);
    } else if (v instanceof List) {
      List<?> l = (List<?>) v;
      if (l.isEmpty()) {
        sb.append("[]");
        return;
      }
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(itemSep);
        }
        newline(sb, level + 1);
        write(l.get(i), sb, level + 1);
      }
      newline(sb, level);
      sb.append(']');
    } else if (v instanceof Map) {
      Map<?, ?> m = (Map<?, ?>) v;
      if (m.isEmpty()) {
        sb.append("{}");
        return;
      }
      List<Map.Entry<String, Object>> entries = new ArrayList<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        entries.add(Map.entry(key(e.getKey()), e.getValue() == null ? NULL : e.getValue()));
      }
      if (sortKeys) {
        entries.sort((a, b) -> Values.compareCodePoints(a.getKey(), b.getKey()));
      }
      sb.append('{');
      for (int i = 0; i < entries.size(); i++) {
        if (i > 0) {
          sb.append(itemSep);
        }
        newline(sb, level + 1);
        writeString(entries.get(i).getKey(), sb);
        sb.append(keySep);
        Object val = entries.get(i).getValue();
        write(val == NULL ? null : val, sb, level + 1);
      }
      newline(sb, level);
      sb.append('}');
    } else if (v instanceof Namespace) {
      throw new EvalError("Object of type Namespace is not JSON serializable");
    } else {
      throw new EvalError("Object of type " + Values.typeName(v) + " is not JSON serializable");
    }
  }

  private static final Object NULL = new Object();

  private static String key(Object k) {
    if (k instanceof String) {
      return (String) k;
    } else if (k == null) {
      return "null";
    } else if (k instanceof Boolean) {
      return (Boolean) k ? "true" : "false";
    } else if (k instanceof Long || k instanceof Double) {
      return Values.repr(k);
    }
    throw new EvalError("keys must be str, int, float, bool or None, not " + Values.typeName(k));
  }

  private void writeString(String s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        case '\b':
          sb.append("\\b");
          break;
        case '\f':
          sb.append("\\f");
          break;
        default:
          if (c < 0x20 || (ensureAscii && c > 0x7e)) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    sb.append('"');
  }
}
