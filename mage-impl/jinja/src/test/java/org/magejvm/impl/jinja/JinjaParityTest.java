package org.magejvm.impl.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Renders every case of {@code jinja/jinja2-parity.json} and compares byte for byte with what the reference Jinja2
 * engine produced (see {@code src/test/python/generate_jinja_fixtures.py}).
 */
class JinjaParityTest {

  private static JsonObject fixtures() {
    try (InputStream in = JinjaParityTest.class.getResourceAsStream("/jinja/jinja2-parity.json")) {
      return new Gson().fromJson(new InputStreamReader(in, StandardCharsets.UTF_8), JsonObject.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> variables(JsonElement json) {
    return (Map<String, Object>) toJava(json);
  }

  /** JSON to Java keeping Python's int/float distinction (a number written with '.' or 'e' is a float). */
  static Object toJava(JsonElement e) {
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (e.isJsonObject()) {
      Map<String, Object> m = new java.util.LinkedHashMap<>();
      e.getAsJsonObject().entrySet().forEach(x -> m.put(x.getKey(), toJava(x.getValue())));
      return m;
    }
    if (e.isJsonArray()) {
      List<Object> l = new java.util.ArrayList<>();
      e.getAsJsonArray().forEach(x -> l.add(toJava(x)));
      return l;
    }
    JsonPrimitive p = e.getAsJsonPrimitive();
    if (p.isBoolean()) {
      return p.getAsBoolean();
    }
    if (p.isNumber()) {
      String s = p.getAsString();
      boolean isFloat = s.contains(".") || s.contains("e") || s.contains("E");
      return isFloat ? (Object) p.getAsDouble() : (Object) p.getAsLong();
    }
    return p.getAsString();
  }

  static Stream<Arguments> cases() {
    JsonArray arr = fixtures().getAsJsonArray("cases");
    return arr.asList().stream().map(JsonElement::getAsJsonObject).map(c -> Arguments.of(
        c.get("name").getAsString(), c.get("template").getAsString(), c.get("variables"),
        c.get("expected").getAsString()));
  }

  static Stream<Arguments> errors() {
    JsonArray arr = fixtures().getAsJsonArray("errors");
    return arr.asList().stream().map(JsonElement::getAsJsonObject).map(c -> Arguments.of(
        c.get("name").getAsString(), c.get("template").getAsString(), c.get("variables"),
        c.get("jinja2_error").getAsString()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void rendersLikeJinja2(String name, String template, JsonElement vars, String expected) {
    Map<String, Object> v = variables(vars);
    if (name.equals("slicing")) {
      // Python passed a tuple; JSON turned it into a list.
      v.put("t", new Tuple(List.of(1L, 2L)));
    }
    assertThat(JinjaTemplate.parse(template).render(v)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void failsLikeJinja2(String name, String template, JsonElement vars, String jinja2Error) {
    assertThatThrownBy(() -> JinjaTemplate.parse(template).render(variables(vars)))
        .as("Jinja2 failed with: %s", jinja2Error)
        .isInstanceOf(TemplateException.class)
        .hasMessageContaining("line 1");
  }
}
