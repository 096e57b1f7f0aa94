#!/usr/bin/env python3
"""Writes src/test/resources/jinja/jinja2-parity.json: expected renderings from the reference Jinja2 engine.

The same file is written into this module (mage-impl/jinja, for JinjaParityTest) and into mage-impl/llm (for
Qwen3ChatTemplateTest), whose test resources also hold the Qwen3 tokenizer_config.json read here. Run from the
mage-impl/jinja directory with a Python 3 that has Jinja2 (3.1.x was used):

    python3 src/test/python/generate_jinja_fixtures.py

The environment mirrors how Hugging Face transformers compiles chat templates: an immutable sandbox with
trim_blocks and lstrip_blocks on, the loopcontrols extension, a tojson filter calling json.dumps without ASCII
escaping, and a raise_exception global. The Java tests (JinjaParityTest, Qwen3ChatTemplateTest) render the same
inputs with our interpreter and compare byte for byte. No network and no transformers install are needed.
"""
import json
import os

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
LLM_TEST_RESOURCES = os.path.join(HERE, "..", "..", "..", "..", "llm", "src", "test", "resources")
OUTS = [os.path.join(HERE, "..", "resources", "jinja", "jinja2-parity.json"),
        os.path.join(LLM_TEST_RESOURCES, "jinja", "jinja2-parity.json")]
QWEN3_CONFIG = os.path.join(LLM_TEST_RESOURCES, "qwen3-tokenizer-config", "tokenizer_config.json")


