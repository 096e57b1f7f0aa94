package org.magejvm.impl.jinja;

/** A runtime error raised by value operations that do not know their template position; nodes add it. */
class EvalError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  EvalError(String message) {
    super(message, null, false, false);
  }
}
