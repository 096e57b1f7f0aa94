package org.magejvm.impl.env.tictactoe;

import java.util.Random;
import org.magejvm.api.annotation.Api;

/**
 * Monte-Carlo tree search with the semantics of OpenSpiel's {@code MCTSBot} as the reference configures it: UCT
 * selection with {@code c = 1.4}, one uniformly random rollout per new leaf, and proven-value backup
 * ("MCTS-Solver", {@code solve=True}). Id {@code mcts-N} for N simulations; the reference population uses
 * {@code mcts-100}.
 *
 * <p>One simulation: starting at the root, descend while the node has been visited and its position is not
 * terminal. A visited node without children is expanded first, its moves in a random order; the child with the
 * highest UCT value is taken, an unvisited child counting as infinitely good and a proven child counting as its
 * proven value (earlier children win ties). The reached leaf is scored by a random rollout, or by the game result
 * when it is terminal. Going back up, each node adds the result for the player who moved into it. After a terminal
 * leaf, a node whose children include a proven win for the player to move there, or whose children are all
 * proven, becomes proven with its best child's value; the search stops early once the root is proven. The move
 * played is the root child with the best proven value (unproven counting as 0), then the most visits, then the
 * highest total reward.
 *
 * <p>Stateless; all random choices come from the generator passed to {@link #chooseMove}.
 */
@Api(status = Api.Status.INTERNAL)
public final class MctsOpponent implements TicTacToeOpponent {

  /** The UCT exploration constant of the reference. */
  public static final double UCT_C = 1.4;

  private final int simulations;

  /**
   * @param simulations simulations per move, at least 1 (with a single simulation no child is ever visited, and
   *     the move is uniformly random)
   * @throws IllegalArgumentException if simulations is below 1
   */
  public MctsOpponent(int simulations) {
    if (simulations < 1) {
      throw new IllegalArgumentException("MCTS needs at least 1 simulation per move, got " + simulations);
    }
    this.simulations = simulations;
  }

  /** @return the number of simulations per move */
  public int simulations() {
    return simulations;
  }

  @Override
  public String id() {
    return "mcts-" + simulations;
  }

  @Override
  public String description() {
    return "MCTS, " + simulations + " simulations, UCT c=1.4, random rollouts, solver";
  }

  @Override
  public int chooseMove(Board board, Mark mark, Random random) {
    TicTacToeOpponent.checkMoveArguments(board, mark, random, id());
    return search(board, mark, random).move();
  }

  /**
   * What one search did (for tests and diagnostics).
   *
   * @param move the chosen cell index
   * @param simulationsRun simulations actually run (fewer than the budget when the root was proven)
   * @param rootProven whether the root's value was proven
   * @param rootValue the proven value for the player to move (+1 win, 0 draw, -1 loss), or 0 when not proven
   */
  record SearchResult(int move, int simulationsRun, boolean rootProven, double rootValue) {}

  SearchResult search(Board board, Mark mark, Random random) {
    final int x0 = board.xBits();
    final int o0 = board.oBits();
    final int p0 = mark == Mark.X ? 0 : 1;
    Node root = new Node(-1, p0);
    Node[] path = new Node[Board.CELLS + 2];
    int run = 0;
    while (run < simulations) {
      run++;
      int x = x0;
      int o = o0;
      int p = p0;
      int depth = 0;
      Node node = root;
      path[depth++] = node;
      int status = status(x, o);
      while (status == RUNNING && node.visits > 0) {
        if (node.children == null) {
          expand(node, x | o, p, random);
        }
        node = select(node);
        if (p == 0) {
          x |= 1 << node.move;
        } else {
          o |= 1 << node.move;
        }
        p ^= 1;
        path[depth++] = node;
        status = status(x, o);
      }
      double resultX;
      boolean solved;
      if (status != RUNNING) {
        resultX = status;
        node.proven = true;
        node.provenX = resultX;
        solved = true;
      } else {
        resultX = rollout(x, o, p, random);
        solved = false;
      }
      for (int i = depth - 1; i >= 0; i--) {
        Node n = path[i];
        n.totalReward += n.player == 0 ? resultX : -resultX;
        n.visits++;
        if (solved && n.children != null) {
          solved = backUpProof(n);
        }
      }
      if (root.proven) {
        break;
      }
    }
    if (root.children == null) {
      // Only possible with a single simulation: the root was scored by a rollout and never expanded.
      int empty = Board.FULL & ~(x0 | o0);
      return new SearchResult(
          RandomOpponent.nthSetBit(empty, random.nextInt(Integer.bitCount(empty))), run, false, 0);
    }
    Node best = root.children[0];
    for (int i = 1; i < root.children.length; i++) {
      Node c = root.children[i];
      if (better(c, best)) {
        best = c;
      }
    }
    return new SearchResult(best.move, run, root.proven, root.proven ? root.valueFor(p0) : 0);
  }

