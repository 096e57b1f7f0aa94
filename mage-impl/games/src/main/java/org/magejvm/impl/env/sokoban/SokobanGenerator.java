package org.magejvm.impl.env.sokoban;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import org.magejvm.api.annotation.Api;

/**
 * Generates Sokoban rooms the way gym-sokoban does (in the variant used by RAGEN, verl-agent and LaMer), then keeps
 * only rooms whose shortest solution length lies in the configured bounds.
 *
 * <p>One attempt:
 * <ol>
 *   <li><b>Topology.</b> A random walk of {@code floor(1.7 * (rows + cols))} steps starts on a random inner square,
 *       changes direction with probability 0.35 before each step, and carves one of five small 3x3 floor patterns
 *       around each square it visits; the outer ring is then made wall again.</li>
 *   <li><b>Placement.</b> The player and then one target per box are put on distinct random floor squares (the
 *       attempt fails when the room has no more than boxes + 1 floor squares). Every box starts on its target.</li>
 *   <li><b>Reverse play.</b> A depth-first search (at most 100 levels deep, at most 300,000 positions) plays
 *       backwards: each of the four moves steps the player away and pulls along a box standing right behind it.
 *       Each position is scored, on its first visit, by (number of times the pulled box changed along the path) x
 *       (sum of the boxes' Manhattan distances from their own targets), and scores 0 unless every target is empty
 *       (no box and no player on it). The best position becomes the start; an attempt whose best score is 0
 *       fails.</li>
 *   <li><b>Player walk.</b> With probability 0.8 when the boxes moved one square in total, else 0.5, the player
 *       then takes 1 to 3 random steps onto free squares it has not visited yet (after each step it goes on with
 *       probability 0.5).</li>
 *   <li><b>Check.</b> {@link SokobanSolver} computes the shortest solution; the room is kept when it takes between
 *       {@link SokobanConfig#minSolutionMoves()} and {@link SokobanConfig#maxSolutionMoves()} moves.</li>
 * </ol>
 * Failed attempts are retried with the same random stream, up to {@link #MAX_ATTEMPTS} times, so a seed always
 * yields the same room. Every kept room is solvable: reverse play only makes moves a forward player can undo.
 *
 * <p>Differences from the Python code, none of which changes what kind of rooms come out: one
 * {@link SplittableRandom} seeded by the reset seed replaces Python's and NumPy's global generators; positions are
 * recognised by player and box squares (the Python code also told pulled boxes from unpulled ones); the retry loop
 * is a single bounded loop instead of nested tries, attempts and seed bumps.
 *
 * <p>Not thread-safe (it owns a {@link SokobanSolver}); use one generator per thread.
 */
@Api(status = Api.Status.INTERNAL)
public final class SokobanGenerator {

  /** The most attempts per seed before generation gives up. */
  public static final int MAX_ATTEMPTS = 10_000;
  /** The depth limit of reverse play (the reference's {@code search_depth}). */
  public static final int REVERSE_SEARCH_DEPTH = 100;

  private static final int REVERSE_STATE_LIMIT = 300_000;
  private static final double CHANGE_DIRECTION = 0.35;
  private static final int[][] DIRECTIONS = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  /** The floor patterns carved around the walker, as (row, col) offsets from its square. */
  private static final int[][][] MASKS = {
      {{0, -1}, {0, 0}, {0, 1}},
      {{-1, 0}, {0, 0}, {1, 0}},
      {{0, -1}, {0, 0}, {1, 0}},
      {{0, -1}, {0, 0}, {1, -1}, {1, 0}},
      {{0, 0}, {0, 1}, {1, 0}},
  };

  /**
   * A generated room.
   *
   * @param start the start position
   * @param solution a shortest solution of the start position
   * @param attempts how many attempts it took (1 when the first attempt was kept)
   */
  public record Result(SokobanState start, List<Move> solution, int attempts) {
    /**
     * Validates.
     *
     * @param start start position
     * @param solution shortest solution
     * @param attempts attempts used
     */
    public Result {
      Objects.requireNonNull(start, "start");
      solution = List.copyOf(solution);
    }
  }

