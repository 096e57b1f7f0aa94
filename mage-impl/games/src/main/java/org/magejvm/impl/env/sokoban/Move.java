package org.magejvm.impl.env.sokoban;

import org.magejvm.api.annotation.Api;

/**
 * One primitive Sokoban move. {@link #STILL} spends a move without going anywhere (the reference environment's
 * "no operation").
 */
@Api(status = Api.Status.INTERNAL)
public enum Move {
  /** One row up (towards row 0). */
  UP("up", -1, 0),
  /** One row down. */
  DOWN("down", 1, 0),
  /** One column left. */
  LEFT("left", 0, -1),
  /** One column right. */
  RIGHT("right", 0, 1),
  /** Stay in place. */
  STILL("still", 0, 0);

  /** The four moves that go somewhere, in the order the parser checks them. */
  static final Move[] DIRECTIONS = {UP, DOWN, LEFT, RIGHT};

  private final String word;
  private final int rowDelta;
  private final int colDelta;

  Move(String word, int rowDelta, int colDelta) {
    this.word = word;
    this.rowDelta = rowDelta;
    this.colDelta = colDelta;
  }

  /** @return the lower-case word used in prompts and actions, for example {@code up} */
  public String word() {
    return word;
  }

  /** @return the change of the row index (-1, 0 or 1) */
  public int rowDelta() {
    return rowDelta;
  }

  /** @return the change of the column index (-1, 0 or 1) */
  public int colDelta() {
    return colDelta;
  }

  /**
   * The offset of this move in a row-major cell index.
   *
   * @param cols the number of columns of the room
   * @return the index change
   */
  int offset(int cols) {
    return rowDelta * cols + colDelta;
  }

  /**
   * Joins moves the way histories show them: {@code up, up, left}.
   *
   * @param moves the moves
   * @return the canonical text
   */
  public static String join(Iterable<Move> moves) {
    StringBuilder sb = new StringBuilder();
    for (Move m : moves) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(m.word);
    }
    return sb.toString();
  }
}
