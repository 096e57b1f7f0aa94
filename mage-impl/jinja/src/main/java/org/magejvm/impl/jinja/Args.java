package org.magejvm.impl.jinja;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Binds the positional and keyword arguments of a built-in to named parameters, Python style. */
final class Args {
  private final String what;
  private final List<Object> args;
  private final Map<String, Object> kwargs;
  private final String[] names;
  private final Set<String> used = new HashSet<>();

  /**
   * @param what the built-in, for messages (for example {@code "filter 'join'"})
   * @param args positional arguments
   * @param kwargs keyword arguments
   * @param names the parameter names in positional order
   */
  Args(String what, List<Object> args, Map<String, Object> kwargs, String... names) {
    this.what = what;
    this.args = args;
    this.kwargs = kwargs;
    this.names = names;
    if (args.size() > names.length) {
      throw new EvalError(what + " takes at most " + names.length + " argument(s), got " + args.size());
    }
    for (String k : kwargs.keySet()) {
      int idx = List.of(names).indexOf(k);
      if (idx < 0) {
        throw new EvalError(what + " got an unexpected keyword argument '" + k + "'");
      }
      if (idx < args.size()) {
        throw new EvalError(what + " got multiple values for argument '" + k + "'");
      }
    }
  }

  boolean has(int i) {
    return i < args.size() || kwargs.containsKey(names[i]);
  }

  Object get(int i, Object dflt) {
    used.add(names[i]);
    if (i < args.size()) {
      return args.get(i);
    }
    return kwargs.containsKey(names[i]) ? kwargs.get(names[i]) : dflt;
  }

  Object require(int i) {
    if (!has(i)) {
      throw new EvalError(what + " is missing required argument '" + names[i] + "'");
    }
    return get(i, null);
  }

  String string(int i, String dflt) {
    Object v = get(i, dflt);
    if (v != null && !(v instanceof String)) {
      Values.checkDefined(v);
      throw new EvalError(what + ": argument '" + names[i] + "' must be a string, not " + Values.typeName(v));
    }
    return (String) v;
  }

  long integer(int i, long dflt) {
    Object v = get(i, dflt);
    if (!Values.isInteger(v)) {
      Values.checkDefined(v);
      throw new EvalError(what + ": argument '" + names[i] + "' must be an integer, not " + Values.typeName(v));
    }
    return Values.toLong(v);
  }

  boolean bool(int i, boolean dflt) {
    return Values.truthy(get(i, dflt));
  }
}
