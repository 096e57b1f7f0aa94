package org.magejvm.impl.jinja;

import java.util.HashMap;
import java.util.Map;

/** A frame of variables; lookups fall through to the parent. Loop bodies and macro calls open new frames. */
final class Scope {
  /** Marks a name that no frame defines. */
  static final Object MISSING = new Object();

  private final Scope parent;
  private final Map<String, Object> vars = new HashMap<>();

  Scope(Scope parent) {
    this.parent = parent;
  }

  Object lookup(String name) {
    for (Scope s = this; s != null; s = s.parent) {
      if (s.vars.containsKey(name)) {
        return s.vars.get(name);
      }
    }
    return MISSING;
  }

  void set(String name, Object value) {
    vars.put(name, value);
  }
}