class GenerationBlocks(jinja2.ext.Extension):
    """Renders {% generation %}...{% endgeneration %} bodies unchanged, as transformers' AssistantTracker does."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def make_env():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationBlocks, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


ENV = make_env()

# (name, template, variables). Each exercises one feature; the expected text comes from Jinja2 itself.
CASES = [
    ("text only", "hello\nworld\n", {}),
    ("print literals", "{{ 1 }}|{{ 2.5 }}|{{ 'a' }}|{{ true }}|{{ none }}|{{ [1, 'b', none, false] }}", {}),
    ("print dict and tuple", "{{ {'k': (1, 2), 'j': (3,)} }}|{{ () }}", {}),
    ("float repr", "{{ 1e16 }} {{ 1e15 }} {{ 0.0001 }} {{ 0.00001 }} {{ 1/3 }} {{ 10/4 }} {{ -0.5 }}", {}),
    ("arithmetic", "{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 2 ** 10 }} {{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }}"
     " {{ 5 - 3 - 1 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }}", {}),
    ("string ops", "{{ 'ab' + 'cd' }} {{ 'ab' * 3 }} {{ 'x' ~ 1 ~ none ~ undefined_name }}", {}),
    ("comparisons", "{{ 1 == 1.0 }} {{ true == 1 }} {{ 'a' < 'b' }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}"
     " {{ [1, 2] == [1, 2] }} {{ [1, 2] < [1, 3] }} {{ 'a' != 'a' }}", {}),
    ("in and not in", "{{ 'a' in 'cab' }} {{ 1 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'x' not in [] }}"
     " {{ 'z' in undefined_name }}", {}),
    ("and or not values", "{{ 0 or 'fallback' }}|{{ 'first' and 'second' }}|{{ '' and 'x' }}|{{ not 0 }}"
     "|{{ not [] and 1 }}", {}),
    ("conditional expression", "{{ 'yes' if x else 'no' }}|{{ 'yes' if y else 'no' }}|{{ 'only' if y }}|",
     {"x": 1, "y": 0}),
    ("filters precedence", "{{ items|length - 1 }} {{ -2|abs }} {{ items|join(', ') ~ '!' }}", {"items": [1, 2, 3]}),
    ("string filters", "{{ '  pad  '|trim }}|{{ 'abc'|upper }}|{{ 'ABC'|lower }}|{{ 'hello world'|title }}"
     "|{{ 'hELLO'|capitalize }}|{{ 'aXbXc'|replace('X', '-') }}|{{ 'abc'|reverse }}|{{ 42|string ~ '!' }}"
     "|{{ 'xxhixx'|trim('x') }}", {}),
    ("default filter", "{{ missing|default('d') }}|{{ none|default('d') }}|{{ ''|default('d') }}"
     "|{{ ''|default('d', true) }}|{{ missing|d('short') }}", {}),
    ("list filters", "{{ [3, 1, 2]|sort }}|{{ ['b', 'A', 'c']|sort }}|{{ [1, 2, 3]|first }}|{{ [1, 2, 3]|last }}"
     "|{{ [1, 2, 2, 1]|unique|list }}|{{ 'ab'|list }}|{{ [1, 2, 3]|reverse|list }}|{{ [1, 2, 3]|sum }}"
     "|{{ [4, 9, 2]|max }}|{{ [4, 9, 2]|min }}", {}),
    ("select filters", "{{ msgs|selectattr('role', 'equalto', 'user')|map(attribute='content')|join(',') }}"
     "|{{ msgs|rejectattr('role', 'eq', 'user')|list|length }}|{{ [1, 2, 3, 4]|select('even')|list }}"
     "|{{ [1, 2, 3, 4]|reject('odd')|list }}|{{ ['a', 'b']|map('upper')|list }}",
     {"msgs": [{"role": "system", "content": "s"}, {"role": "user", "content": "u1"},
               {"role": "user", "content": "u2"}]}),
    ("dict filters and methods", "{% for k, v in d|dictsort %}{{ k }}={{ v }};{% endfor %}"
     "|{% for k, v in d.items() %}{{ k }}:{{ v }},{% endfor %}|{{ d.keys()|list }}|{{ d.values()|list }}"
     "|{{ d.get('b') }}|{{ d.get('zz', 'dflt') }}|{{ d|items|list }}", {"d": {"b": 2, "a": 1}}),
    ("numeric filters", "{{ '42'|int + 1 }}|{{ '4.7'|int }}|{{ 'x'|int(7) }}|{{ 3|float }}|{{ 2.675|round(2) }}"
     "|{{ 2.5|round }}|{{ 3.14159|round(2, 'floor') }}|{{ -3|abs }}", {}),
    ("tojson", "{{ data|tojson }}|{{ data|tojson(indent=2) }}|{{ data|tojson(sort_keys=true) }}"
     "|{{ 'é\"\\\\\n\t'|tojson }}|{{ [1.5, none, true]|tojson }}|{{ {}|tojson }}|{{ []|tojson(indent=2) }}",
     {"data": {"name": "f", "args": {"x": [1, 2], "y": None}, "ok": True, "n": 1.0}}),
    ("tojson separators", "{{ {'a': [1, 2]}|tojson(separators=(',', ':')) }}", {}),
    ("indent filter", "{{ 'a\nb\n\nc'|indent(2) }}|{{ 'a\nb'|indent(2, true) }}|{{ 'a\n\nb'|indent(2, blank=true) }}",
     {}),
    ("tests", "{{ x is defined }} {{ y is defined }} {{ y is undefined }} {{ none is none }} {{ 'a' is string }}"
     " {{ 1 is string }} {{ 1 is number }} {{ 1 is integer }} {{ 1.0 is float }} {{ true is boolean }}"
     " {{ {} is mapping }} {{ [] is iterable }} {{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }}"
     " {{ 2 is eq 2 }} {{ 2 is ne 3 }} {{ 1 is lt 2 }} {{ x is not none }} {{ false is false }}"
     " {{ true is true }} {{ 'ab' is lower }} {{ 'AB' is upper }} {{ 1 is in [1] }} {{ 2 is gt(1) }}",
     {"x": 0}),
    ("string methods", "{{ s.startswith('He') }} {{ s.endswith('!') }} {{ s.split(', ') }} {{ 'a b  c '.split() }}"
     " {{ 'a,b,c'.split(',', 1) }} {{ 'a,b,c'.rsplit(',', 1) }} {{ ' x '.strip() }}| {{ 'xxyxx'.lstrip('x') }}"
     " {{ 'xxyxx'.rstrip('x') }} {{ s.replace('l', 'L') }} {{ s.replace('l', 'L', 1) }} {{ s.upper() }}"
     " {{ s.lower() }} {{ 'hello there'.title() }} {{ 'hELLO'.capitalize() }} {{ s.find('o') }} {{ s.rfind('o') }}"
     " {{ s.count('l') }} {{ '-'.join(['a', 'b']) }} {{ 'a\nb\r\nc'.splitlines() }} {{ '12'.isdigit() }}"
     " {{ 'ab'.isalpha() }} {{ '  '.isspace() }} {{ s.startswith(('x', 'H')) }}", {"s": "Hello, world!"}),
    ("slicing", "{{ s[::-1] }}|{{ s[1:3] }}|{{ s[-2:] }}|{{ s[:-2] }}|{{ s[::2] }}|{{ l[::-1] }}|{{ l[1:] }}"
     "|{{ l[-1] }}|{{ l[5] }}|{{ l[1:100] }}|{{ l[::-2] }}|{{ l[-100:1] }}|{{ s[0] }}|{{ t[::-1] }}",
     {"s": "héllo😀!", "l": [1, 2, 3, 4], "t": (1, 2)}),
    ("attribute and item access", "{{ m.a }}|{{ m['a'] }}|{{ m.missing }}|{{ l.0 }}|{{ m.nested.x }}"
     "|{{ none.x }}|{{ [][0] }}|{{ m['nested']['x'] }}", {"m": {"a": 1, "nested": {"x": "y"}}, "l": [5]}),
    ("for loop variables", "{% for x in items %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}"
     "{{ loop.length }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.previtem }}{{ loop.nextitem }};{% endfor %}",
     {"items": ["a", "b", "c"]}),
    ("for else and filter", "{% for x in [] %}no{% else %}empty{% endfor %}|"
     "{% for x in [1, 2, 3, 4] if x is even %}{{ x }}/{{ loop.length }} {% endfor %}", {}),
    ("for over dict and string", "{% for k in {'a': 1, 'b': 2} %}{{ k }}{% endfor %}|{% for c in 'héj' %}[{{ c }}]{% endfor %}",
     {}),
    ("loop controls", "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x > 4 %}{% break %}"
     "{% endif %}{{ x }}{% endfor %}", {}),
    ("nested loops", "{% for a in [1, 2] %}{% for b in 'xy' %}{{ a }}{{ b }}{{ loop.index }} {% endfor %}"
     "{{ loop.index }};{% endfor %}", {}),
    ("loop cycle and changed", "{% for x in [1, 1, 2, 2, 3] %}{{ loop.cycle('a', 'b') }}{% if loop.changed(x) %}*{% endif %}"
     "{% endfor %}", {}),
    ("range", "{{ range(3)|list }} {{ range(1, 7, 2)|list }} {{ range(5, 0, -2)|list }}", {}),
    ("set scoping", "{% set x = 0 %}{% for i in [1, 2] %}{{ x }}{% set x = i %}{{ x }}{% endfor %}{{ x }}"
     "{% if true %}{% set y = 'if-scope' %}{% endif %}|{{ y }}", {}),
    ("set tuple and block", "{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set blk %}inner {{ a }}{% endset %}[{{ blk }}]", {}),
    ("namespace", "{% set ns = namespace(count=0, found=false) %}{% for x in [1, 2, 3] %}{% set ns.count = ns.count + x %}"
     "{% if x == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.count }} {{ ns.found }} {{ ns }}", {}),
    ("macro", "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('A') }} "
     "{{ greet('B', '?') }} {{ greet(name='C', punct='.') }}", {}),
    ("dict and list literals", "{{ {'a': [1, {'b': 2}], 'c': none} }}|{{ [1, 2,] }}|{{ {'x': 1,} }}", {}),
    ("string escapes", "{{ 'tab\\there' }}|{{ \"dq'single\" }}|{{ 'single\\'s' }}|{{ '\\u00e9\\x41' }}"
     "|{{ 'a' 'b' }}", {}),
    ("whitespace control dash", "a  {%- if true -%}  b  {%- endif -%}  c\n{{- ' d ' -}}\n e", {}),
    ("trim_blocks and lstrip_blocks",
     "<ul>\n  {% for x in items %}\n    <li>{{ x }}</li>\n  {% endfor %}\n</ul>\n", {"items": [1, 2]}),
    ("lstrip only before block tags", "line\n    {{ 'kept indent' }}\n    {% if true %}\nbody\n    {% endif %}\nend", {}),
    ("plus disables stripping", "a\n  {%+ if true +%}\nb\n  {%+ endif %}\nc", {}),
    ("comments", "a\n  {# a comment #}\n  b{#- trimmed -#}   c", {}),
    ("raw block", "{% raw %}{{ not rendered }} {% if %}{% endraw %}|", {}),
    ("generation block", "{% generation %}assistant text{% endgeneration %}", {}),
    ("unicode data", "{{ greeting }} — 你好 😀 {{ greeting|length }}", {"greeting": "héllo 😀"}),
    ("crlf newlines", "a\r\n{% if true %}\r\nb\r\n{% endif %}\r\nc\r\n", {}),
    ("trailing newline dropped", "x\n\n", {}),
    ("chained postfix after filter", "{{ ('a,b'|upper).split(',')[1] }}", {}),
    ("integer dotted access", "{{ pairs.1.0 }}", {"pairs": [[1, 2], [3, 4]]}),
]

# Templates that must fail in both engines (the Java side checks for a TemplateException).
ERRORS = [
    ("undefined attribute of undefined", "{{ nothing.attr }}", {}),
    ("str plus int", "{{ 'a' + 1 }}", {}),
    ("raise_exception", "{{ raise_exception('bad role') }}", {}),
    ("call undefined method", "{{ 'x'.nomethod() }}", {}),
    ("set attribute on dict", "{% set d = {} %}{% set d.x = 1 %}", {}),
    ("unknown filter", "{{ 1|nosuchfilter }}", {}),
    ("unknown test", "{{ 1 is nosuchtest }}", {}),
    ("unclosed if", "{% if true %}x", {}),
    ("unclosed print", "{{ x ", {}),
    ("unsupported include", "{% include 'other.jinja' %}", {}),
    ("bad bracket", "{{ [1, 2) }}", {}),
    ("none not iterable", "{% for x in none %}{% endfor %}", {}),
    ("compare str int", "{{ 'a' < 1 }}", {}),
    ("break outside loop", "{% break %}", {}),
]


def qwen3_cases():
    with open(QWEN3_CONFIG, encoding="utf-8") as f:
        template = json.load(f)["chat_template"]
    compiled = ENV.from_string(template)
    think_answer = "<think>\nI should check the board.\n</think>\n\nI play the center."
    convs = [
        ("single user, generation prompt, thinking on", [{"role": "user", "content": "Play Kuhn poker."}], True, True),
        ("single user, generation prompt, thinking off", [{"role": "user", "content": "Play Kuhn poker."}], True, False),
        ("single user, generation prompt, thinking unset", [{"role": "user", "content": "Play Kuhn poker."}], True, None),
        ("single user, no generation prompt", [{"role": "user", "content": "Play Kuhn poker."}], False, False),
        ("system user assistant user", [
            {"role": "system", "content": "You are a careful player."},
            {"role": "user", "content": "Your move?"},
            {"role": "assistant", "content": "<action>B2</action>"},
            {"role": "user", "content": "And now?"}], True, True),
        ("reasoning in an earlier assistant turn", [
            {"role": "user", "content": "Move 1?"},
            {"role": "assistant", "content": think_answer},
            {"role": "user", "content": "Move 2?"}], True, True),
        ("reasoning in the final assistant turn", [
            {"role": "user", "content": "Move 1?"},
            {"role": "assistant", "content": think_answer}], False, True),
        ("plain final assistant turn", [
            {"role": "user", "content": "Move 1?"},
            {"role": "assistant", "content": "B2"}], False, True),
        ("tool response turns", [
            {"role": "user", "content": "What is the weather?"},
            {"role": "assistant", "content": "Let me look."},
            {"role": "tool", "content": "sunny"},
            {"role": "tool", "content": "22C"},
            {"role": "assistant", "content": "<think>\nsunny and warm\n</think>\n\nIt is sunny, 22C."}], True, False),
        ("unicode and whitespace content", [
            {"role": "user", "content": "  héllo 😀\n\n\tindent  "}], True, True),
        ("system only", [{"role": "system", "content": "S"}], True, True),
    ]
    out = []
    for name, messages, add_gen, thinking in convs:
        kwargs = {"messages": messages, "tools": None, "documents": None, "add_generation_prompt": add_gen,
                  "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
        if thinking is not None:
            kwargs["enable_thinking"] = thinking
        out.append({"name": name, "messages": messages, "add_generation_prompt": add_gen,
                    "enable_thinking": thinking, "expected": compiled.render(**kwargs)})
    return out


def main():
    cases = []
    for name, template, variables in CASES:
        cases.append({"name": name, "template": template, "variables": variables,
                      "expected": ENV.from_string(template).render(**variables)})
    errors = []
    for name, template, variables in ERRORS:
        try:
            ENV.from_string(template).render(**variables)
        except Exception as e:  # noqa: BLE001 - any Jinja2 failure counts
            errors.append({"name": name, "template": template, "variables": variables,
                           "jinja2_error": type(e).__name__ + ": " + str(e)})
            continue
        raise SystemExit("expected an error from Jinja2 for case: " + name)
    doc = {"generator": "src/test/python/generate_jinja_fixtures.py", "jinja2_version": jinja2.__version__,
           "cases": cases, "errors": errors, "qwen3": qwen3_cases()}
    for out in OUTS:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print("wrote", os.path.normpath(out), len(cases), "cases,", len(errors), "error cases,", len(doc["qwen3"]),
              "qwen3 cases")


if __name__ == "__main__":
    main()
