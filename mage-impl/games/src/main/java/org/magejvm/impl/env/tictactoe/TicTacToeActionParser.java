package org.magejvm.impl.env.tictactoe;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.magejvm.spi.ActionParser;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.Tags;

/**
 * Reads a Tic-Tac-Toe move from a response, following the reference rule: take the text between the first
 * {@code <action>} and the first {@code </action>} after it (tags are case-sensitive), then the first
 * {@code (row, col)} pair in it, 1-indexed, with any whitespace (newlines included) around the numbers.
 *
 * <p>Like Python's {@code re} on text, digits and whitespace are matched in the Unicode sense. A pair whose numbers
 * lie outside 1..3 (including numbers too long for any integer type) is a failure whose text shows what was read,
 * for example {@code (4, 1)}; an occupied cell is the environment's business. Never throws; runs in time linear in
 * the length of the text.
 */
final class TicTacToeActionParser implements ActionParser<Cell> {

  /** The tag name: actions are written {@code <action>(row, col)</action>}. */
  public static final String TAG = "action";

  private static final Pattern PAIR =
      Pattern.compile("\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)", Pattern.UNICODE_CHARACTER_CLASS);
  /** The most characters of a number kept in history text. */
  private static final int MAX_NUMBER_TEXT = 12;

  /** Creates a parser; it holds no state and may be shared. */
  public TicTacToeActionParser() {}

  @Override
  public ParsedAction<Cell> parse(String response) {
    if (response == null) {
      return ParsedAction.failure("", "the response is empty");
    }
    Optional<String> inner = Tags.first(response, TAG);
    if (inner.isEmpty()) {
      return ParsedAction.failure("", "no <action>...</action> block was found");
    }
    Matcher m = PAIR.matcher(inner.get());
    if (!m.find()) {
      return ParsedAction.failure("", "no (row, col) pair was found inside <action></action>: '"
          + Tags.abbreviate(inner.get().strip(), 40) + "'");
    }
    String row = normalise(m.group(1));
    String col = normalise(m.group(2));
    String text = "(" + Tags.abbreviate(row, MAX_NUMBER_TEXT) + ", " + Tags.abbreviate(col, MAX_NUMBER_TEXT) + ")";
    int r = smallValue(row);
    int c = smallValue(col);
    if (r < 1 || c < 1) {
      String what = r < 1 && c < 1 ? "row and column are" : r < 1 ? "row is" : "column is";
      return ParsedAction.failure(text, "move " + text + " is off the board: the " + what
          + " outside 1..3");
    }
    return ParsedAction.of(new Cell(r - 1, c - 1), text);
  }

  /** Turns a run of (possibly non-ASCII) decimal digits into ASCII digits without leading zeros. */
  private static String normalise(String digits) {
    StringBuilder sb = new StringBuilder(Math.min(digits.length(), 16));
    for (int i = 0; i < digits.length(); ) {
      int cp = digits.codePointAt(i);
      i += Character.charCount(cp);
      int d = Character.digit(cp, 10);
      if (d < 0) {
        d = 0; // defensive: the pattern matches decimal digits only
      }
      if (sb.length() == 0 && d == 0) {
        continue;
      }
      sb.append((char) ('0' + d));
      if (sb.length() > MAX_NUMBER_TEXT) {
        break; // far outside the board; keep only what the history text shows
      }
    }
    return sb.length() == 0 ? "0" : sb.toString();
  }

  /** @return the value 1..3, or 0 when the number is outside the board */
  private static int smallValue(String normalised) {
    if (normalised.length() != 1) {
      return 0;
    }
    int v = normalised.charAt(0) - '0';
    return v >= 1 && v <= Board.SIZE ? v : 0;
  }
}