  private static final int RUNNING = 2;

  /** @return +1 if X has a line, -1 if O has, 0 for a full board, RUNNING otherwise */
  private static int status(int x, int o) {
    if (Board.hasLine(x)) {
      return 1;
    }
    if (Board.hasLine(o)) {
      return -1;
    }
    return (x | o) == Board.FULL ? 0 : RUNNING;
  }

  private static void expand(Node node, int occupied, int p, Random random) {
    int empty = Board.FULL & ~occupied;
    int n = Integer.bitCount(empty);
    int[] moves = new int[n];
    int k = 0;
    for (int i = 0; i < Board.CELLS; i++) {
      if ((empty & (1 << i)) != 0) {
        moves[k++] = i;
      }
    }
    for (int i = n - 1; i > 0; i--) { // Fisher-Yates, like numpy's shuffle
      int j = random.nextInt(i + 1);
      int t = moves[i];
      moves[i] = moves[j];
      moves[j] = t;
    }
    Node[] children = new Node[n];
    for (int i = 0; i < n; i++) {
      children[i] = new Node(moves[i], p);
    }
    node.children = children;
  }

  private static Node select(Node parent) {
    double logParent = Math.log(parent.visits);
    Node best = null;
    double bestValue = Double.NEGATIVE_INFINITY;
    for (Node c : parent.children) {
      double v;
      if (c.proven) {
        v = c.valueFor(c.player);
      } else if (c.visits == 0) {
        v = Double.POSITIVE_INFINITY;
      } else {
        v = c.totalReward / c.visits + UCT_C * Math.sqrt(logParent / c.visits);
      }
      if (best == null || v > bestValue) {
        best = c;
        bestValue = v;
      }
    }
    return best;
  }

  /** @return the rollout result for X: +1, -1 or 0 */
  private static int rollout(int x, int o, int p, Random random) {
    while (true) {
      int s = status(x, o);
      if (s != RUNNING) {
        return s;
      }
      int empty = Board.FULL & ~(x | o);
      int cell = RandomOpponent.nthSetBit(empty, random.nextInt(Integer.bitCount(empty)));
      if (p == 0) {
        x |= 1 << cell;
      } else {
        o |= 1 << cell;
      }
      p ^= 1;
    }
  }

  /**
   * Proves a node from its children, if possible.
   *
   * @return whether the node is now proven (so the proof may continue upwards)
   */
  private static boolean backUpProof(Node n) {
    int mover = n.children[0].player;
    Node best = null;
    boolean allProven = true;
    for (Node c : n.children) {
      if (!c.proven) {
        allProven = false;
      } else if (best == null || c.valueFor(mover) > best.valueFor(mover)) {
        best = c;
      }
    }
    if (best != null && (allProven || best.valueFor(mover) == 1.0)) {
      n.proven = true;
      n.provenX = best.provenX;
      return true;
    }
    return false;
  }

  /** The final-move order: proven value (0 when unproven), then visits, then total reward. */
  private static boolean better(Node a, Node b) {
    double va = a.proven ? a.valueFor(a.player) : 0;
    double vb = b.proven ? b.valueFor(b.player) : 0;
    if (va != vb) {
      return va > vb;
    }
    if (a.visits != b.visits) {
      return a.visits > b.visits;
    }
    return a.totalReward > b.totalReward;
  }

  /** A search-tree node: the move that led to it and the player who made that move (0 = X, 1 = O). */
  private static final class Node {
    final int move;
    final int player;
    int visits;
    double totalReward;
    boolean proven;
    /** The proven result for X, valid when proven. */
    double provenX;
    Node[] children;

    Node(int move, int player) {
      this.move = move;
      this.player = player;
    }

    double valueFor(int p) {
      return p == 0 ? provenX : -provenX;
    }
  }
}
