package org.magejvm.impl.jinja;

/**
 * A chat template could not be parsed or rendered: unsupported or malformed syntax, an undefined value used where a
 * value is required, a type error, a {@code raise_exception(...)} call in the template, or a {@link TemplateLimits}
 * limit exceeded ({@link TemplateLimitException}). The message names the template (when it was given a name), the
 * construct, and the 1-based line and column where it happened.
 */
public class TemplateException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The template's name, or null. */
  private final String template;
  /** The message without template name and position. */
  private final String detail;
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
    this(null, message, line, column);
  }

  /**
   * @param template the template's name, or null
   * @param message what went wrong, without the position
   * @param line 1-based line, or 0 when unknown
   * @param column 1-based column, or 0 when unknown
   */
  TemplateException(String template, String message, int line, int column) {
    super((template == null ? "" : "template " + template + ": ")
        + (line > 0 ? message + " (template line " + line + ", column " + column + ")" : message));
    this.template = template;
    this.detail = message;
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

  /** @return the name of the template, or null when it was parsed without one */
  public String templateName() {
    return template;
  }

  /** @return the message without the template name and position */
  String detail() {
    return detail;
  }

  /**
   * @param name the template's name
   * @return this exception with the template named in its message (itself when it already names one)
   */
  TemplateException named(String name) {
    if (template != null || name == null) {
      return this;
    }
    TemplateException e = new TemplateException(name, detail, line, column);
    e.setStackTrace(getStackTrace());
    return e;
  }
}
