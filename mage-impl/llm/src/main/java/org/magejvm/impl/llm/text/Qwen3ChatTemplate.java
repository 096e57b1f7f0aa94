package org.magejvm.impl.llm.text;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A built-in Java renderer of the Qwen3 ChatML format, used when a checkpoint's {@code tokenizer_config.json} has
 * no {@code chat_template}. For conversations of {@code system}, {@code user}, {@code assistant} and {@code tool}
 * messages it produces exactly what the official Qwen3 Jinja template produces (tests check this against the real
 * template):
 *
 * <ul>
 *   <li>each turn is {@code <|im_start|>ROLE\nCONTENT<|im_end|>\n}; a leading system message opens the prompt;
 *   <li>consecutive {@code tool} messages are wrapped in {@code <tool_response>} blocks inside one user turn;
 *   <li>an assistant message's {@code <think>...</think>} reasoning is dropped for turns before the last real user
 *       query and kept (re-formatted as {@code <think>\nREASONING\n</think>\n\n}) after it; the final assistant
 *       message always gets a think block, empty when it has no reasoning;
 *   <li>with a generation prompt the text ends in {@code <|im_start|>assistant\n}, followed by an empty
 *       {@code <think>\n\n</think>\n\n} when the variable {@code enable_thinking} is {@code false}.
 * </ul>
 *
 * <p>Tool definitions ({@code tools}) are not supported here; a checkpoint that needs them carries its own template.
 */
public final class Qwen3ChatTemplate implements ChatTemplate {

  private static final Qwen3ChatTemplate INSTANCE = new Qwen3ChatTemplate();
  private static final String START = "<|im_start|>";
  private static final String END = "<|im_end|>";

  private Qwen3ChatTemplate() {}

  /** @return the renderer */
  public static Qwen3ChatTemplate builtIn() {
    return INSTANCE;
  }

  @Override
  public Optional<String> endOfTurnToken() {
    return Optional.of(END);
  }

  @Override
  public String render(List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> variables) {
    if (variables.get("tools") != null) {
      throw new IllegalArgumentException("the built-in Qwen3 renderer does not support tool definitions; "
          + "use the checkpoint's own chat template");
    }
    Object thinking = variables.get(ENABLE_THINKING);
    if (thinking != null && !(thinking instanceof Boolean)) {
      throw new IllegalArgumentException(ENABLE_THINKING + " must be a Boolean, got " + thinking.getClass());
    }
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a conversation needs at least one message");
    }
    StringBuilder sb = new StringBuilder();
    int n = messages.size();
    if (messages.get(0).role().equals("system")) {
      sb.append(START).append("system\n").append(messages.get(0).content()).append(END).append('\n');
    }
    int lastQuery = n - 1;
    for (int i = n - 1; i >= 0; i--) {
      ChatMessage m = messages.get(i);
      String c = m.content();
      if (m.role().equals("user") && !(c.startsWith("<tool_response>") && c.endsWith("</tool_response>"))) {
        lastQuery = i;
        break;
      }
    }
    for (int i = 0; i < n; i++) {
      ChatMessage m = messages.get(i);
      switch (m.role()) {
        case "user":
          turn(sb, m);
          break;
        case "system":
          if (i > 0) {
            turn(sb, m);
          }
          break;
        case "assistant":
          assistant(sb, m.content(), i > lastQuery, i == n - 1);
          break;
        case "tool":
          if (i == 0 || !messages.get(i - 1).role().equals("tool")) {
            sb.append(START).append("user");
          }
          sb.append("\n<tool_response>\n").append(m.content()).append("\n</tool_response>");
          if (i == n - 1 || !messages.get(i + 1).role().equals("tool")) {
            sb.append(END).append('\n');
          }
          break;
        default:
          throw new IllegalArgumentException("message " + i + " has role '" + m.role()
              + "'; the Qwen3 format knows system, user, assistant and tool");
      }
    }
    if (addGenerationPrompt) {
      sb.append(START).append("assistant\n");
      if (Boolean.FALSE.equals(thinking)) {
        sb.append("<think>\n\n</think>\n\n");
      }
    }
    return sb.toString();
  }

  private static void turn(StringBuilder sb, ChatMessage m) {
    sb.append(START).append(m.role()).append('\n').append(m.content()).append(END).append('\n');
  }

  private static void assistant(StringBuilder sb, String raw, boolean afterLastQuery, boolean last) {
    String content = raw;
    String reasoning = "";
    int close = raw.lastIndexOf("</think>");
    if (close >= 0) {
      content = stripLeading(raw.substring(close + "</think>".length()), '\n');
      String before = stripTrailing(raw.substring(0, raw.indexOf("</think>")), '\n');
      int open = before.lastIndexOf("<think>");
      reasoning = stripLeading(open >= 0 ? before.substring(open + "<think>".length()) : before, '\n');
    }
    sb.append(START).append("assistant\n");
    if (afterLastQuery && (last || !reasoning.isEmpty())) {
      sb.append("<think>\n").append(stripTrailing(stripLeading(reasoning, '\n'), '\n')).append("\n</think>\n\n")
          .append(stripLeading(content, '\n'));
    } else {
      sb.append(content);
    }
    sb.append(END).append('\n');
  }

  private static String stripLeading(String s, char c) {
    int i = 0;
    while (i < s.length() && s.charAt(i) == c) {
      i++;
    }
    return s.substring(i);
  }

  private static String stripTrailing(String s, char c) {
    int j = s.length();
    while (j > 0 && s.charAt(j - 1) == c) {
      j--;
    }
    return s.substring(0, j);
  }
}
