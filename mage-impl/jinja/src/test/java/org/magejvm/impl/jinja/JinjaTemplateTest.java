package org.magejvm.impl.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Unit tests of the interpreter: whitespace control, loops, scoping, namespaces, slicing and error reporting. */
class JinjaTemplateTest {

  private static String render(String template, Object... kv) {
    Map<String, Object> vars = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      vars.put((String) kv[i], kv[i + 1]);
    }
    return JinjaTemplate.parse(template).render(vars);
  }

  @Test
  void dashStripsAllWhitespaceIncludingNewlines() {
    assertThat(render("a \n\t {{- 'b' -}} \n\n c")).isEqualTo("abc");
    assertThat(render("a \n {%- if true -%} \n b \n {%- endif -%} \n c")).isEqualTo("abc");
  }

  @Test
  void trimBlocksRemovesOnlyTheFirstNewlineAfterABlockTag() {
    assertThat(render("{% if true %}\n\nx{% endif %}\n\ny")).isEqualTo("\nx\ny");
    // a print tag keeps its newline
    assertThat(render("{{ 'a' }}\nb")).isEqualTo("a\nb");
  }

  @Test
  void lstripBlocksRemovesIndentationBeforeBlockTagsOnly() {
    assertThat(render("  {% if true %}\n  x\n  {% endif %}\n  {{ 'y' }}")).isEqualTo("  x\n  y");
    // text before the tag on the same line is not whitespace-only: nothing is stripped
    assertThat(render("a  {% if true %}b{% endif %}")).isEqualTo("a  b");
    // {%+ keeps the indentation
    assertThat(render("  {%+ if true %}x{% endif %}")).isEqualTo("  x");
  }

  @Test
  void oneTrailingNewlineOfTheTemplateIsDropped() {
    assertThat(render("x\n")).isEqualTo("x");
    assertThat(render("x\n\n")).isEqualTo("x\n");
  }

  @Test
  void loopVariablesAndElse() {
    assertThat(render("{% for m in ms %}{{ loop.index0 }}:{{ m }}{% if not loop.last %},{% endif %}{% endfor %}",
        "ms", List.of("a", "b", "c"))).isEqualTo("0:a,1:b,2:c");
    assertThat(render("{% for m in ms %}{{ loop.first }}{{ loop.length }}{% else %}none{% endfor %}",
        "ms", List.of())).isEqualTo("none");
    assertThat(render("{% for a, b in pairs %}{{ a }}{{ b }}{% endfor %}", "pairs",
        List.of(List.of(1, 2), List.of(3, 4)))).isEqualTo("1234");
  }

  @Test
  void loopBodyAssignmentsDoNotLeakButNamespacesDo() {
    String t = "{% set n = 0 %}{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set n = n + 1 %}"
        + "{% set ns.n = ns.n + 1 %}{% endfor %}{{ n }}/{{ ns.n }}";
    assertThat(render(t)).isEqualTo("0/3");
  }

  @Test
  void reversedLoopFindsLastUserMessageLikeQwen3() {
    String t = "{%- set ns = namespace(idx=messages|length - 1) %}{%- for m in messages[::-1] %}"
        + "{%- set index = (messages|length - 1) - loop.index0 %}{%- if m.role == 'user' and ns.idx == "
        + "messages|length - 1 %}{%- set ns.idx = index %}{%- endif %}{%- endfor %}{{ ns.idx }}";
    List<Map<String, String>> msgs = List.of(Map.of("role", "user"), Map.of("role", "user"),
        Map.of("role", "assistant"));
    // walking backwards, the first user message met is at index 1
    assertThat(render(t, "messages", msgs)).isEqualTo("1");
  }

  @Test
  void slicingFollowsPython() {
    assertThat(render("{{ s[::-1] }} {{ s[1:-1] }} {{ s[-3:] }} {{ s[:100] }}", "s", "abcdef"))
        .isEqualTo("fedcba bcde def abcdef");
    assertThat(render("{{ l[::-1] }} {{ l[::2] }} {{ l[5:1:-2] }}", "l", List.of(0, 1, 2, 3, 4, 5)))
        .isEqualTo("[5, 4, 3, 2, 1, 0] [0, 2, 4] [5, 3]");
    // strings are sliced in code points, not UTF-16 units
    assertThat(render("{{ s[::-1] }}|{{ s|length }}", "s", "a😀b")).isEqualTo("b😀a|3");
  }

  @Test
  void stringMethodsUsedByChatTemplates() {
    String content = "<think>\nreason\n</think>\n\nanswer";
    assertThat(render("{{ c.split('</think>')[-1].lstrip('\\n') }}", "c", content)).isEqualTo("answer");
    assertThat(render("{{ c.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') }}",
        "c", content)).isEqualTo("reason");
    assertThat(render("{{ c.startswith('<think>') and c.endswith('answer') }}", "c", content)).isEqualTo("True");
  }

  @Test
  void undefinedValuesPrintEmptyAndTestAsUndefined() {
    assertThat(render("[{{ missing }}]{{ missing is defined }}{{ m.nokey is defined }}", "m", Map.of("a", 1)))
        .isEqualTo("[]FalseFalse");
  }

  @Test
  void javaValuesAreConverted() {
    assertThat(render("{{ i + 1 }} {{ f }} {{ arr }} {{ n is none }}", "i", 41, "f", 1.5f, "arr",
        new int[] {1, 2}, "n", null)).isEqualTo("42 1.5 [1, 2] True");
    assertThatThrownBy(() -> render("{{ x }}", "x", new Object()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("template variable x");
  }

  @Test
  void tojsonWritesLikePythonJsonDumps() {
    Map<String, Object> tool = new java.util.LinkedHashMap<>();
    tool.put("name", "move");
    tool.put("params", Arrays.asList("x", null, 2, 0.5, true));
    assertThat(render("{{ t|tojson }}", "t", tool))
        .isEqualTo("{\"name\": \"move\", \"params\": [\"x\", null, 2, 0.5, true]}");
  }

  @Test
  void macrosAndLoopControls() {
    assertThat(render("{% macro w(x, y='!') %}<{{ x }}{{ y }}>{% endmacro %}{% for i in range(5) %}"
        + "{% if i == 1 %}{% continue %}{% elif i == 3 %}{% break %}{% endif %}{{ w(i) }}{% endfor %}"))
        .isEqualTo("<0!><2!>");
  }

  @Test
  void raiseExceptionCarriesTheTemplatesMessageAndPosition() {
    assertThatThrownBy(() -> render("line one\n{% if x %}{{ raise_exception('Only user roles.') }}{% endif %}",
        "x", true))
        .isInstanceOf(TemplateException.class)
        .hasMessageContaining("Only user roles.")
        .hasMessageContaining("line 2");
  }

  @Test
  void unsupportedSyntaxNamesTheConstructAndPosition() {
    TemplateException e = (TemplateException) org.assertj.core.api.Assertions.catchThrowable(
        () -> JinjaTemplate.parse("ok\n  {% include 'x' %}"));
    assertThat(e.getMessage()).contains("unsupported tag 'include'");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(6);
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ x|frobnicate }}"))
        .hasMessageContaining("filter 'frobnicate'").hasMessageContaining("column 6");
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ x is shiny }}")).hasMessageContaining("test 'shiny'");
    assertThatThrownBy(() -> JinjaTemplate.parse("{% for x in y recursive %}{% endfor %}"))
        .hasMessageContaining("recursive");
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ f(*args) }}")).hasMessageContaining("*args");
    assertThatThrownBy(() -> JinjaTemplate.parse("{% if a %}x")).hasMessageContaining("endif");
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ a ]}}")).hasMessageContaining("unexpected ']'");
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ 'abc }}")).hasMessageContaining("unterminated string");
    assertThatThrownBy(() -> JinjaTemplate.parse("{# never closed")).hasMessageContaining("comment");
    assertThatThrownBy(() -> JinjaTemplate.parse("x{% endfor %}")).hasMessageContaining("unexpected tag 'endfor'");
  }

  @Test
  void runtimeErrorsNameTheProblem() {
    assertThatThrownBy(() -> render("{{ missing.attr }}")).isInstanceOf(TemplateException.class)
        .hasMessageContaining("'missing' is undefined");
    assertThatThrownBy(() -> render("{{ 'a' + 1 }}")).hasMessageContaining("can only concatenate str");
    assertThatThrownBy(() -> render("{% set d = {} %}{% set d.x = 1 %}")).hasMessageContaining("namespace");
    assertThatThrownBy(() -> render("{{ s.nomethod() }}", "s", "x"))
        .hasMessageContaining("'str object' has no attribute 'nomethod'");
    assertThatThrownBy(() -> render("{{ 1 // 0 }}")).hasMessageContaining("division");
    assertThatThrownBy(() -> render("{% for x in 5 %}{% endfor %}")).hasMessageContaining("not iterable");
  }

  @Test
  void parsedTemplatesAreReusable() {
    JinjaTemplate t = JinjaTemplate.parse("{{ x }}");
    assertThat(t.render(Map.of("x", 1))).isEqualTo("1");
    assertThat(t.render(Map.of("x", "two"))).isEqualTo("two");
    assertThat(t.source()).isEqualTo("{{ x }}");
  }
}
