package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * An immutable 3x3 Tic-Tac-Toe board. Cells are numbered {@code row * 3 + col} (0-based, reading order); the board
 * is stored as two 9-bit masks, one per mark, so copies are cheap.
 *
 * <p>The rendered form is three rows of three symbols separated by single spaces and joined by newlines, for
 * example {@code ". X O\n. . .\n. . ."}; {@link #parse(String)} reads it back.
 */
@Api(status = Api.Status.INTERNAL)
public final class Board {

  /** The side length. */
  public static final int SIZE = 3;
  /** The number of cells. */
  public static final int CELLS = SIZE * SIZE;
  /** The mask with all nine cell bits set. */
  static final int FULL = (1 << CELLS) - 1;
  /** The eight winning lines as cell masks: three rows, three columns, two diagonals. */
  static final int[] LINES = {
    0b000_000_111, 0b000_111_000, 0b111_000_000,
    0b001_001_001, 0b010_010_010, 0b100_100_100,
    0b100_010_001, 0b001_010_100
  };

  /** The empty board. */
  public static final Board EMPTY = new Board(0, 0);

  private final int xBits;
  private final int oBits;

  private Board(int xBits, int oBits) {
    this.xBits = xBits;
    this.oBits = oBits;
  }

  /**
   * A board from cell masks (bit {@code i} set means cell {@code i} holds the mark).
   *
   * @param xBits the X cells
   * @param oBits the O cells
   * @return the board
   * @throws IllegalArgumentException if a mask has bits outside the nine cells or both masks share a cell
   */
  @Api(status = Api.Status.INTERNAL)
  public static Board ofMasks(int xBits, int oBits) {
    if ((xBits & ~FULL) != 0 || (oBits & ~FULL) != 0 || (xBits & oBits) != 0) {
      throw new IllegalArgumentException("invalid board masks x=" + Integer.toBinaryString(xBits) + " o="
          + Integer.toBinaryString(oBits));
    }
    return xBits == 0 && oBits == 0 ? EMPTY : new Board(xBits, oBits);
  }

  /**
   * Reads a rendered board: three lines of three symbols {@code X}, {@code O} or {@code .}; spaces between symbols
   * and blank lines around the board are ignored.
   *
   * @param text the board text
   * @return the board
   * @throws IllegalArgumentException naming the offending line or symbol when the text is not a board
   */
  public static Board parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("board text must not be null");
    }
    String[] lines = text.strip().split("\\R");
    if (lines.length != SIZE) {
      throw new IllegalArgumentException(
          "a Tic-Tac-Toe board has 3 rows, got " + lines.length + " in '" + text + "'");
    }
    int x = 0;
    int o = 0;
    for (int r = 0; r < SIZE; r++) {
      String row = lines[r].replace(" ", "").replace("\t", "");
      if (row.length() != SIZE) {
        throw new IllegalArgumentException(
            "row " + (r + 1) + " of a Tic-Tac-Toe board must hold 3 symbols, got '" + lines[r] + "'");
      }
      for (int c = 0; c < SIZE; c++) {
        char ch = row.charAt(c);
        int bit = 1 << (r * SIZE + c);
        if (ch == 'X') {
          x |= bit;
        } else if (ch == 'O') {
          o |= bit;
        } else if (ch != '.') {
          throw new IllegalArgumentException("unknown symbol '" + ch + "' in row " + (r + 1)
              + " of a Tic-Tac-Toe board; use X, O or '.'");
        }
      }
    }
    return ofMasks(x, o);
  }

  /**
   * The X cells as a mask (bit {@code i} set means cell {@code i} holds X): the form the game-tree searches of the
   * research code ({@code examples/research}) work on.
   *
   * @return the mask of X cells
   */
  @Api(status = Api.Status.INTERNAL)
  public int xBits() {
    return xBits;
  }

  /**
   * The O cells as a mask, as {@link #xBits()}.
   *
   * @return the mask of O cells
   */
  @Api(status = Api.Status.INTERNAL)
  public int oBits() {
    return oBits;
  }

  /** @return the mask of empty cells */
  int emptyBits() {
    return FULL & ~(xBits | oBits);
  }

  /**
   * @param index a cell index, 0 to 8
   * @return what the cell holds
   * @throws IllegalArgumentException if the index is outside 0..8
   */
  public Mark at(int index) {
    checkIndex(index);
    int bit = 1 << index;
    return (xBits & bit) != 0 ? Mark.X : (oBits & bit) != 0 ? Mark.O : Mark.EMPTY;
  }

  /**
   * @param cell a cell
   * @return what the cell holds
   */
  public Mark at(Cell cell) {
    return at(cell.index());
  }

  /**
   * @param index a cell index, 0 to 8
   * @return whether the cell is empty
   * @throws IllegalArgumentException if the index is outside 0..8
   */
  public boolean isEmpty(int index) {
    checkIndex(index);
    return ((xBits | oBits) & (1 << index)) == 0;
  }

  /** @return the indices of the empty cells, ascending */
  public List<Integer> emptyCells() {
    List<Integer> out = new ArrayList<>(CELLS);
    for (int i = 0; i < CELLS; i++) {
      if (((xBits | oBits) & (1 << i)) == 0) {
        out.add(i);
      }
    }
    return out;
  }

  /** @return the number of empty cells */
  public int emptyCount() {
    return Integer.bitCount(emptyBits());
  }

  /**
   * @param mark X or O
   * @return how many cells hold the mark
   */
  public int count(Mark mark) {
    switch (mark) {
      case X:
        return Integer.bitCount(xBits);
      case O:
        return Integer.bitCount(oBits);
      default:
        return emptyCount();
    }
  }

  /**
   * Places a mark.
   *
   * @param index an empty cell, 0 to 8
   * @param mark X or O
   * @return the new board
   * @throws IllegalArgumentException if the cell is out of range or taken, or the mark is EMPTY
   */
  public Board place(int index, Mark mark) {
    checkIndex(index);
    mark.requirePlayer();
    int bit = 1 << index;
    if (((xBits | oBits) & bit) != 0) {
      throw new IllegalArgumentException(
          "cell " + Cell.of(index).text() + " already holds " + at(index) + " on the board\n" + render());
    }
    return mark == Mark.X ? new Board(xBits | bit, oBits) : new Board(xBits, oBits | bit);
  }

  /** @return the mark that has three in a line, or EMPTY when none has (X is reported if, oddly, both have) */
  public Mark winner() {
    if (hasLine(xBits)) {
      return Mark.X;
    }
    return hasLine(oBits) ? Mark.O : Mark.EMPTY;
  }

  /** @return whether every cell is taken */
  public boolean isFull() {
    return (xBits | oBits) == FULL;
  }

  /** @return whether the game on this board is over (a line or a full board) */
  public boolean isOver() {
    return isFull() || hasLine(xBits) || hasLine(oBits);
  }

  /**
   * Whether a cell mask (as {@link #xBits()}) covers one of the eight winning lines.
   *
   * @param bits a cell mask
   * @return whether the mask covers a whole line
   */
  @Api(status = Api.Status.INTERNAL)
  public static boolean hasLine(int bits) {
    for (int line : LINES) {
      if ((bits & line) == line) {
        return true;
      }
    }
    return false;
  }

  /** @return the board as three rows such as {@code ". X O"} joined by newlines */
  public String render() {
    StringBuilder sb = new StringBuilder(17);
    for (int i = 0; i < CELLS; i++) {
      if (i > 0) {
        sb.append(i % SIZE == 0 ? '\n' : ' ');
      }
      int bit = 1 << i;
      sb.append((xBits & bit) != 0 ? 'X' : (oBits & bit) != 0 ? 'O' : '.');
    }
    return sb.toString();
  }

  private static void checkIndex(int index) {
    if (index < 0 || index >= CELLS) {
      throw new IllegalArgumentException("a Tic-Tac-Toe cell index must lie in 0..8, got " + index);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Board && ((Board) o).xBits == xBits && ((Board) o).oBits == oBits;
  }

  @Override
  public int hashCode() {
    return xBits * 512 + oBits;
  }

  @Override
  public String toString() {
    return render();
  }
}
