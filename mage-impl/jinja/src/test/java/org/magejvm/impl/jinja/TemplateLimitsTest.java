package org.magejvm.impl.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hostile chat templates of issue 12: each one fails with a {@link TemplateLimitException} naming the template
 * and the limit, quickly, never with a StackOverflowError, an OutOfMemoryError or a hang. Some limits are scaled
 * down to keep the tests fast; the defaults are checked separately.
 */
@Timeout(60)
class TemplateLimitsTest {

  private static final String NAME = "tokenizer_config.json chat_template";

  private static AbstractThrowableAssert<?, ? extends Throwable> rendering(String source, TemplateLimits limits,
      String limit) {
    return assertThatThrownBy(() -> JinjaTemplate.parse(source, NAME, limits).render(Map.of()))
        .isInstanceOf(TemplateLimitException.class)
        .hasMessageStartingWith("template " + NAME + ": ")
        .hasMessageContaining(limit)
        .satisfies(e -> assertThat(((TemplateLimitException) e).limit()).isEqualTo(limit));
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> rendering(String source, String limit) {
    return rendering(source, TemplateLimits.defaults(), limit);
  }

  private static String nested(String open, String middle, String close, int depth) {
    return open.repeat(depth) + middle + close.repeat(depth);
  }

  @Test
  void defaultsAreDocumented() {
    TemplateLimits d = TemplateLimits.defaults();
    assertThat(d.maxRangeItems()).isEqualTo(100_000);
    assertThat(d.maxLoopIterations()).isEqualTo(1_000_000);
    assertThat(d.maxMacroDepth()).isEqualTo(100);
    assertThat(d.maxNestingDepth()).isEqualTo(100);
    assertThat(d.maxOutputChars()).isEqualTo(10_000_000);
    assertThat(d.maxStringChars()).isEqualTo(10_000_000);
    assertThat(d.maxListItems()).isEqualTo(1_000_000);
    assertThat(d.maxRenderMillis()).isEqualTo(10_000);
    assertThatThrownBy(() -> d.withMaxLoopIterations(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withMaxStringChars(1L << 40)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rangeIsCappedLikeJinja2sSandbox() {
    rendering("{% for i in range(1000000000) %}{% endfor %}", "maxRangeItems")
        .hasMessageContaining("range() of 1000000000 items").hasMessageContaining("line 1");
    rendering("{{ range(-9223372036854775807, 9223372036854775807) | length }}", "maxRangeItems");
    assertThat(JinjaTemplate.parse("{{ range(100000) | length }}").render(Map.of())).isEqualTo("100000");
    assertThat(JinjaTemplate.parse("{{ range(10, 0, -3) | list }}").render(Map.of())).isEqualTo("[10, 7, 4, 1]");
    assertThat(JinjaTemplate.parse("{{ range(0, 10, -3) | list }}").render(Map.of())).isEqualTo("[]");
    rendering("{{ range(11) | list }}", TemplateLimits.defaults().withMaxRangeItems(10), "maxRangeItems");
  }

  @Test
  void nestedLoopsStopAtTheIterationBudget() {
    String loops = "{% for i in range(100000) %}{% for j in range(100000) %}{% for k in range(100000) %}"
        + "{% endfor %}{% endfor %}{% endfor %}";
    long start = System.nanoTime();
    rendering(loops, "maxLoopIterations").hasMessageContaining("more than 1000000 loop iterations");
    assertThat((System.nanoTime() - start) / 1e9).isLessThan(20);
    rendering(loops, TemplateLimits.defaults().withMaxLoopIterations(1000), "maxLoopIterations");
    // filter tests count too
    rendering("{% for i in range(2000) if i > 5000 %}{% endfor %}",
        TemplateLimits.defaults().withMaxLoopIterations(1000), "maxLoopIterations");
  }

  @Test
  void listRepetitionIsBoundedBeforeAllocating() {
    rendering("{{ ([1] * 1000000000) | length }}", "maxListItems").hasMessageContaining("'*' on a list");
    rendering("{{ ([1, 2] * 4611686018427387905) | length }}", "maxListItems");
    rendering("{% set l = [0] * 600000 %}{{ (l + l) | length }}", "maxListItems");
    assertThat(JinjaTemplate.parse("{{ ([1, 2] * 3) | length }}").render(Map.of())).isEqualTo("6");
    // iterating a long string would make a list of one-character strings
    rendering("{% for c in 'x' * 2000000 %}{% endfor %}", "maxListItems");
  }

  @Test
  void stringRepetitionIsBoundedAndCannotWrap() {
    rendering("{{ 'x' * 2000000000 }}", "maxStringChars").hasMessageContaining("2000000000 characters");
    // 2^32 + 1 used to wrap to 1 in a cast to int and render 'ab'
    rendering("{{ 'ab' * (2**32 + 1) }}", "maxStringChars").hasMessageContaining("8589934594 characters");
    rendering("{{ 'ab' * 9223372036854775807 }}", "maxStringChars");
    assertThat(JinjaTemplate.parse("{{ 'ab' * 3 }}{{ 'ab' * -1 }}").render(Map.of())).isEqualTo("ababab");
  }

  @Test
  void stringDoublingIsBounded() {
    rendering("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
        "maxStringChars").hasMessageContaining("'+'");
    rendering("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
        "maxStringChars").hasMessageContaining("'~'");
    rendering("{% set s = 'x' * 1000000 %}{{ ([s] * 20) | join('') | length }}", "maxStringChars")
        .hasMessageContaining("join");
    rendering("{% set s = 'x' * 1000000 %}{{ s.replace('x', 'yyyyyyyyyyyy') | length }}", "maxStringChars")
        .hasMessageContaining("replace()");
    rendering("{{ 'a\nb' | indent(2000000000) }}", "maxStringChars");
    rendering("{{ [1, [2]] | tojson(indent=2000000000) }}", "maxStringChars");
  }

  @Test
  void outputIsBounded() {
    // 200 MB of output
    rendering("{% for i in range(100000) %}{{ 'x' * 2000 }}{% endfor %}", "maxOutputChars");
    rendering("{% for i in range(100000) %}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}",
        TemplateLimits.defaults().withMaxOutputChars(1000), "maxOutputChars");
    rendering("{% macro m() %}{% for i in range(2000) %}x{% endfor %}{% endmacro %}{{ m() | length }}",
        TemplateLimits.defaults().withMaxOutputChars(1000), "maxOutputChars");
    assertThat(JinjaTemplate.parse("{% for i in range(10) %}x{% endfor %}", NAME,
        TemplateLimits.defaults().withMaxOutputChars(10)).render(Map.of())).hasSize(10);
  }

  @Test
  void recursiveMacrosStopAtTheDepthLimit() {
    rendering("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "maxMacroDepth")
        .hasMessageContaining("macro 'f'");
    rendering("{% macro f(n) %}{{ g(n) }}{% endmacro %}{% macro g(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
        "maxMacroDepth");
    // shallow but exponential: 2^40 calls
    rendering("{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}",
        TemplateLimits.defaults().withMaxLoopIterations(10_000), "maxLoopIterations");
    // recursion within the limit works
    assertThat(JinjaTemplate.parse("{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
        + "{{ f(5) }}").render(Map.of())).isEqualTo("54321");
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> parsing(String source, TemplateLimits limits) {
    return assertThatThrownBy(() -> JinjaTemplate.parse(source, NAME, limits))
        .isInstanceOf(TemplateLimitException.class)
        .hasMessageStartingWith("template " + NAME + ": ")
        .hasMessageContaining("maxNestingDepth");
  }

  @Test
  void deepNestingIsRefusedWhileParsing() {
    TemplateLimits d = TemplateLimits.defaults();
    parsing("{{ " + nested("(", "1", ")", 20_000) + " }}", d);
    parsing(nested("{% if true %}", "x", "{% endif %}", 5_000), d);
    parsing("{{ " + nested("[", "1", "]", 3_000) + " }}", d);
    parsing("{{ " + nested("{'a': ", "1", "}", 3_000) + " }}", d);
    parsing("{{ " + "not ".repeat(5_000) + "x }}", d);
    parsing("{{ " + "-".repeat(5_000) + "1 }}", d);
    parsing("{{ " + nested("f(", "1", ")", 3_000) + " }}", d);
    parsing("{{ " + "1 if x else ".repeat(3_000) + "2 }}", d);
    parsing(nested("{% for i in x %}", "x", "{% endfor %}", 3_000), d);
    parsing(nested("{% macro m() %}", "x", "{% endmacro %}", 3_000), d);
    // within the limit it parses and renders
    assertThat(JinjaTemplate.parse("{{ " + nested("(", "1", ")", 50) + " }}").render(Map.of())).isEqualTo("1");
    assertThat(JinjaTemplate.parse(nested("{% if true %}", "x", "{% endif %}", 50)).render(Map.of()))
        .isEqualTo("x");
    assertThat(JinjaTemplate.parse("{{ " + nested("[", "1", "]", 50) + " | length }}").render(Map.of()))
        .isEqualTo("1");
    parsing("{{ " + nested("(", "1", ")", 11) + " }}", d.withMaxNestingDepth(10));
  }

  @Test
  void aSmallThreadStackGivesALimitErrorNotAStackOverflow() throws InterruptedException {
    // limits far above what a 128 KiB stack can hold: the backstop turns the overflow into a TemplateLimitException
    TemplateLimits generous = TemplateLimits.defaults().withMaxNestingDepth(1_000_000).withMaxMacroDepth(1_000_000);
    AtomicReference<Throwable> parse = new AtomicReference<>();
    AtomicReference<Throwable> render = new AtomicReference<>();
    Thread t = new Thread(null, () -> {
      try {
        JinjaTemplate.parse("{{ " + nested("(", "1", ")", 100_000) + " }}", NAME, generous);
      } catch (Throwable e) {
        parse.set(e);
      }
      try {
        JinjaTemplate.parse("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", NAME, generous)
            .render(Map.of());
      } catch (Throwable e) {
        render.set(e);
      }
    }, "small-stack", 128 * 1024);
    t.start();
    t.join();
    assertThat(parse.get()).isInstanceOf(TemplateLimitException.class).hasMessageContaining("stack")
        .hasMessageStartingWith("template " + NAME);
    assertThat(render.get()).isInstanceOf(TemplateLimitException.class).hasMessageContaining("stack")
        .hasMessageContaining("maxMacroDepth");
  }

  @Test
  void theClockStopsWhatTheCountsDoNot() {
    // 1000 iterations (within the budget), each sorting 100,000 items: stopped by the deadline
    long start = System.nanoTime();
    rendering("{% set l = range(100000) | list | reverse | list %}{% for i in range(1000) %}"
            + "{{ (l | sort | first) + (l | sort | last) }}{% endfor %}",
        TemplateLimits.defaults().withMaxRenderMillis(200), "maxRenderMillis");
    assertThat((System.nanoTime() - start) / 1e9).isLessThan(10);
  }

  @Test
  void powerDoesNotLoopOverTheExponent() {
    assertThat(JinjaTemplate.parse("{{ 1 ** 1000000000000000000 }} {{ (-1) ** 1000000000000000001 }} "
        + "{{ 0 ** 1000000000000000000 }} {{ 3 ** 5 }} {{ 2 ** 62 }}").render(Map.of()))
        .isEqualTo("1 -1 0 243 4611686018427387904");
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ 2 ** 1000000000000000000 }}").render(Map.of()))
        .isInstanceOf(TemplateException.class).hasMessageContaining("overflow");
  }

  @Test
  void everyRenderErrorNamesTheTemplate() {
    for (String source : new String[] {"{{ raise_exception('bad role') }}", "{{ 1 // 0 }}", "{{ 1 / 0 }}",
        "{{ undefined_variable.attr }}", "{{ foo() }}"}) {
      assertThatThrownBy(() -> JinjaTemplate.parse(source, NAME, TemplateLimits.defaults()).render(Map.of()))
          .as(source)
          .isInstanceOf(TemplateException.class)
          .hasMessageStartingWith("template " + NAME + ": ")
          .hasMessageContaining("line 1")
          .satisfies(e -> assertThat(((TemplateException) e).templateName()).isEqualTo(NAME));
    }
    assertThatThrownBy(() -> JinjaTemplate.parse("{% if %}", NAME, TemplateLimits.defaults()))
        .hasMessageStartingWith("template " + NAME + ": ");
  }
}
