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
 *
 * <p>A template is untrusted code (it comes with a downloaded model): parsing and rendering run within {@link
 * TemplateLimits} (loop iterations, {@code range()} size, macro recursion, nesting depth, sizes of strings, lists
 * and output, and time), and every failure is a {@link TemplateException} that names the template when it was
 * given a name, never a {@code StackOverflowError}, an {@code OutOfMemoryError} from a runaway template, or a hang.
 */
public final class JinjaTemplate {

  private static final Map<String, Object> GLOBALS = Builtins.globals();

  private final String source;
  private final String name;
  private final TemplateLimits limits;
  private final List<Ast.Stmt> body;

  private JinjaTemplate(String source, String name, TemplateLimits limits, List<Ast.Stmt> body) {
    this.source = source;
    this.name = name;
    this.limits = limits;
    this.body = body;
  }

  /**
   * Parses a template without a name, with the default {@link TemplateLimits}.
   *
   * @param source the template text
   * @return the parsed template
   * @throws TemplateException naming the construct, line and column when the syntax is malformed or unsupported
   */
  public static JinjaTemplate parse(String source) {
    return parse(source, null, TemplateLimits.defaults());
  }

  /**
   * Parses a template.
   *
   * @param source the template text
   * @param name what to call the template in messages, for example {@code "tokenizer_config.json chat_template"},
   *     or null
   * @param limits the bounds on parsing and on every later render
   * @return the parsed template
   * @throws TemplateException naming the template, construct, line and column when the syntax is malformed or
   *     unsupported; a {@link TemplateLimitException} when it nests deeper than the limits allow
   */
  public static JinjaTemplate parse(String source, String name, TemplateLimits limits) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(limits, "limits");
    try {
      return new JinjaTemplate(source, name, limits, Parser.parse(source, limits));
    } catch (TemplateException e) {
      throw e.named(name);
    } catch (StackOverflowError e) {
      throw new TemplateLimitException("the template nests too deeply for this thread's stack (before the limit "
          + "maxNestingDepth = " + limits.maxNestingDepth() + " was reached)", 0, 0, "maxNestingDepth",
          limits.maxNestingDepth()).named(name);
    }
  }

  /** @return the name given at parse time, or null */
  public String name() {
    return name;
  }

  /** @return the limits every render runs within */
  public TemplateLimits limits() {
    return limits;
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
   *     {@code raise_exception(...)} call), naming the template, line and column; a {@link TemplateLimitException}
   *     when it goes beyond one of its {@link TemplateLimits}
   * @throws IllegalArgumentException when a variable holds a type templates cannot use
   */
  public String render(Map<String, ?> variables) {
    Render previous = Render.current();
    Render.begin(limits);
    try {
      return renderWithin(variables);
    } catch (TemplateException e) {
      throw e.named(name);
    } catch (StackOverflowError e) {
      throw new TemplateLimitException("macro calls and expressions nest too deeply for this thread's stack "
          + "(before the limit maxMacroDepth = " + limits.maxMacroDepth() + " was reached)", 0, 0, "maxMacroDepth",
          limits.maxMacroDepth()).named(name);
    } catch (OutOfMemoryError e) {
      // a backstop: the size limits are checked before each allocation, but the heap may be smaller than they allow
      throw new TemplateException(null, "the Java heap ran out while rendering (the template's own values are "
          + "bounded by maxStringChars = " + limits.maxStringChars() + " and maxListItems = "
          + limits.maxListItems() + "; lower them for this heap)", 0, 0).named(name);
    } finally {
      Render.end();
      if (previous != null) {
        Render.restore(previous);
      }
    }
  }

  private String renderWithin(Map<String, ?> variables) {
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
