package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.magejvm.api.annotation.Api;

/**
 * Takes the first empty cell of a fixed preference list, or a uniformly random empty cell when every listed cell is
 * taken. The six built-in lists are those of the reference population; each has its own id.
 */
@Api(status = Api.Status.INTERNAL)
public final class PreferredPositionOpponent implements TicTacToeOpponent {

  // cell indices: 0 1 2 / 3 4 5 / 6 7 8
  private static final int CENTER = 4;

  private final String id;
  private final String description;
  private final int[] order;

  /**
   * Creates a preferred-position player.
   *
   * @param id its unique id
   * @param description a one-line description
   * @param preferences the cells in order of preference (each at most once; cells left out are played at random)
   * @throws IllegalArgumentException if the id is blank, the list is empty or repeats a cell
   */
  public PreferredPositionOpponent(String id, String description, List<Cell> preferences) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("a preferred-position opponent needs a non-blank id");
    }
    Objects.requireNonNull(preferences, "preferences");
    if (preferences.isEmpty()) {
      throw new IllegalArgumentException("preferred-position opponent '" + id + "' needs at least one cell");
    }
    int seen = 0;
    int[] cells = new int[preferences.size()];
    for (int i = 0; i < cells.length; i++) {
      Cell c = Objects.requireNonNull(preferences.get(i), "preferences[" + i + "]");
      int bit = 1 << c.index();
      if ((seen & bit) != 0) {
        throw new IllegalArgumentException(
            "preferred-position opponent '" + id + "' lists cell " + c.text() + " twice");
      }
      seen |= bit;
      cells[i] = c.index();
    }
    this.id = id;
    this.description = description == null ? id : description;
    this.order = cells;
  }

  private static PreferredPositionOpponent of(String id, String description, int... indices) {
    List<Cell> cells = new ArrayList<>(indices.length);
    for (int i : indices) {
      cells.add(Cell.of(i));
    }
    return new PreferredPositionOpponent(id, description, cells);
  }

  /** @return center, then the corners, then the edges ({@code preferred-center-first}) */
  public static PreferredPositionOpponent centerFirst() {
    return of("preferred-center-first", "center, then corners, then edges", CENTER, 0, 2, 6, 8, 1, 3, 5, 7);
  }

  /** @return the corners, then the center, then the edges ({@code preferred-corners-first}) */
  public static PreferredPositionOpponent cornersFirst() {
    return of("preferred-corners-first", "corners, then center, then edges", 0, 2, 6, 8, CENTER, 1, 3, 5, 7);
  }

  /** @return the edges, then the center, then the corners ({@code preferred-edges-first}) */
  public static PreferredPositionOpponent edgesFirst() {
    return of("preferred-edges-first", "edges, then center, then corners", 1, 3, 5, 7, CENTER, 0, 2, 6, 8);
  }

  /**
   * @return the main diagonal top-left to bottom-right, then the other two corners, then the edges
   *     ({@code preferred-main-diagonal})
   */
  public static PreferredPositionOpponent mainDiagonal() {
    return of("preferred-main-diagonal", "main diagonal (1,1) (2,2) (3,3), then (1,3) (3,1), then edges",
        0, CENTER, 8, 2, 6, 1, 3, 5, 7);
  }

  /**
   * @return the anti-diagonal top-right to bottom-left, then the other two corners, then the edges
   *     ({@code preferred-anti-diagonal})
   */
  public static PreferredPositionOpponent antiDiagonal() {
    return of("preferred-anti-diagonal", "anti-diagonal (1,3) (2,2) (3,1), then (1,1) (3,3), then edges",
        2, CENTER, 6, 0, 8, 1, 3, 5, 7);
  }

  /**
   * @return the corners from the bottom right backwards, then the center, then the edges backwards: (3,3) (3,1)
   *     (1,3) (1,1) (2,2) (3,2) (2,3) (2,1) (1,2) ({@code preferred-reverse})
   */
  public static PreferredPositionOpponent reverse() {
    return of("preferred-reverse", "corners from (3,3) backwards, then center, then edges backwards",
        8, 6, 2, 0, CENTER, 7, 5, 3, 1);
  }

  /** @return the six built-in preferred-position players, in the reference's order */
  public static List<PreferredPositionOpponent> builtIns() {
    return List.of(centerFirst(), cornersFirst(), edgesFirst(), mainDiagonal(), antiDiagonal(), reverse());
  }

  /** @return the preference list */
  public List<Cell> preferences() {
    List<Cell> out = new ArrayList<>(order.length);
    for (int i : order) {
      out.add(Cell.of(i));
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public int chooseMove(Board board, Mark mark, Random random) {
    TicTacToeOpponent.checkMoveArguments(board, mark, random, id);
    int empty = board.emptyBits();
    for (int cell : order) {
      if ((empty & (1 << cell)) != 0) {
        return cell;
      }
    }
    return RandomOpponent.nthSetBit(empty, random.nextInt(Integer.bitCount(empty)));
  }
}
