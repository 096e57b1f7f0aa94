package org.magejvm.impl.jinja;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** An immutable Python tuple: a list that prints with parentheses and is never equal to a list. */
final class Tuple extends AbstractList<Object> {
  private final List<Object> items;

  Tuple(List<Object> items) {
    this.items = Collections.unmodifiableList(new ArrayList<>(items));
  }

  @Override
  public Object get(int index) {
    return items.get(index);
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public boolean equals(Object o) {
    return o == this;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }
}
