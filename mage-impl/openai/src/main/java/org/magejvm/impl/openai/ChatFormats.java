package org.magejvm.impl.openai;

import java.util.function.UnaryOperator;
import org.magejvm.api.annotation.Api;

/**
 * Prompt formatters for {@link OpenAiCompletionsPolicy.Builder#optPromptFormatter} that need no model files: each
 * wraps a prompt as the single user message {@code DjlLanguagePolicy} sends, in a model family's chat format, so a
 * host without DJL sends what the in-process policy would.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class ChatFormats {
  private ChatFormats() {}

  /**
   * Qwen3's ChatML with the generation prompt: {@code <|im_start|>user\nPROMPT<|im_end|>\n<|im_start|>assistant\n},
   * followed by an empty {@code <think>\n\n</think>\n\n} when thinking is off, as Qwen3's chat template renders one
   * user message.
   *
   * @param enableThinking the template's {@code enable_thinking}
   * @return the formatter
   */
  public static UnaryOperator<String> qwen3(boolean enableThinking) {
    String tail = enableThinking ? "" : "<think>\n\n</think>\n\n";
    return prompt -> "<|im_start|>user\n" + prompt + "<|im_end|>\n<|im_start|>assistant\n" + tail;
  }
}
