package org.magejvm.impl.env.sokoban;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.magejvm.spi.ActionParser;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.Tags;

/**
 * Reads the moves of one Sokoban turn from a response, with the reference rule:
 * <ol>
 *   <li>take the text between the first {@code <action>} and the last {@code </action>} ({@link Tags#outermost});
 *   <li>lower-case it and split it on commas;
 *   <li>in each piece, the move is the first of {@code up}, {@code down}, {@code left}, {@code right}, {@code still}
 *       (checked in that order) that occurs anywhere in the piece, so {@code "move UP!"} reads as up and {@code
 *       "right, then down"} as right, down; pieces without any of the words are skipped;
 *   <li>keep the first {@code movesPerTurn} moves found.
 * </ol>
 * The action is valid when at least one move was found. Never throws; linear in the length of the response.
 */
final class SokobanParser implements ActionParser<List<Move>> {

  private static final Move[] KEYWORD_ORDER = {Move.UP, Move.DOWN, Move.LEFT, Move.RIGHT, Move.STILL};
  private static final int ECHO_CHARS = 120;

  private final int movesPerTurn;

  /**
   * @param movesPerTurn the most moves kept
   * @throws IllegalArgumentException if it is not positive
   */
  public SokobanParser(int movesPerTurn) {
    if (movesPerTurn < 1) {
      throw new IllegalArgumentException("movesPerTurn must be >= 1, got " + movesPerTurn);
    }
    this.movesPerTurn = movesPerTurn;
  }

  /** @return the most moves kept per turn */
  public int movesPerTurn() {
    return movesPerTurn;
  }

  @Override
  public ParsedAction<List<Move>> parse(String response) {
    if (response == null) {
      return ParsedAction.failure("", "no response text");
    }
    Optional<String> block = Tags.outermost(response, "action");
    if (block.isEmpty()) {
      return ParsedAction.failure("", "no <action>...</action> block found");
    }
    String text = block.get().toLowerCase(Locale.ROOT);
    List<Move> moves = new ArrayList<>(movesPerTurn);
    int start = 0;
    while (start <= text.length() && moves.size() < movesPerTurn) {
      int end = text.indexOf(',', start);
      if (end < 0) {
        end = text.length();
      }
      Move m = keyword(text.substring(start, end));
      if (m != null) {
        moves.add(m);
      }
      start = end + 1;
    }
    if (moves.isEmpty()) {
      return ParsedAction.failure(Tags.abbreviate(block.get().strip(), ECHO_CHARS),
          "no move word (up, down, left, right or still) inside the action block");
    }
    return ParsedAction.of(Collections.unmodifiableList(moves), Move.join(moves));
  }

  private static Move keyword(String piece) {
    for (Move m : KEYWORD_ORDER) {
      if (piece.contains(m.word())) {
        return m;
      }
    }
    return null;
  }
}
