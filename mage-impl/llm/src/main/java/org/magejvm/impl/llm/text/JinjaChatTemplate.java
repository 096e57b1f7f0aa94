package org.magejvm.impl.llm.text;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.magejvm.impl.jinja.JinjaTemplate;
import org.magejvm.impl.jinja.TemplateException;
import org.magejvm.impl.jinja.TemplateLimits;

/**
 * A checkpoint's own Jinja chat template, rendered with our interpreter ({@link JinjaTemplate}) and the variables
 * {@code transformers} passes: {@code messages}, {@code tools} and {@code documents} (both none),
 * {@code add_generation_prompt}, the special-token strings, and any extra variables.
 */
public final class JinjaChatTemplate implements ChatTemplate {

  /** Turn-closing markers of common chat formats, looked for in the template text. */
  private static final List<String> END_OF_TURN_MARKERS =
      List.of("<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>");
  private static final Set<String> RESERVED = Set.of("messages", "add_generation_prompt");
  private static final String QWEN3_RESOURCE = "qwen3_chat_template.jinja";

  private final JinjaTemplate template;
  private final Map<String, String> specialTokens;

  private JinjaChatTemplate(JinjaTemplate template, Map<String, String> specialTokens) {
    this.template = template;
    this.specialTokens = Map.copyOf(specialTokens);
  }

  /**
   * Parses a chat template.
   *
   * @param source the Jinja source
   * @param specialTokens variables such as {@code eos_token}, see {@link TokenizerConfig#specialTokenVariables()}
   * @return the template
   * @throws TemplateException when the template uses syntax the interpreter does not support
   */
  public static JinjaChatTemplate of(String source, Map<String, String> specialTokens) {
    return of(source, specialTokens, null);
  }

  /**
   * Parses a chat template that has a name for messages, with the default {@link TemplateLimits} (a chat template
   * comes with a downloaded model and is untrusted code).
   *
   * @param source the Jinja source
   * @param specialTokens variables such as {@code eos_token}, see {@link TokenizerConfig#specialTokenVariables()}
   * @param name what parse and render errors call the template, for example the file it came from, or null
   * @return the template
   * @throws TemplateException naming the template when it uses syntax the interpreter does not support or nests
   *     beyond the limits
   */
  public static JinjaChatTemplate of(String source, Map<String, String> specialTokens, String name) {
    Objects.requireNonNull(source, "source");
    return new JinjaChatTemplate(JinjaTemplate.parse(source, name, TemplateLimits.defaults()), specialTokens);
  }

  /**
   * The Qwen3 chat template as published with the Qwen3 checkpoints (a copy ships with this library; Qwen3 is
   * licensed Apache-2.0), with Qwen3's special tokens ({@code eos_token = <|im_end|>}, {@code pad_token =
   * <|endoftext|>}).
   *
   * @return the template
   */
  public static JinjaChatTemplate qwen3() {
    return of(qwen3Source(), Map.of("eos_token", "<|im_end|>", "pad_token", "<|endoftext|>"), QWEN3_RESOURCE);
  }

  /** @return the text of the bundled Qwen3 chat template */
  public static String qwen3Source() {
    try (InputStream in = JinjaChatTemplate.class.getResourceAsStream(QWEN3_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("resource " + QWEN3_RESOURCE + " is missing from the mage-llm jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** @return the template source */
  public String source() {
    return template.source();
  }

  @Override
  public String render(List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> variables) {
    for (String k : variables.keySet()) {
      if (RESERVED.contains(k)) {
        throw new IllegalArgumentException("variable '" + k + "' is set by the renderer and cannot be overridden");
      }
    }
    List<Map<String, Object>> msgs = new ArrayList<>(messages.size());
    for (ChatMessage m : messages) {
      Map<String, Object> mm = new LinkedHashMap<>();
      mm.put("role", m.role());
      mm.put("content", m.content());
      msgs.add(mm);
    }
    Map<String, Object> vars = new HashMap<>(specialTokens);
    vars.put("tools", null);
    vars.put("documents", null);
    vars.putAll(variables);
    vars.put("messages", msgs);
    vars.put("add_generation_prompt", addGenerationPrompt);
    return template.render(vars);
  }

  @Override
  public Optional<String> endOfTurnToken() {
    return END_OF_TURN_MARKERS.stream().filter(template.source()::contains).findFirst();
  }
}
