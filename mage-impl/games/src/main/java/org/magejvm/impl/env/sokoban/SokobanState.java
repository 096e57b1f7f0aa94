package org.magejvm.impl.env.sokoban;

import com.google.common.collect.ImmutableList;
import java.util.Arrays;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * An immutable Sokoban position: the room (walls and targets), the boxes and the player.
 *
 * <p>Rows and columns are 0-based, row 0 at the top. {@link #render()} writes the position the way observations
 * show it, one line per row, {@code "{row}:{cells}"} with row numbers starting at 0 (as the reference environment's
 * {@code text_with_row_numbers} mode does) and the symbols {@code #} wall, {@code _} floor, {@code O} empty target,
 * {@code X} box off a target, {@code √} box on a target, {@code P} player on floor, {@code S} player on a target.
 * {@link #parse(String)} reads that text back (the row-number prefixes are optional).
 */
@Api(status = Api.Status.INTERNAL)
public final class SokobanState {

  /** The most boxes a position may hold (a limit of the solver's compact state encoding). */
  public static final int MAX_BOXES = 6;

  /**
   * A square of the room.
   *
   * @param row 0-based row, 0 at the top
   * @param col 0-based column, 0 at the left
   */
  public record Cell(int row, int col) {}

  private final Room room;
  private final int player;
  private final int[] boxes;

  /**
   * @param room the room
   * @param player the player's cell
   * @param boxes the box cells (copied and sorted)
   * @throws IllegalArgumentException if pieces overlap walls or each other, or the box count does not match the
   *     target count
   */
  SokobanState(Room room, int player, int[] boxes) {
    this.room = room;
    this.player = player;
    this.boxes = boxes.clone();
    Arrays.sort(this.boxes);
    validate();
  }

  private void validate() {
    int n = room.size();
    if (player < 0 || player >= n || room.wall[player]) {
      throw new IllegalArgumentException("the player must stand on a free square, got " + describe(player));
    }
    if (boxes.length < 1 || boxes.length > MAX_BOXES) {
      throw new IllegalArgumentException(
          "a Sokoban position needs 1 to " + MAX_BOXES + " boxes, got " + boxes.length);
    }
    if (boxes.length != room.targets.length) {
      throw new IllegalArgumentException(
          "a Sokoban position needs as many targets as boxes, got " + room.targets.length + " targets and "
              + boxes.length + " boxes");
    }
    for (int i = 0; i < boxes.length; i++) {
      int b = boxes[i];
      if (b < 0 || b >= n || room.wall[b]) {
        throw new IllegalArgumentException("a box must stand on a free square, got " + describe(b));
      }
      if (b == player) {
        throw new IllegalArgumentException("a box and the player share " + describe(b));
      }
      if (i > 0 && boxes[i - 1] == b) {
        throw new IllegalArgumentException("two boxes share " + describe(b));
      }
    }
  }

  private String describe(int cell) {
    return cell < 0 || cell >= room.size()
        ? "cell index " + cell
        : "row " + cell / room.cols + " column " + cell % room.cols;
  }

  /**
   * Reads a position from text, one row per line, with the symbols of {@link #render()}. A leading
   * {@code "{digits}:"} on a line is skipped; blank lines and surrounding spaces are ignored.
   *
   * @param text the rendered position
   * @return the position
   * @throws IllegalArgumentException naming the row and column of an unknown symbol, or when rows differ in
   *     length, the border is not all walls, there is not exactly one player, or box and target counts differ
   */
  public static SokobanState parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("Sokoban room text is null");
    }
    List<String> lines = new java.util.ArrayList<>();
    for (String raw : text.split("\n", -1)) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).chars().allMatch(Character::isDigit)) {
        line = line.substring(colon + 1).strip();
      }
      lines.add(line);
    }
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("Sokoban room text has no rows");
    }
    int rows = lines.size();
    int cols = lines.get(0).length();
    boolean[] wall = new boolean[rows * cols];
    boolean[] target = new boolean[rows * cols];
    int player = -1;
    int[] boxes = new int[rows * cols];
    int boxCount = 0;
    for (int r = 0; r < rows; r++) {
      String line = lines.get(r);
      if (line.length() != cols) {
        throw new IllegalArgumentException("Sokoban room row " + r + " has " + line.length()
            + " squares but row 0 has " + cols + ": '" + line + "'");
      }
      for (int c = 0; c < cols; c++) {
        int i = r * cols + c;
        char ch = line.charAt(c);
        switch (ch) {
          case '#':
            wall[i] = true;
            break;
          case '_':
            break;
          case 'O':
            target[i] = true;
            break;
          case 'X':
            boxes[boxCount++] = i;
            break;
          case '√':
            target[i] = true;
            boxes[boxCount++] = i;
            break;
          case 'P':
          case 'S':
            if (player >= 0) {
              throw new IllegalArgumentException(
                  "Sokoban room has a second player at row " + r + " column " + c);
            }
            player = i;
            target[i] = ch == 'S';
            break;
          default:
            throw new IllegalArgumentException("unknown Sokoban symbol '" + ch + "' at row " + r + " column " + c
                + " (expected one of # _ O X √ P S)");
        }
      }
    }
    if (player < 0) {
      throw new IllegalArgumentException("Sokoban room has no player (P or S)");
    }
    return new SokobanState(new Room(rows, cols, wall, target), player, Arrays.copyOf(boxes, boxCount));
  }

  Room room() {
    return room;
  }

  int playerCell() {
    return player;
  }

  /** @return the box cells, sorted; the caller must not modify the array */
  int[] boxCells() {
    return boxes;
  }

  /** @return the number of rows */
  public int rows() {
    return room.rows;
  }

  /** @return the number of columns */
  public int cols() {
    return room.cols;
  }

  /**
   * @param row a row
   * @param col a column
   * @return whether the square is a wall
   * @throws IndexOutOfBoundsException when the square lies outside the room
   */
  public boolean isWall(int row, int col) {
    return room.wall[room.index(row, col)];
  }

  /**
   * @param row a row
   * @param col a column
   * @return whether the square is a target
   * @throws IndexOutOfBoundsException when the square lies outside the room
   */
  public boolean isTarget(int row, int col) {
    return room.target[room.index(row, col)];
  }

  /**
   * @param row a row
   * @param col a column
   * @return whether a box stands on the square
   * @throws IndexOutOfBoundsException when the square lies outside the room
   */
  public boolean hasBox(int row, int col) {
    return Arrays.binarySearch(boxes, room.index(row, col)) >= 0;
  }

  /** @return the player's square */
  public Cell player() {
    return cell(player);
  }

  /** @return the boxes' squares, in row-major order */
  public List<Cell> boxes() {
    ImmutableList.Builder<Cell> b = ImmutableList.builder();
    for (int x : boxes) {
      b.add(cell(x));
    }
    return b.build();
  }

  /** @return the targets' squares, in row-major order */
  public List<Cell> targets() {
    ImmutableList.Builder<Cell> b = ImmutableList.builder();
    for (int x : room.targets) {
      b.add(cell(x));
    }
    return b.build();
  }

  private Cell cell(int index) {
    return new Cell(index / room.cols, index % room.cols);
  }

  /** @return the number of boxes */
  public int boxCount() {
    return boxes.length;
  }

  /** @return the number of boxes standing on targets */
  public int boxesOnTargets() {
    int k = 0;
    for (int b : boxes) {
      if (room.target[b]) {
        k++;
      }
    }
    return k;
  }

  /** @return whether every box stands on a target */
  public boolean isSolved() {
    return boxesOnTargets() == boxes.length;
  }

  /** @return whether a box that is not on a target stands on a dead square (the position cannot be solved) */
  public boolean hasBoxOnDeadSquare() {
    for (int b : boxes) {
      if (!room.live[b]) {
        return true;
      }
    }
    return false;
  }

  /**
   * The position as observation text: {@code "{row}:{cells}"} lines, rows from 0, joined by newlines, no trailing
   * newline.
   *
   * @return the text
   */
  public String render() {
    return render(room, player, boxes);
  }

  /**
   * Renders any position of a room.
   *
   * @param room the room
   * @param player the player's cell
   * @param boxes the box cells, in any order
   * @return the text
   */
  static String render(Room room, int player, int[] boxes) {
    int n = room.size();
    char[] cells = new char[n];
    for (int i = 0; i < n; i++) {
      cells[i] = room.wall[i] ? '#' : room.target[i] ? 'O' : '_';
    }
    for (int b : boxes) {
      cells[b] = room.target[b] ? '√' : 'X';
    }
    cells[player] = room.target[player] ? 'S' : 'P';
    StringBuilder sb = new StringBuilder(n + room.rows * 4);
    for (int r = 0; r < room.rows; r++) {
      if (r > 0) {
        sb.append('\n');
      }
      sb.append(r).append(':').append(cells, r * room.cols, room.cols);
    }
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SokobanState)) {
      return false;
    }
    SokobanState s = (SokobanState) o;
    return player == s.player && Arrays.equals(boxes, s.boxes) && room.equals(s.room);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * room.hashCode() + player) + Arrays.hashCode(boxes);
  }

  /** @return the rendered position */
  @Override
  public String toString() {
    return render();
  }
}
