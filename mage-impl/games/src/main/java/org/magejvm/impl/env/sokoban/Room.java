package org.magejvm.impl.env.sokoban;

import java.util.Arrays;

/**
 * The fixed part of a Sokoban room: walls and targets, plus the squares from which a box can still reach some
 * target ("live" squares; the others are dead squares, where a box that is not on a target means the puzzle is
 * lost). Cells are indexed row-major, {@code row * cols + col}. Immutable; shared by every position of one room.
 */
final class Room {

  /** The largest room side accepted, so that a cell index fits the solver's state encoding. */
  static final int MAX_SIDE = 16;

  final int rows;
  final int cols;
  final boolean[] wall;
  final boolean[] target;
  final boolean[] live;
  /** The target cells in increasing order. */
  final int[] targets;
  /** Cell-index offsets of UP, DOWN, LEFT, RIGHT. */
  final int[] offsets;
  /** Bits per cell index in the solver's state encoding. */
  final int cellBits;

  /**
   * Builds and validates a room.
   *
   * @param rows number of rows
   * @param cols number of columns
   * @param wall wall flags, row-major (copied)
   * @param target target flags, row-major (copied)
   * @throws IllegalArgumentException if the border is not all walls, a target lies on a wall, or the size is out of
   *     range
   */
  Room(int rows, int cols, boolean[] wall, boolean[] target) {
    if (rows < 3 || cols < 3 || rows > MAX_SIDE || cols > MAX_SIDE) {
      throw new IllegalArgumentException(
          "a Sokoban room must have 3 to " + MAX_SIDE + " rows and columns, got " + rows + "x" + cols);
    }
    if (wall.length != rows * cols || target.length != rows * cols) {
      throw new IllegalArgumentException("wall and target arrays must have " + rows * cols + " cells");
    }
    this.rows = rows;
    this.cols = cols;
    this.wall = wall.clone();
    this.target = target.clone();
    int n = rows * cols;
    int targetCount = 0;
    for (int i = 0; i < n; i++) {
      int r = i / cols;
      int c = i % cols;
      boolean border = r == 0 || c == 0 || r == rows - 1 || c == cols - 1;
      if (border && !this.wall[i]) {
        throw new IllegalArgumentException(
            "the border of a Sokoban room must be walls, but row " + r + " column " + c + " is not");
      }
      if (this.target[i]) {
        if (this.wall[i]) {
          throw new IllegalArgumentException("row " + r + " column " + c + " is both a wall and a target");
        }
        targetCount++;
      }
    }
    this.targets = new int[targetCount];
    for (int i = 0, k = 0; i < n; i++) {
      if (this.target[i]) {
        targets[k++] = i;
      }
    }
    this.offsets = new int[] {-cols, cols, -1, 1};
    this.cellBits = 32 - Integer.numberOfLeadingZeros(n - 1);
    this.live = computeLive();
  }

  /**
   * A square is live when a box standing there could be pushed to some target in an otherwise empty room. Found
   * backwards from the targets: a box reached {@code x} by a push in direction d from {@code x - d}, with the player
   * standing on {@code x - 2d}.
   */
  private boolean[] computeLive() {
    boolean[] result = new boolean[rows * cols];
    int[] queue = new int[rows * cols];
    int head = 0;
    int tail = 0;
    for (int t : targets) {
      result[t] = true;
      queue[tail++] = t;
    }
    while (head < tail) {
      int x = queue[head++];
      for (int off : offsets) {
        int from = x - off;
        if (!wall[from] && !result[from] && !wall[from - off]) {
          result[from] = true;
          queue[tail++] = from;
        }
      }
    }
    return result;
  }

  /** @return the number of cells */
  int size() {
    return rows * cols;
  }

  /**
   * @param row a row
   * @param col a column
   * @return the cell index
   * @throws IndexOutOfBoundsException naming the coordinates when they lie outside the room
   */
  int index(int row, int col) {
    if (row < 0 || col < 0 || row >= rows || col >= cols) {
      throw new IndexOutOfBoundsException(
          "row " + row + " column " + col + " lies outside the " + rows + "x" + cols + " room");
    }
    return row * cols + col;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Room)) {
      return false;
    }
    Room r = (Room) o;
    return rows == r.rows && cols == r.cols && Arrays.equals(wall, r.wall) && Arrays.equals(target, r.target);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * rows + cols) + 17 * Arrays.hashCode(wall) + Arrays.hashCode(target);
  }
}
