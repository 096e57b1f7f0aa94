package org.magejvm.impl.agentgym;

import java.util.Locale;
import org.magejvm.spi.ActionParser;
import org.magejvm.spi.ParsedAction;

/**
 * Reads the action of a WebShop or ALFWorld response as the reference's {@code webshop_projection} and {@code
 * alfworld_projection} do: the text between the first {@code <action>} and the first {@code </action>} (tags
 * matched case-insensitively), stripped and lower-cased. A response without both tags, or with an empty action, is
 * invalid. Whether the action is admissible is the server's business, as in the reference: an inadmissible one is
 * sent and the server answers that nothing happened.
 */
public final class TagActionParser implements ActionParser<String> {

  /** The longest action text read; a longer one is invalid (no admissible WebShop or ALFWorld action is near it). */
  public static final int MAX_ACTION_CHARS = 2000;

  private static final String OPEN = "<action>";
  private static final String CLOSE = "</action>";

  @Override
  public ParsedAction<String> parse(String response) {
    if (response == null) {
      return ParsedAction.failure("", "no response");
    }
    String lower = response.toLowerCase(Locale.ROOT);
    int start = lower.indexOf(OPEN);
    int end = lower.indexOf(CLOSE);
    if (start < 0 || end < 0) {
      String tail = lower.length() > 20 ? lower.substring(lower.length() - 20) : lower;
      return ParsedAction.failure(tail.strip(), "no <action>...</action> in the response");
    }
    if (end < start + OPEN.length()) {
      return ParsedAction.failure("", "</action> comes before <action>");
    }
    String action = lower.substring(start + OPEN.length(), end).strip();
    if (action.isEmpty()) {
      return ParsedAction.failure("", "the <action></action> tags are empty");
    }
    if (action.length() > MAX_ACTION_CHARS) {
      return ParsedAction.failure(action.substring(0, 40) + "...", "the action is longer than " + MAX_ACTION_CHARS
          + " characters");
    }
    return ParsedAction.of(action, action);
  }
}
