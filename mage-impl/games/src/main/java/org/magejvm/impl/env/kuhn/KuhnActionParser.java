package org.magejvm.impl.env.kuhn;

import java.util.Optional;
import org.magejvm.spi.ActionParser;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.Tags;

/**
 * Reads a Kuhn Poker action as the reference does: the text between the first {@code <action>} and the first
 * {@code </action>} after it, stripped of surrounding white space, must be exactly {@code PASS} or {@code BET}
 * (upper case). Anything else is a failure; the parser never throws and is linear in the text length.
 */
final class KuhnActionParser implements ActionParser<KuhnAction> {

  /** The longest excerpt of unreadable action text kept for histories and messages. */
  public static final int MAX_ECHO = 40;

  @Override
  public ParsedAction<KuhnAction> parse(String response) {
    if (response == null) {
      return ParsedAction.failure("", "the response is empty");
    }
    Optional<String> inside = Tags.first(response, "action");
    if (inside.isEmpty()) {
      return ParsedAction.failure("", "no <action>...</action> block was found");
    }
    String text = inside.get().strip();
    if (text.equals("PASS")) {
      return ParsedAction.of(KuhnAction.PASS, "PASS");
    }
    if (text.equals("BET")) {
      return ParsedAction.of(KuhnAction.BET, "BET");
    }
    String echo = Tags.abbreviate(text, MAX_ECHO);
    return ParsedAction.failure(echo,
        "the action must be exactly PASS or BET in capital letters, but the <action> block holds '" + echo + "'");
  }
}
