package org.magejvm.impl.llm.text;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * One message of a chat conversation, as chat templates see it ({@code {"role": ..., "content": ...}}).
 *
 * @param role {@code system}, {@code user}, {@code assistant} or {@code tool}
 * @param content the message text
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record ChatMessage(String role, String content) {

  /**
   * Validates.
   *
   * @param role role
   * @param content content
   */
  public ChatMessage {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
    if (role.isBlank()) {
      throw new IllegalArgumentException("role must not be blank");
    }
  }

  /**
   * @param content the text
   * @return a user message
   */
  public static ChatMessage user(String content) {
    return new ChatMessage("user", content);
  }

  /**
   * @param content the text
   * @return a system message
   */
  public static ChatMessage system(String content) {
    return new ChatMessage("system", content);
  }

  /**
   * @param content the text, possibly with a {@code <think>...</think>} block in front
   * @return an assistant message
   */
  public static ChatMessage assistant(String content) {
    return new ChatMessage("assistant", content);
  }
}
