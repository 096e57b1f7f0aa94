package org.magejvm.impl.jinja;

/**
 * Jinja's default undefined value: prints as the empty string, is false, iterates as empty and has length 0; using
 * it any other way (attribute access, arithmetic, calling) fails with its hint.
 */
final class Undefined {
  static final Undefined PLAIN = new Undefined("value is undefined");

  private final String hint;

  Undefined(String hint) {
    this.hint = hint;
  }

  static Undefined named(String name) {
    return new Undefined("'" + name + "' is undefined");
  }

  static Undefined noAttribute(Object owner, Object attr) {
    return new Undefined("'" + Values.typeName(owner) + " object' has no attribute " + Values.repr(attr));
  }

  /** @return the error message for a failing use */
  String hint() {
    return hint;
  }

  EvalError fail() {
    return new EvalError(hint);
  }

  @Override
  public String toString() {
    return "";
  }
}
