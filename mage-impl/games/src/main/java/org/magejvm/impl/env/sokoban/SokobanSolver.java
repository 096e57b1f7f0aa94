package org.magejvm.impl.env.sokoban;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Exact breadth-first search over Sokoban positions (player square plus the set of box squares), counting
 * primitive moves, so the first solution found is a shortest one. A position is packed into one {@code long} (the
 * player's cell index followed by the sorted box cells), visited positions live in an open-addressing table, and a
 * push onto a dead square (from which no box can reach a target) is never generated.
 *
 * <p>The search is also how the environment recognises lost positions: when it ends without a solution, the puzzle
 * cannot be solved any more. A 6x6 room with up to three boxes has at most a few tens of thousands of positions.
 *
 * <p>An instance keeps its buffers between searches: it is cheap to call repeatedly but not thread-safe.
 */
final class SokobanSolver {

  /** The default bound on visited positions, far above what a 10x10 room with three boxes can reach. */
  public static final int DEFAULT_STATE_LIMIT = 20_000_000;

  private final int stateLimit;
  private final LongSet visited = new LongSet();
  private long[] nodeKey = new long[1024];
  private int[] nodeParent = new int[1024];
  private byte[] nodeMove = new byte[1024];
  private int[] nodeDepth = new int[1024];
  private int nodes;

  /** A solver with {@link #DEFAULT_STATE_LIMIT}. */
  public SokobanSolver() {
    this(DEFAULT_STATE_LIMIT);
  }

  /**
   * @param stateLimit the most positions one search may visit before it gives up with an exception
   * @throws IllegalArgumentException if the limit is not positive
   */
  public SokobanSolver(int stateLimit) {
    if (stateLimit < 1) {
      throw new IllegalArgumentException("stateLimit must be >= 1, got " + stateLimit);
    }
    this.stateLimit = stateLimit;
  }

  /**
   * Finds a shortest solution.
   *
   * @param state the position
   * @return the moves of a shortest solution (empty list when already solved), or empty when there is none
   * @throws IllegalStateException if the search visits more positions than the state limit
   */
  public Optional<List<Move>> solve(SokobanState state) {
    return solve(state, Integer.MAX_VALUE);
  }

  /**
   * Finds a shortest solution of at most {@code maxMoves} moves.
   *
   * @param state the position
   * @param maxMoves the longest solution wanted
   * @return the moves of a shortest solution, or empty when none has at most {@code maxMoves} moves
   * @throws IllegalArgumentException if {@code maxMoves} is negative
   * @throws IllegalStateException if the search visits more positions than the state limit
   */
  public Optional<List<Move>> solve(SokobanState state, int maxMoves) {
    if (maxMoves < 0) {
      throw new IllegalArgumentException("maxMoves must be >= 0, got " + maxMoves);
    }
    int goal = search(state.room(), state.playerCell(), state.boxCells(), maxMoves);
    if (goal < 0) {
      return Optional.empty();
    }
    List<Move> moves = new ArrayList<>(nodeDepth[goal]);
    for (int i = goal; nodeParent[i] >= 0; i = nodeParent[i]) {
      moves.add(Move.DIRECTIONS[nodeMove[i]]);
    }
    Collections.reverse(moves);
    return Optional.of(Collections.unmodifiableList(moves));
  }

  /**
   * @param state the position
   * @return the number of moves of a shortest solution, or -1 when there is none
   * @throws IllegalStateException if the search visits more positions than the state limit
   */
  public int shortestLength(SokobanState state) {
    int goal = search(state.room(), state.playerCell(), state.boxCells(), Integer.MAX_VALUE);
    return goal < 0 ? -1 : nodeDepth[goal];
  }

  /**
   * @param state the position
   * @return whether the boxes can still all be brought onto targets
   * @throws IllegalStateException if the search visits more positions than the state limit
   */
  public boolean isSolvable(SokobanState state) {
    return search(state.room(), state.playerCell(), state.boxCells(), Integer.MAX_VALUE) >= 0;
  }

  /** @return the number of positions the last search visited */
  public int lastSearchSize() {
    return nodes;
  }

  /**
   * Breadth-first search.
   *
   * @return the node index of a goal position, or -1
   */
  private int search(Room room, int player, int[] sortedBoxes, int maxMoves) {
    visited.clear();
    nodes = 0;
    int n = sortedBoxes.length;
    int bits = room.cellBits;
    long cellMask = (1L << bits) - 1;
    boolean[] wall = room.wall;
    boolean[] live = room.live;
    boolean[] target = room.target;
    int[] offsets = room.offsets;

    long startKey = encode(player, sortedBoxes, bits);
    addNode(startKey, -1, (byte) -1, 0);
    visited.add(startKey);
    if (allOnTargets(sortedBoxes, target)) {
      return 0;
    }
    for (int b : sortedBoxes) {
      if (!live[b]) {
        return -1;
      }
    }
    int[] boxes = new int[n];
    int[] next = new int[n];
    for (int head = 0; head < nodes; head++) {
      int depth = nodeDepth[head];
      if (depth >= maxMoves) {
        break;
      }
      long key = nodeKey[head];
      int p = (int) (key & cellMask);
      for (int j = 0; j < n; j++) {
        boxes[j] = (int) ((key >>> (bits * (j + 1))) & cellMask);
      }
      for (int d = 0; d < 4; d++) {
        int off = offsets[d];
        int np = p + off;
        if (wall[np]) {
          continue;
        }
        int bi = indexOf(boxes, np);
        long nextKey;
        boolean goal = false;
        if (bi < 0) {
          nextKey = (key & ~cellMask) | np;
        } else {
          int nb = np + off;
          if (wall[nb] || !live[nb] || indexOf(boxes, nb) >= 0) {
            continue;
          }
          System.arraycopy(boxes, 0, next, 0, n);
          next[bi] = nb;
          sortOne(next, bi);
          nextKey = encode(np, next, bits);
          goal = target[nb] && allOnTargets(next, target);
        }
        if (visited.add(nextKey)) {
          if (nodes >= stateLimit) {
            throw new IllegalStateException("the Sokoban solver gave up after visiting " + stateLimit
                + " positions of a " + room.rows + "x" + room.cols + " room with " + n + " boxes");
          }
          addNode(nextKey, head, (byte) d, depth + 1);
          if (goal) {
            return nodes - 1;
          }
        }
      }
    }
    return -1;
  }

  private void addNode(long key, int parent, byte move, int depth) {
    if (nodes == nodeKey.length) {
      int cap = nodes * 2;
      nodeKey = Arrays.copyOf(nodeKey, cap);
      nodeParent = Arrays.copyOf(nodeParent, cap);
      nodeMove = Arrays.copyOf(nodeMove, cap);
      nodeDepth = Arrays.copyOf(nodeDepth, cap);
    }
    nodeKey[nodes] = key;
    nodeParent[nodes] = parent;
    nodeMove[nodes] = move;
    nodeDepth[nodes] = depth;
    nodes++;
  }

  /**
   * Packs a position: the player in the lowest bits, then the boxes in increasing order.
   *
   * @param player the player's cell
   * @param sortedBoxes the box cells in increasing order
   * @param bits bits per cell
   * @return the key, non-negative
   */
  static long encode(int player, int[] sortedBoxes, int bits) {
    long key = player;
    for (int j = 0; j < sortedBoxes.length; j++) {
      key |= ((long) sortedBoxes[j]) << (bits * (j + 1));
    }
    return key;
  }

  private static int indexOf(int[] boxes, int cell) {
    for (int j = 0; j < boxes.length; j++) {
      if (boxes[j] == cell) {
        return j;
      }
    }
    return -1;
  }

  /** Restores increasing order after {@code a[i]} changed. */
  static void sortOne(int[] a, int i) {
    int v = a[i];
    while (i > 0 && a[i - 1] > v) {
      a[i] = a[i - 1];
      i--;
    }
    while (i < a.length - 1 && a[i + 1] < v) {
      a[i] = a[i + 1];
      i++;
    }
    a[i] = v;
  }

  private static boolean allOnTargets(int[] boxes, boolean[] target) {
    for (int b : boxes) {
      if (!target[b]) {
        return false;
      }
    }
    return true;
  }
}
