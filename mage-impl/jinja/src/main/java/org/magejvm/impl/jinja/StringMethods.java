package org.magejvm.impl.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Python's {@code str} methods that templates may call, and the string helpers the filters share with them. */
final class StringMethods {

  private StringMethods() {}

  /** The methods of a {@code str} that {@link #call} knows. */
  static final Set<String> NAMES = Set.of(
      "startswith", "endswith", "split", "rsplit", "strip", "lstrip", "rstrip", "replace", "upper", "lower",
      "title", "capitalize", "find", "rfind", "count", "join", "splitlines", "isdigit", "isalpha", "isalnum",
      "isspace", "isupper", "islower");

  /** Calls {@code s.name(args)}, {@code name} one of {@link #NAMES}. */
  static Object call(String s, String name, List<Object> args, Map<String, Object> kwargs) {
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

  static List<String> splitlines(String s, boolean keepends) {
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

  static String capitalize(String s) {
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
}
