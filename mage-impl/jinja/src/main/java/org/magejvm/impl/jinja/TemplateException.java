package org.magejvm.impl.jinja;

/**
 * A chat template could not be parsed or rendered: unsupported or malformed syntax, an undefined value used where a
 * value is required, a type error, or a {@code raise_exception(...)} call in the template. The message names the
 * construct and the 1-based line and column where it happened.
 */
public final class TemplateException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The 1-based line of the failing construct, or 0 when unknown. */
  private final int line;
  /** The 1-based column of the failing construct, or 0 when unknown. */
  private final int column;

  /**
   * @param message what went wrong, without the position
   * @param line 1-based line, or 0 when unknown
   * @param column 1-based column, or 0 when unknown
   */
  public TemplateException(String message, int line, int column) {
    super(line > 0 ? message + " (template line " + line + ", column " + column + ")" : message);
    this.line = line;
    this.column = column;
  }

  /** @return the 1-based line of the failing construct, or 0 when unknown */
  public int line() {
    return line;
  }

  /** @return the 1-based column of the failing construct, or 0 when unknown */
  public int column() {
    return column;
  }
}
