package org.magejvm.impl.jinja;

import java.util.List;
import java.util.Map;

/** The {@code loop} variable inside a {@code for} block. */
final class LoopInfo {
  private final List<Object> items;
  private final int index0;
  private final Object[] lastChanged;

  /**
   * @param items the items iterated
   * @param index0 the 0-based position
   * @param lastChanged one-element state shared by every iteration of the loop, for {@code loop.changed}
   */
  LoopInfo(List<Object> items, int index0, Object[] lastChanged) {
    this.items = items;
    this.index0 = index0;
    this.lastChanged = lastChanged;
  }

  /** @return the attribute's value, or an undefined value naming it */
  Object attr(String name) {
    int n = items.size();
    switch (name) {
      case "index0":
        return (long) index0;
      case "index":
        return (long) index0 + 1;
      case "revindex0":
        return (long) (n - index0 - 1);
      case "revindex":
        return (long) (n - index0);
      case "first":
        return index0 == 0;
      case "last":
        return index0 == n - 1;
      case "length":
        return (long) n;
      case "depth":
        return 1L;
      case "depth0":
        return 0L;
      case "previtem":
        return index0 > 0 ? items.get(index0 - 1) : new Undefined("there is no previous item");
      case "nextitem":
        return index0 + 1 < n ? items.get(index0 + 1) : new Undefined("there is no next item");
      case "cycle":
        return new JinjaCallable() {
          @Override
          public Object call(List<Object> args, Map<String, Object> kwargs) {
            if (args.isEmpty()) {
              throw new EvalError("loop.cycle() needs at least one argument");
            }
            return args.get(index0 % args.size());
          }

          @Override
          public String name() {
            return "loop.cycle";
          }
        };
      case "changed":
        return new JinjaCallable() {
          @Override
          public Object call(List<Object> args, Map<String, Object> kwargs) {
            Object v = new Tuple(args);
            boolean changed = !(lastChanged[0] instanceof Tuple) || !Values.eq(lastChanged[0], v);
            lastChanged[0] = v;
            return changed;
          }

          @Override
          public String name() {
            return "loop.changed";
          }
        };
      default:
        return Undefined.noAttribute(this, name);
    }
  }
}
