package org.magejvm.impl.jinja;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A parsed Jinja template, rendered the way Hugging Face {@code transformers} renders chat templates.
 *
 * <p>Parsing checks the syntax, the tag names, and the filter and test names, so an unsupported construct fails
 * at {@link #parse} rather than in the middle of training. Rendering never changes the template; a parsed template
 * may be rendered any number of times, also from several threads at once.
 *
 * <p>Variables are plain Java values: {@code String}, {@code Boolean}, integer and floating-point numbers,
 * {@code List} (or any {@code Iterable} or array), {@code Map}, and {@code null} for Python's {@code None}. They
 * are copied into immutable template values first, so the template cannot change the caller's objects.
 */
public final class JinjaTemplate {

  private static final Map<String, Object> GLOBALS = Builtins.globals();

  private final String source;
  private final List<Ast.Stmt> body;

  private JinjaTemplate(String source, List<Ast.Stmt> body) {
    this.source = source;
    this.body = body;
  }

  /**
   * Parses a template.
   *
   * @param source the template text
   * @return the parsed template
   * @throws TemplateException naming the construct, line and column when the syntax is malformed or unsupported
   */
  public static JinjaTemplate parse(String source) {
    Objects.requireNonNull(source, "source");
    return new JinjaTemplate(source, Parser.parse(source));
  }

  /** @return the template text this was parsed from */
  public String source() {
    return source;
  }

  /**
   * Renders the template.
   *
   * @param variables the template's variables; names not given are undefined
   * @return the rendered text
   * @throws TemplateException when rendering fails (an undefined value used as a value, a type error, a
   *     {@code raise_exception(...)} call), naming the line and column
   * @throws IllegalArgumentException when a variable holds a type templates cannot use
   */
  public String render(Map<String, ?> variables) {
    Scope globals = new Scope(null);
    GLOBALS.forEach(globals::set);
    Scope vars = new Scope(globals);
    Map<String, Object> converted = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : variables.entrySet()) {
      converted.put(e.getKey(), Values.fromJava(e.getValue(), e.getKey()));
    }
    converted.forEach(vars::set);
    StringBuilder out = new StringBuilder();
    Ast.renderAll(body, new Scope(vars), out);
    return out.toString();
  }
}
