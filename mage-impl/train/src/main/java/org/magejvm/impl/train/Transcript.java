package org.magejvm.impl.train;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.magejvm.impl.llm.text.ChatMessage;

/**
 * One chat conversation, as a line of a Hugging Face {@code messages} JSON-lines file holds it.
 *
 * @param messages the messages, oldest first; at least one, each with one of the {@link #ROLES}
 */
public record Transcript(List<ChatMessage> messages) {

  /** The roles a message may have. */
  public static final Set<String> ROLES = Set.of("system", "user", "assistant", "tool");

  /** The role whose messages supervised training learns to produce. */
  public static final String ASSISTANT = "assistant";

  /**
   * Validates and copies.
   *
   * @param messages the messages
   * @throws IllegalArgumentException naming the message when there is none or a role is unknown
   */
  public Transcript {
    Objects.requireNonNull(messages, "messages");
    messages = List.copyOf(messages);
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a transcript needs at least one message");
    }
    for (int i = 0; i < messages.size(); i++) {
      String role = messages.get(i).role();
      if (!ROLES.contains(role)) {
        throw new IllegalArgumentException("message " + i + " has role '" + role
            + "'; expected one of system, user, assistant, tool");
      }
    }
  }

  /**
   * @param messages the messages, oldest first
   * @return the transcript
   * @throws IllegalArgumentException as the constructor
   */
  public static Transcript of(ChatMessage... messages) {
    return new Transcript(List.of(messages));
  }

  /** @return the number of assistant messages (the turns supervised training learns from) */
  public int assistantTurns() {
    int n = 0;
    for (ChatMessage m : messages) {
      if (m.role().equals(ASSISTANT)) {
        n++;
      }
    }
    return n;
  }
}