  private final SokobanConfig config;
  private final SokobanSolver solver = new SokobanSolver();
  private final LongSet visited = new LongSet();

  /** @param config the room settings */
  public SokobanGenerator(SokobanConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  /** @return the room settings */
  public SokobanConfig config() {
    return config;
  }

  /**
   * Generates the room of a seed.
   *
   * @param seed the seed; the same seed and configuration always give the same room
   * @return the room, its shortest solution and the attempts it took
   * @throws IllegalStateException if no attempt out of {@link #MAX_ATTEMPTS} met the solution-length bounds
   */
  public Result generate(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      SokobanState start = attempt(random);
      if (start == null) {
        continue;
      }
      Optional<List<Move>> solution = solver.solve(start, config.maxSolutionMoves());
      if (solution.isPresent() && solution.get().size() >= config.minSolutionMoves()) {
        return new Result(start, solution.get(), attempt);
      }
    }
    throw new IllegalStateException("could not generate a Sokoban room for seed " + seed + " in " + MAX_ATTEMPTS
        + " attempts: no " + config.size() + "x" + config.size() + " room with " + config.boxes()
        + " boxes had a shortest solution of " + config.minSolutionMoves() + " to " + config.maxSolutionMoves()
        + " moves; widen the min-moves/max-moves bounds or change size/boxes");
  }

  /**
   * One attempt: topology, placement, reverse play, player walk.
   *
   * @return the start position, or null when the attempt failed
   */
  private SokobanState attempt(SplittableRandom random) {
    int rows = config.size();
    int cols = config.size();
    boolean[] floor = topology(rows, cols, random);
    int floorCount = 0;
    for (boolean f : floor) {
      if (f) {
        floorCount++;
      }
    }
    int boxes = config.boxes();
    if (floorCount <= boxes + 1) {
      return null;
    }
    int[] free = new int[floorCount];
    for (int i = 0, k = 0; i < floor.length; i++) {
      if (floor[i]) {
        free[k++] = i;
      }
    }
    int player = take(free, floorCount--, random);
    boolean[] target = new boolean[rows * cols];
    int[] home = new int[boxes];
    for (int b = 0; b < boxes; b++) {
      home[b] = take(free, floorCount--, random);
      target[home[b]] = true;
    }
    boolean[] wall = new boolean[rows * cols];
    for (int i = 0; i < wall.length; i++) {
      wall[i] = !floor[i];
    }
    Room room = new Room(rows, cols, wall, target);
    Reverse reverse = new Reverse(room, home);
    reverse.dfs(player, home.clone(), 0, -1, REVERSE_SEARCH_DEPTH);
    if (reverse.bestScore <= 0) {
      return null;
    }
    int start = walk(room, reverse.bestPlayer, reverse.bestBoxes, reverse.bestDisplacement, random);
    return new SokobanState(room, start, reverse.bestBoxes);
  }

  /**
   * Removes a random element from the first {@code count} entries of {@code cells}, keeping the rest in order (so
   * the choice is "the k-th free square in row-major order", like indexing NumPy's {@code where}).
   */
  private static int take(int[] cells, int count, SplittableRandom random) {
    int k = random.nextInt(count);
    int cell = cells[k];
    System.arraycopy(cells, k + 1, cells, k, count - k - 1);
    return cell;
  }

  /**
   * The random-walk room topology.
   *
   * @return floor flags, row-major, with an all-wall outer ring
   */
  static boolean[] topology(int rows, int cols, SplittableRandom random) {
    boolean[] floor = new boolean[rows * cols];
    int steps = (int) (1.7 * (rows + cols));
    int[] direction = DIRECTIONS[random.nextInt(DIRECTIONS.length)];
    int r = 1 + random.nextInt(rows - 1);
    int c = 1 + random.nextInt(cols - 1);
    for (int s = 0; s < steps; s++) {
      if (random.nextDouble() < CHANGE_DIRECTION) {
        direction = DIRECTIONS[random.nextInt(DIRECTIONS.length)];
      }
      r = Math.max(Math.min(r + direction[0], rows - 2), 1);
      c = Math.max(Math.min(c + direction[1], cols - 2), 1);
      for (int[] cell : MASKS[random.nextInt(MASKS.length)]) {
        int rr = r + cell[0];
        int cc = c + cell[1];
        if (rr > 0 && cc > 0 && rr < rows - 1 && cc < cols - 1) {
          floor[rr * cols + cc] = true;
        }
      }
    }
    return floor;
  }

