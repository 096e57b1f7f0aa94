package org.magejvm.impl.jinja;

import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The global functions every template sees: {@code range}, {@code dict}, {@code namespace} and the like. */
final class Globals {

  private Globals() {}

  /** @return the globals every template sees */
  static Map<String, Object> create() {
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("range", Builtins.callable("range", (args, kwargs) -> {
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
    g.put("dict", Builtins.callable("dict", (args, kwargs) -> {
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
    g.put("namespace", Builtins.callable("namespace", (args, kwargs) -> {
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
    g.put("raise_exception", Builtins.callable("raise_exception", (args, kwargs) -> {
      Args a = new Args("raise_exception()", args, kwargs, "message");
      throw new EvalError("the template raised an error: " + Values.str(a.get(0, "")));
    }));
    g.put("strftime_now", Builtins.callable("strftime_now", (args, kwargs) -> {
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
