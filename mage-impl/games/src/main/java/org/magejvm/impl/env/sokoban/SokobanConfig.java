package org.magejvm.impl.env.sokoban;

import com.google.common.collect.ImmutableMap;
import java.util.Map;
import org.magejvm.api.annotation.Api;

/**
 * The settings of a Sokoban environment. The defaults are the reference configuration: a 6x6 room with 2 boxes
 * whose shortest solution takes 5 to 21 moves, and up to 3 moves per turn.
 *
 * @param size the side of the square room, walls included (5 to 10)
 * @param boxes the number of boxes (1 to 3)
 * @param minSolutionMoves the fewest moves a generated room's shortest solution may take
 * @param maxSolutionMoves the most moves a generated room's shortest solution may take (at most {@link #MOVE_CAP})
 * @param movesPerTurn the most moves one turn may hold (1 to 10)
 */
@Api(status = Api.Status.INTERNAL)
public record SokobanConfig(int size, int boxes, int minSolutionMoves, int maxSolutionMoves, int movesPerTurn) {

  /** The most primitive moves of one episode (gym-sokoban's {@code max_steps}); reaching it ends the episode. */
  public static final int MOVE_CAP = 30;

  /** Option name of {@link #boxes()}. */
  public static final String OPT_BOXES = "boxes";
  /** Option name of {@link #size()}. */
  public static final String OPT_SIZE = "size";
  /** Option name of {@link #minSolutionMoves()}. */
  public static final String OPT_MIN_MOVES = "min-moves";
  /** Option name of {@link #maxSolutionMoves()}. */
  public static final String OPT_MAX_MOVES = "max-moves";
  /** Option name of {@link #movesPerTurn()}. */
  public static final String OPT_MOVES_PER_TURN = "moves-per-turn";

  /** The reference configuration. */
  public static final SokobanConfig DEFAULT = new SokobanConfig(6, 2, 5, 21, 3);

  /** Each option with a one-line description and its default. */
  public static final Map<String, String> OPTIONS = ImmutableMap.of(
      OPT_BOXES, "number of boxes, 1 to 3 (default 2)",
      OPT_SIZE, "side of the square room including its walls, 5 to 10 (default 6)",
      OPT_MIN_MOVES, "fewest moves of a generated room's shortest solution (default 5)",
      OPT_MAX_MOVES, "most moves of a generated room's shortest solution, at most " + MOVE_CAP + " (default 21)",
      OPT_MOVES_PER_TURN, "most moves per turn, 1 to 10 (default 3)");

  /**
   * Validates.
   *
   * @param size room side
   * @param boxes box count
   * @param minSolutionMoves shortest-solution lower bound
   * @param maxSolutionMoves shortest-solution upper bound
   * @param movesPerTurn moves per turn
   * @throws IllegalArgumentException naming the option whose value is out of range
   */
  public SokobanConfig {
    check(size >= 5 && size <= 10, OPT_SIZE, size, "must be 5 to 10");
    check(boxes >= 1 && boxes <= 3, OPT_BOXES, boxes, "must be 1, 2 or 3");
    check(minSolutionMoves >= 1 && minSolutionMoves <= MOVE_CAP, OPT_MIN_MOVES, minSolutionMoves,
        "must be 1 to " + MOVE_CAP);
    check(maxSolutionMoves >= minSolutionMoves && maxSolutionMoves <= MOVE_CAP, OPT_MAX_MOVES, maxSolutionMoves,
        "must be at least " + OPT_MIN_MOVES + " (" + minSolutionMoves + ") and at most the episode's move cap "
            + MOVE_CAP);
    check(movesPerTurn >= 1 && movesPerTurn <= 10, OPT_MOVES_PER_TURN, movesPerTurn, "must be 1 to 10");
  }

  private static void check(boolean ok, String option, int value, String rule) {
    if (!ok) {
      throw new IllegalArgumentException("Sokoban option '" + option + "' " + rule + ", got " + value);
    }
  }

  /**
   * Reads text options, starting from {@link #DEFAULT}.
   *
   * @param options option name to value, for example {@code boxes=3}; may be empty
   * @return the configuration
   * @throws IllegalArgumentException naming the option and value when an option is unknown, not an integer, or out
   *     of range
   */
  public static SokobanConfig fromOptions(Map<String, String> options) {
    Builder b = builder();
    if (options == null) {
      return b.build();
    }
    for (Map.Entry<String, String> e : options.entrySet()) {
      String name = e.getKey();
      String value = e.getValue();
      if (name == null || !OPTIONS.containsKey(name)) {
        throw new IllegalArgumentException("unknown Sokoban option '" + name + "' (value '" + value
            + "'); known options: " + OPTIONS.keySet());
      }
      int v = parseInt(name, value);
      switch (name) {
        case OPT_BOXES:
          b.optBoxes(v);
          break;
        case OPT_SIZE:
          b.optSize(v);
          break;
        case OPT_MIN_MOVES:
          b.optMinSolutionMoves(v);
          break;
        case OPT_MAX_MOVES:
          b.optMaxSolutionMoves(v);
          break;
        default:
          b.optMovesPerTurn(v);
          break;
      }
    }
    return b.build();
  }

  private static int parseInt(String name, String value) {
    if (value == null) {
      throw new IllegalArgumentException("Sokoban option '" + name + "' needs an integer value, got none");
    }
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Sokoban option '" + name + "' must be an integer, got '" + value + "'", e);
    }
  }

  /** @return the options that reproduce this configuration */
  public Map<String, String> toOptions() {
    return ImmutableMap.of(
        OPT_BOXES, Integer.toString(boxes),
        OPT_SIZE, Integer.toString(size),
        OPT_MIN_MOVES, Integer.toString(minSolutionMoves),
        OPT_MAX_MOVES, Integer.toString(maxSolutionMoves),
        OPT_MOVES_PER_TURN, Integer.toString(movesPerTurn));
  }

  /** @return a builder holding the defaults */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link SokobanConfig}; every setting is optional and starts at the reference default. */
  public static final class Builder {
    private int size = DEFAULT.size;
    private int boxes = DEFAULT.boxes;
    private int minSolutionMoves = DEFAULT.minSolutionMoves;
    private int maxSolutionMoves = DEFAULT.maxSolutionMoves;
    private int movesPerTurn = DEFAULT.movesPerTurn;

    private Builder() {}

    /**
     * @param size the room side, walls included
     * @return this builder
     */
    public Builder optSize(int size) {
      this.size = size;
      return this;
    }

    /**
     * @param boxes the number of boxes
     * @return this builder
     */
    public Builder optBoxes(int boxes) {
      this.boxes = boxes;
      return this;
    }

    /**
     * @param moves the fewest moves of a generated room's shortest solution
     * @return this builder
     */
    public Builder optMinSolutionMoves(int moves) {
      this.minSolutionMoves = moves;
      return this;
    }

    /**
     * @param moves the most moves of a generated room's shortest solution
     * @return this builder
     */
    public Builder optMaxSolutionMoves(int moves) {
      this.maxSolutionMoves = moves;
      return this;
    }

    /**
     * @param moves the most moves per turn
     * @return this builder
     */
    public Builder optMovesPerTurn(int moves) {
      this.movesPerTurn = moves;
      return this;
    }

    /**
     * @return the configuration
     * @throws IllegalArgumentException naming the option whose value is out of range
     */
    public SokobanConfig build() {
      return new SokobanConfig(size, boxes, minSolutionMoves, maxSolutionMoves, movesPerTurn);
    }
  }
}
