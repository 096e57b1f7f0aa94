package org.magejvm.impl.env;

import java.util.Optional;
import org.magejvm.api.annotation.Api;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.Tags;

/**
 * The answers of the sanity games, one whole number from 1 to N inside {@code <action></action>}: how they are read
 * and which are legal. Guess the Number and Goalkeeper differ only in what they call the number.
 */
@Api(status = Api.Status.INTERNAL)
public final class NumberAnswer {

  private static final int MAX_ECHO = 40;

  private NumberAnswer() {}

  /**
   * The best history-blind answer of a sanity game: a different number in each attempt (1, 2, 3, ...), so k attempts
   * cover k numbers.
   *
   * @param max N
   * @param attempt the attempt index
   * @return the attempt's number
   */
  public static int sweep(int max, int attempt) {
    return 1 + Math.floorMod(attempt, max);
  }

  /**
   * Reads a number from 1 to {@code max} inside {@code <action></action>}.
   *
   * @param response the response text
   * @param max the largest number
   * @param what what the block must hold, for the message ("a whole number", "a spot number")
   * @param noun what the number is, for the out-of-range message ("guess", "spot")
   * @return the number, or a failure saying what is wrong
   */
  public static ParsedAction<Integer> parse(String response, int max, String what, String noun) {
    if (response == null || response.isEmpty()) {
      return ParsedAction.failure("", "the response is empty");
    }
    Optional<String> inside = Tags.first(response, "action");
    if (inside.isEmpty()) {
      return ParsedAction.failure("", "no <action>...</action> block was found");
    }
    String text = inside.get().strip();
    String echo = Tags.abbreviate(text, MAX_ECHO);
    if (!text.matches("[0-9]{1,4}")) {
      return ParsedAction.failure(echo, "the action must be " + what + " from 1 to " + max + ", but the <action>"
          + " block holds '" + echo + "'");
    }
    int n = Integer.parseInt(text);
    if (n < 1 || n > max) {
      return ParsedAction.failure(echo, "the " + noun + " must be from 1 to " + max + ", got " + n);
    }
    return ParsedAction.of(n, Integer.toString(n));
  }
}
