package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * A cell of the 3x3 board, 0-indexed. Its canonical text, as prompts and histories show it, is 1-indexed: the
 * top-left cell {@code Cell(0, 0)} reads {@code (1, 1)}.
 *
 * @param row the 0-based row, 0 to 2 from top to bottom
 * @param col the 0-based column, 0 to 2 from left to right
 */
@Api(status = Api.Status.INTERNAL)
public record Cell(int row, int col) {

  private static final List<Cell> ALL;

  static {
    List<Cell> all = new ArrayList<>(Board.CELLS);
    for (int i = 0; i < Board.CELLS; i++) {
      all.add(new Cell(i / Board.SIZE, i % Board.SIZE));
    }
    ALL = Collections.unmodifiableList(all);
  }

  /**
   * Validates.
   *
   * @param row row, 0 to 2
   * @param col column, 0 to 2
   */
  public Cell {
    if (row < 0 || row >= Board.SIZE || col < 0 || col >= Board.SIZE) {
      throw new IllegalArgumentException(
          "a Tic-Tac-Toe cell needs a 0-based row and column in 0..2, got row " + row + ", column " + col);
    }
  }

  /**
   * @param index the cell index {@code row * 3 + col}, 0 to 8
   * @return the cell
   * @throws IllegalArgumentException if the index is outside 0..8
   */
  public static Cell of(int index) {
    if (index < 0 || index >= Board.CELLS) {
      throw new IllegalArgumentException("a Tic-Tac-Toe cell index must lie in 0..8, got " + index);
    }
    return ALL.get(index);
  }

  /** @return all nine cells in reading order */
  public static List<Cell> all() {
    return ALL;
  }

  /** @return the cell index {@code row * 3 + col} */
  public int index() {
    return row * Board.SIZE + col;
  }

  /** @return the canonical 1-indexed text, for example {@code (2, 3)} */
  public String text() {
    return "(" + (row + 1) + ", " + (col + 1) + ")";
  }

  @Override
  public String toString() {
    return text();
  }
}
