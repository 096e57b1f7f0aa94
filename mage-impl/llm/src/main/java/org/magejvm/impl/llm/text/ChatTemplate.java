package org.magejvm.impl.llm.text;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a conversation into the exact prompt text a chat model was trained on, like {@code transformers}'
 * {@code apply_chat_template(..., tokenize=False)}.
 *
 * <p>Implementations: {@link JinjaChatTemplate} (a checkpoint's own template) and {@link Qwen3ChatTemplate} (a
 * built-in renderer for checkpoints without one). Implementations are immutable and thread-safe.
 */
public interface ChatTemplate {

  /** The template variable Qwen3 reads to switch reasoning off ({@code false}) or on. */
  String ENABLE_THINKING = "enable_thinking";

  /**
   * Renders a conversation.
   *
   * @param messages the conversation, oldest first
   * @param addGenerationPrompt whether to end with the header of a new assistant turn
   * @param variables extra template variables, such as {@value #ENABLE_THINKING}
   * @return the prompt text
   */
  String render(List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> variables);

  /**
   * Renders a conversation without extra variables.
   *
   * @param messages the conversation, oldest first
   * @param addGenerationPrompt whether to end with the header of a new assistant turn
   * @return the prompt text
   */
  default String render(List<ChatMessage> messages, boolean addGenerationPrompt) {
    return render(messages, addGenerationPrompt, Map.of());
  }

  /** @return the token text that closes a turn in this template (for ChatML, {@code <|im_end|>}), if known */
  Optional<String> endOfTurnToken();
}
