package org.magejvm.impl.jinja;

/**
 * A template went beyond one of its {@link TemplateLimits}: the message names the template, the limit and its value
 * (and the position, where there is one); {@link #limit()} gives the limit's name, for example {@code
 * "maxLoopIterations"}.
 */
public final class TemplateLimitException extends TemplateException {
  private static final long serialVersionUID = 1L;

  private final String limit;
  private final long limitValue;

  /**
   * @param message what went wrong, without the position
   * @param line 1-based line, or 0 when unknown
   * @param column 1-based column, or 0 when unknown
   * @param limit the name of the limit, a {@link TemplateLimits} component
   * @param limitValue the limit's value
   */
  public TemplateLimitException(String message, int line, int column, String limit, long limitValue) {
    this(null, message, line, column, limit, limitValue);
  }

  private TemplateLimitException(String template, String message, int line, int column, String limit,
      long limitValue) {
    super(template, message, line, column);
    this.limit = limit;
    this.limitValue = limitValue;
  }

  /** @return the name of the limit that was exceeded, a {@link TemplateLimits} component */
  public String limit() {
    return limit;
  }

  /** @return the limit's value */
  public long limitValue() {
    return limitValue;
  }

  @Override
  TemplateException named(String template) {
    if (templateName() != null || template == null) {
      return this;
    }
    TemplateLimitException e = new TemplateLimitException(template, detail(), line(), column(), limit, limitValue);
    e.setStackTrace(getStackTrace());
    return e;
  }
}