  /**
   * The optional random player walk after reverse play.
   *
   * @return the player's final cell
   */
  private static int walk(Room room, int player, int[] boxes, int displacement, SplittableRandom random) {
    double moveProbability = displacement == 1 ? 0.8 : 0.5;
    if (random.nextDouble() > moveProbability) {
      return player;
    }
    int[] visitedCells = new int[4];
    visitedCells[0] = player;
    int steps = 0;
    int[] options = new int[4];
    while (steps < 3) {
      int count = 0;
      for (int off : room.offsets) {
        int next = player + off;
        if (!room.wall[next] && !contains(boxes, next) && !contains(visitedCells, steps + 1, next)) {
          options[count++] = next;
        }
      }
      if (count == 0) {
        break;
      }
      player = options[random.nextInt(count)];
      steps++;
      visitedCells[steps] = player;
      if (steps >= 3 || random.nextDouble() > 0.5) {
        break;
      }
    }
    return player;
  }

  private static boolean contains(int[] cells, int cell) {
    return contains(cells, cells.length, cell);
  }

  private static boolean contains(int[] cells, int count, int cell) {
    for (int i = 0; i < count; i++) {
      if (cells[i] == cell) {
        return true;
      }
    }
    return false;
  }

  /** The reverse-play search of one attempt; boxes keep their identity so each is measured from its own target. */
  private final class Reverse {
    private final Room room;
    private final int[] home;
    private final int[] sorted;
    int bestScore = -1;
    int bestPlayer;
    int[] bestBoxes;
    int bestDisplacement;

    Reverse(Room room, int[] home) {
      this.room = room;
      this.home = home;
      this.sorted = new int[home.length];
      visited.clear();
    }

    void dfs(int player, int[] boxes, int swaps, int lastPull, int ttl) {
      ttl--;
      if (ttl <= 0 || visited.size() >= REVERSE_STATE_LIMIT) {
        return;
      }
      System.arraycopy(boxes, 0, sorted, 0, boxes.length);
      Arrays.sort(sorted);
      if (!visited.add(SokobanSolver.encode(player, sorted, room.cellBits))) {
        return;
      }
      int displacement = 0;
      boolean targetsEmpty = !room.target[player];
      for (int b = 0; b < boxes.length; b++) {
        int at = boxes[b];
        displacement += Math.abs(at / room.cols - home[b] / room.cols)
            + Math.abs(at % room.cols - home[b] % room.cols);
        if (room.target[at]) {
          targetsEmpty = false;
        }
      }
      int score = targetsEmpty ? swaps * displacement : 0;
      if (score > bestScore) {
        bestScore = score;
        bestPlayer = player;
        bestBoxes = boxes.clone();
        bestDisplacement = displacement;
      }
      for (int off : room.offsets) {
        int next = player + off;
        if (room.wall[next] || contains(boxes, next)) {
          continue;
        }
        int pulled = -1;
        int behind = player - off;
        for (int b = 0; b < boxes.length; b++) {
          if (boxes[b] == behind) {
            pulled = b;
          }
        }
        int[] nextBoxes = boxes;
        int nextLast = lastPull;
        if (pulled >= 0) {
          nextBoxes = boxes.clone();
          nextBoxes[pulled] = player;
          nextLast = pulled;
        }
        dfs(next, nextBoxes, nextLast != lastPull ? swaps + 1 : swaps, nextLast, ttl);
      }
    }
  }
}
