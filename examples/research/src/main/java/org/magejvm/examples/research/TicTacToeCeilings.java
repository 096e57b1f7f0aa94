package org.magejvm.examples.research;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.env.tictactoe.Board;
import org.magejvm.impl.env.tictactoe.Cell;
import org.magejvm.impl.env.tictactoe.Mark;
import org.magejvm.impl.env.tictactoe.MctsOpponent;
import org.magejvm.impl.env.tictactoe.MinimaxOpponent;
import org.magejvm.impl.env.tictactoe.PreferredPositionOpponent;
import org.magejvm.impl.env.tictactoe.RandomOpponent;
import org.magejvm.impl.env.tictactoe.TicTacToeMinimax;
import org.magejvm.impl.env.tictactoe.TicTacToeOpponent;
import org.magejvm.impl.env.tictactoe.TicTacToeProvider;

/**
 * The ceilings of Tic-Tac-Toe against a weighted opponent pool: what the best history-blind player and the best
 * adaptive player can reach over the attempts of a meta-episode, as Pass@k and per-attempt win rates. Success is a
 * win (the environment's {@code won} flag); a draw is not a success.
 *
 * <p><b>Why attempts are independent given the opponent.</b> The environment seeds one generator at reset and lets
 * it run on across the attempts of a meta-episode (restart does not reseed it), so each attempt draws the opponent's
 * random choices afresh; an opening the opponent made before the agent's first move (agent {@link Seat#SECOND}) is
 * made once at reset and replayed by every attempt. So, given the opponent and (second seat) its opening, the
 * attempts are independent games: a player that wins one attempt with probability p wins within k attempts with
 * probability {@code 1 - (1 - p)^k}. (This treats {@link java.util.Random}'s stream as random; a player that
 * predicted the generator could do better, and no language model does.)
 *
 * <ul>
 *   <li><b>Best response</b> {@code p*_o}: the most an agent in its seat can win against opponent o in one attempt,
 *       by expectimax over the game tree (the agent maximises, the opponent moves by its move distribution).</li>
 *   <li><b>Adaptive ceiling</b> (an upper bound): knowing the opponent can only help and the attempts are
 *       independent given it, so no player, adaptive or not, beats {@code Pass@k = sum_o w_o (1 - (1 - p*_o)^k) /
 *       sum_o w_o} (second seat: also averaged over the opponent's openings). Only a player that knows its opponent
 *       from the first move on reaches it for sure; the history-blind policy below shows how close a player gets
 *       without knowing anything.</li>
 *   <li><b>Best history-blind policy</b> (a lower bound of the history-blind ceiling): a history-blind policy sees
 *       the current game only (the moves so far, so it still reacts to the opponent's replies) and never an earlier
 *       attempt. The deterministic one of highest Pass@1 against the weighted pool is found by expectimax over the
 *       game tree run jointly over all opponents: at each of the agent's decisions it takes the move of the highest
 *       sum over opponents of weight x probability that the opponent's moves reach this point x the opponent's win
 *       probability after the move, so one move serves every opponent consistent with the game so far. Its win
 *       probability {@code p_o} against each opponent gives {@code Pass@k = sum_o w_o (1 - (1 - p_o)^k) / sum_o
 *       w_o}. Pass@1 is the exact history-blind optimum (a random policy cannot beat the best deterministic one on a
 *       linear objective); for k &gt; 1 a randomising (or attempt-aware) history-blind policy could do slightly
 *       better, so it is a lower bound there, and the adaptive ceiling bounds it from above: the gap between the
 *       best adaptive and the best history-blind player is at most {@code adaptive - blind}.</li>
 * </ul>
 *
 * <p><b>Move distributions.</b> The preferred-position players (a point mass while a listed cell is empty, uniform
 * after), {@code random} (uniform) and {@code minimax} (uniform over its optimal moves) are exact. Any other opponent,
 * MCTS in particular, has no closed form: its distribution at each opponent-to-move board is estimated by calling
 * {@code chooseMove} {@code samples} times with a {@link Random} seeded from the seed and the board, only at the boards
 * the recursions reach, memoised per board. For {@link MctsOpponent} boards are first mapped to a canonical one of
 * their eight symmetries (its distribution is equivariant: it shuffles the moves before ties are broken and its
 * rollouts are uniform), which divides the sampled boards by up to eight. These values are therefore estimates: for a
 * fixed strategy, per-board sampling is at least as precise as {@code samples} independent games, so its standard
 * error is at most about {@code sqrt(p (1 - p) / samples)} ({@link OpponentCeiling#standardError()}); the
 * maximisation picks moves whose sampled value is lucky, so the maxima are biased upwards by a similar amount. To
 * show that bias, each sampled opponent's best response and the history-blind policy are also evaluated on fresh,
 * independent samples ({@link OpponentCeiling#bestResponseCheck()}, {@link OpponentCeiling#blindCheck()}): an
 * unbiased estimate of what those strategies really win, so the true {@code p*_o} lies about between the check and
 * the estimate. (Where no sampled move lets the agent win, the estimate is 0 and so is the error formula; a move
 * never sampled has a probability of a few / {@code samples} at most.)
 *
 * <p>The built-in training pool ({@link #trainingPool}) with 3 attempts and 20,000 sampled moves per MCTS board
 * (about 40 seconds per seat on one core): with the agent first, the adaptive ceiling is Pass@1..3 = 0.820, 0.926,
 * 0.970 and the best history-blind policy reaches 0.819, 0.926, 0.970; with the agent second 0.580, 0.615, 0.638
 * and 0.574, 0.614, 0.637. That policy beats every preferred-position player in every game (none of them blocks a
 * threat), plays the best response to MCTS-100 (weight 7; agent first 0.590 on the samples, 0.584 on fresh ones,
 * 0.583 +- 0.004 in 20,000 games through the environment; second about 0.066) and wins 0.990 of the games against
 * random (best response 0.995; second seat 0.907 and 0.939). So a history-blind player all but reaches the adaptive
 * ceiling: adaptation can add at most 0.001 (first) or 0.006 (second) to Pass@1 on this pool. The held-out
 * MCTS-1000 alone: a best response wins about 0.022 of the games with the agent first and none in the samples with
 * the agent second.
 *
 * <p>Research code: the Tic-Tac-Toe method comparison ({@link MethodsExperiment}) and {@link TicTacToeCeilingsReport}
 * print these numbers; the searches work on the game's cell masks ({@link Board#ofMasks}, {@link Board#xBits()}).
 *
 * <p>Ties between equally good moves go to the lowest cell index. The recursion covers the whole game tree once per
 * computation (about half a million nodes); the cost is in the sampling: about {@code samples} searches per sampled
 * board (a few hundred boards for MCTS with the agent first).
 */
public final class TicTacToeCeilings {

  /** Moves whose values differ by less than this (relative to the reach) are ties. */
  private static final double TIE = 1e-12;
  /** The mask with all nine cell bits set. */
  private static final int FULL = (1 << Board.CELLS) - 1;
  private static final int RUNNING = -1;
  private static final int WIN = 1;

  /**
   * One opponent's ceilings.
   *
   * @param opponentId the opponent
   * @param weight its weight in the pool
   * @param sampled whether its move distribution was sampled (then the values are estimates)
   * @param adaptive its best response's rates (Pass@1 = {@code p*_o}): the adaptive ceiling against this opponent
   * @param blind the rates of the pool's best history-blind policy against this opponent (Pass@1 = {@code p_o})
   * @param bestResponseCheck the best response's win probability on fresh samples (equal to {@code p*_o} when
   *     exact)
   * @param blindCheck the history-blind policy's win probability on fresh samples (equal to {@code p_o} when exact)
   * @param standardError about the standard error of a sampled win probability, {@code sqrt(p*_o (1 - p*_o) /
   *     samples)}; 0 when exact
   */
  public record OpponentCeiling(String opponentId, double weight, boolean sampled, AttemptCeiling adaptive,
      AttemptCeiling blind, double bestResponseCheck, double blindCheck, double standardError) {

    /**
     * Validates.
     *
     * @param opponentId opponent id
     * @param weight weight
     * @param sampled sampled
     * @param adaptive best-response rates
     * @param blind history-blind rates
     * @param bestResponseCheck best response on fresh samples
     * @param blindCheck history-blind policy on fresh samples
     * @param standardError standard error
     */
    public OpponentCeiling {
      Objects.requireNonNull(opponentId, "opponentId");
      Objects.requireNonNull(adaptive, "adaptive");
      Objects.requireNonNull(blind, "blind");
    }

    /** @return {@code p*_o}, the best response's win probability in one attempt */
    public double bestResponseWin() {
      return adaptive.passAt().get(0);
    }

    /** @return {@code p_o}, the pool's best history-blind policy's win probability in one attempt */
    public double blindWin() {
      return blind.passAt().get(0);
    }
  }

  /**
   * The ceilings of a weighted pool.
   *
   * @param seat the agent's seat
   * @param samples samples per board of the sampled move distributions
   * @param opponents per opponent, in the pool's order
   * @param adaptive the adaptive ceiling (an upper bound for every player)
   * @param blind the best deterministic history-blind policy's rates (a lower bound of the history-blind ceiling for
   *     k &gt; 1, exact for k = 1)
   * @param blindReadsBoardOnly whether that policy plays the same move at the same board whatever order the moves
   *     came in (then it is also the best policy that sees the board alone)
   * @param sampledBoards how many boards' distributions were sampled (fresh samples of the checks included)
   */
  public record Ceilings(Seat seat, int samples, List<OpponentCeiling> opponents, AttemptCeiling adaptive,
      AttemptCeiling blind, boolean blindReadsBoardOnly, int sampledBoards) {

    /**
     * Validates and copies.
     *
     * @param seat seat
     * @param samples samples
     * @param opponents per opponent
     * @param adaptive adaptive ceiling
     * @param blind history-blind rates
     * @param blindReadsBoardOnly whether the policy reads the board only
     * @param sampledBoards sampled boards
     */
    public Ceilings {
      Objects.requireNonNull(seat, "seat");
      opponents = List.copyOf(opponents);
      Objects.requireNonNull(adaptive, "adaptive");
      Objects.requireNonNull(blind, "blind");
    }

    /**
     * @param id an opponent id
     * @return that opponent's ceilings
     * @throws IllegalArgumentException if the pool has no such opponent
     */
    public OpponentCeiling opponent(String id) {
      for (OpponentCeiling o : opponents) {
        if (o.opponentId().equals(id)) {
          return o;
        }
      }
      throw new IllegalArgumentException("no opponent '" + id + "' among " + opponents.stream()
          .map(OpponentCeiling::opponentId).toList());
    }
  }

  private final List<OpponentPool.Entry> entries;
  private final boolean agentFirst;
  private final int samples;
  private final int n;
  private final double[] weights;
  private final Moves[] models;
  private final Moves[] checkModels;
  private final double[][] oracleValue;
  private final byte[][] oracleMove;
  /** The history-blind policy: move per history (of the moves it reaches), and per board. */
  private final Map<Long, Integer> blindPolicy = new HashMap<>();
  private final Map<Integer, Integer> blindByBoard = new HashMap<>();
  private boolean blindReadsBoardOnly = true;
  /** Per opponent, per start (probability, best-response value, history-blind value). */
  private final List<List<double[]>> starts = new ArrayList<>();
  private Map<Long, Integer> decisions = new HashMap<>();

  private TicTacToeCeilings(List<OpponentPool.Entry> entries, Seat seat, int samples, long seed) {
    Objects.requireNonNull(seat, "seat");
    if (entries == null || entries.isEmpty()) {
      throw new IllegalArgumentException("the ceilings need at least one opponent");
    }
    if (samples < 1) {
      throw new IllegalArgumentException("need at least 1 sample per board, got " + samples);
    }
    this.entries = List.copyOf(entries);
    this.agentFirst = seat == Seat.FIRST;
    this.samples = samples;
    this.n = entries.size();
    this.weights = new double[n];
    this.models = new Moves[n];
    this.checkModels = new Moves[n];
    this.oracleValue = new double[n][];
    this.oracleMove = new byte[n][];
    for (int i = 0; i < n; i++) {
      OpponentPool.Entry e = entries.get(i);
      Opponent opp = e.opponent();
      if (!(opp instanceof TicTacToeOpponent)) {
        throw new IllegalArgumentException("opponent '" + opp.id() + "' (" + opp.getClass().getName()
            + ") does not play Tic-Tac-Toe");
      }
      if (!(e.weight() > 0)) {
        throw new IllegalArgumentException("opponent '" + opp.id() + "' needs a positive weight, got " + e.weight());
      }
      weights[i] = e.weight();
      models[i] = model((TicTacToeOpponent) opp, samples, mix(seed, 2L * i));
      checkModels[i] = models[i].sampled() ? model((TicTacToeOpponent) opp, samples, mix(seed, 2L * i + 1))
          : models[i];
      oracleValue[i] = new double[1 << 18];
      java.util.Arrays.fill(oracleValue[i], Double.NaN);
      oracleMove[i] = new byte[1 << 18];
    }
    solve();
  }

  /**
   * The ceilings of the built-in training pool ({@link TicTacToeProvider}'s opponents with their weights: MCTS-100
   * 7, each preferred-position player 1, random 3).
   *
   * @param seat the agent's seat
   * @param attempts attempts per meta-episode (the environment's default is 3)
   * @param samples samples per board of the MCTS move distributions
   * @param seed the seed of the samples
   * @return the ceilings
   */
  public static Ceilings trainingPool(Seat seat, int attempts, int samples, long seed) {
    return of(new TicTacToeProvider().opponents().training(), seat, attempts, samples, seed);
  }

  /**
   * The ceilings of a weighted pool (one opponent of weight 1 for a single opponent).
   *
   * @param opponents the opponents (each a {@link TicTacToeOpponent}) with positive weights
   * @param seat the agent's seat
   * @param attempts attempts per meta-episode
   * @param samples samples per board of the move distributions without a closed form (MCTS)
   * @param seed the seed of the samples
   * @return the ceilings
   * @throws IllegalArgumentException if the pool is empty, an opponent does not play Tic-Tac-Toe, a weight is not
   *     positive, or attempts or samples are below 1
   */
  public static Ceilings of(List<OpponentPool.Entry> opponents, Seat seat, int attempts, int samples, long seed) {
    return solve(opponents, seat, samples, seed).ceilings(attempts);
  }

  /** Solves a pool; for the tests, which also play its strategies. */
  static TicTacToeCeilings solve(List<OpponentPool.Entry> opponents, Seat seat, int samples, long seed) {
    return new TicTacToeCeilings(opponents, seat, samples, seed);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // the recursions

  private void solve() {
    for (int i = 0; i < n; i++) {
      starts.add(new ArrayList<>());
    }
    if (agentFirst) {
      double[] ones = new double[n];
      java.util.Arrays.fill(ones, 1);
      double[] blind = joint(0, 0, 0, ones);
      collect(0, 0, 0, ones);
      for (int i = 0; i < n; i++) {
        starts.get(i).add(new double[] {1, oracle(i, 0, 0), blind[i]});
      }
    } else {
      double[][] openings = new double[n][];
      for (int i = 0; i < n; i++) {
        openings[i] = models[i].at(0, 0);
      }
      for (int c = 0; c < Board.CELLS; c++) {
        double[] reach = new double[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
          reach[i] = openings[i][c];
          any |= reach[i] > 0;
        }
        if (!any) {
          continue;
        }
        long hist = c + 1;
        double[] blind = joint(0, 1 << c, hist, reach);
        collect(0, 1 << c, hist, reach);
        for (int i = 0; i < n; i++) {
          if (reach[i] > 0) {
            starts.get(i).add(new double[] {reach[i], oracle(i, 0, 1 << c), blind[i]});
          }
        }
      }
    }
    decisions = null;
  }

  private boolean agentToMove(int x, int o) {
    int xs = Integer.bitCount(x);
    int os = Integer.bitCount(o);
    return agentFirst ? xs == os : os == xs + 1;
  }

  /** @return WIN when X has a line, 0 for an O line or a full board, RUNNING otherwise */
  private static int status(int x, int o) {
    if (Board.hasLine(x)) {
      return WIN;
    }
    return Board.hasLine(o) || (x | o) == FULL ? 0 : RUNNING;
  }

  /** The best response's win probability against opponent i from a running board. */
  private double oracle(int i, int x, int o) {
    int code = x | o << 9;
    double v = oracleValue[i][code];
    if (!Double.isNaN(v)) {
      return v;
    }
    int empty = FULL & ~(x | o);
    if (agentToMove(x, o)) {
      v = -1;
      int best = -1;
      for (int c = 0; c < Board.CELLS; c++) {
        if ((empty & (1 << c)) != 0) {
          double w = oracleAfter(i, x | 1 << c, o);
          if (w > v + TIE) {
            v = w;
            best = c;
          }
        }
      }
      oracleMove[i][code] = (byte) best;
    } else {
      double[] d = models[i].at(x, o);
      v = 0;
      for (int c = 0; c < Board.CELLS; c++) {
        if (d[c] > 0) {
          v += d[c] * oracleAfter(i, x, o | 1 << c);
        }
      }
    }
    oracleValue[i][code] = v;
    return v;
  }

  private double oracleAfter(int i, int x, int o) {
    int s = status(x, o);
    return s == RUNNING ? oracle(i, x, o) : s;
  }

  /**
   * The joint recursion of the history-blind policy from a running board.
   *
   * @param hist the moves so far, 4 bits each (cell + 1), the latest lowest
   * @param reach per opponent, the probability that its moves so far were made
   * @return per opponent reached, the policy's win probability from here (0 for opponents not reached)
   */
  private double[] joint(int x, int o, long hist, double[] reach) {
    int empty = FULL & ~(x | o);
    if (agentToMove(x, o)) {
      double total = 0;
      for (int i = 0; i < n; i++) {
        total += weights[i] * reach[i];
      }
      double bestScore = -1;
      double[] bestValues = null;
      int best = -1;
      for (int c = 0; c < Board.CELLS; c++) {
        if ((empty & (1 << c)) != 0) {
          double[] v = jointAfter(x | 1 << c, o, hist << 4 | (c + 1), reach);
          double score = 0;
          for (int i = 0; i < n; i++) {
            score += weights[i] * reach[i] * v[i];
          }
          if (score > bestScore + TIE * total) {
            bestScore = score;
            bestValues = v;
            best = c;
          }
        }
      }
      decisions.put(hist, best);
      return bestValues;
    }
    double[][] d = new double[n][];
    for (int i = 0; i < n; i++) {
      if (reach[i] > 0) {
        d[i] = models[i].at(x, o);
      }
    }
    double[] values = new double[n];
    for (int c = 0; c < Board.CELLS; c++) {
      if ((empty & (1 << c)) == 0) {
        continue;
      }
      double[] next = new double[n];
      boolean any = false;
      for (int i = 0; i < n; i++) {
        if (d[i] != null && d[i][c] > 0) {
          next[i] = reach[i] * d[i][c];
          any = true;
        }
      }
      if (any) {
        double[] v = jointAfter(x, o | 1 << c, hist << 4 | (c + 1), next);
        for (int i = 0; i < n; i++) {
          if (next[i] > 0) {
            values[i] += d[i][c] * v[i];
          }
        }
      }
    }
    return values;
  }

  private double[] jointAfter(int x, int o, long hist, double[] reach) {
    int s = status(x, o);
    if (s == RUNNING) {
      return joint(x, o, hist, reach);
    }
    double[] v = new double[n];
    if (s == WIN) {
      java.util.Arrays.fill(v, 1);
    }
    return v;
  }

  /** Keeps the history-blind policy's decisions at the points its games reach. */
  private void collect(int x, int o, long hist, double[] reach) {
    if (status(x, o) != RUNNING) {
      return;
    }
    if (agentToMove(x, o)) {
      int c = decisions.get(hist);
      blindPolicy.put(hist, c);
      Integer before = blindByBoard.putIfAbsent(x | o << 9, c);
      if (before != null && before != c) {
        blindReadsBoardOnly = false;
      }
      collect(x | 1 << c, o, hist << 4 | (c + 1), reach);
      return;
    }
    for (int c = 0; c < Board.CELLS; c++) {
      if (((x | o) & (1 << c)) != 0) {
        continue;
      }
      double[] next = new double[n];
      boolean any = false;
      for (int i = 0; i < n; i++) {
        if (reach[i] > 0) {
          next[i] = reach[i] * models[i].at(x, o)[c];
          any |= next[i] > 0;
        }
      }
      if (any) {
        collect(x, o | 1 << c, hist << 4 | (c + 1), next);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // results and checks

  /** @return the rates of this solution over the given number of attempts */
  Ceilings ceilings(int attempts) {
    if (attempts < 1) {
      throw new IllegalArgumentException("need at least 1 attempt, got " + attempts);
    }
    List<OpponentCeiling> out = new ArrayList<>();
    double[] poolOracle = new double[attempts];
    double[] poolBlind = new double[attempts];
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    for (int i = 0; i < n; i++) {
      double[] oracle = new double[attempts];
      double[] blind = new double[attempts];
      for (double[] s : starts.get(i)) {
        for (int k = 0; k < attempts; k++) {
          oracle[k] += s[0] * (1 - Math.pow(1 - s[1], k + 1));
          blind[k] += s[0] * (1 - Math.pow(1 - s[2], k + 1));
        }
      }
      for (int k = 0; k < attempts; k++) {
        poolOracle[k] += weights[i] / total * oracle[k];
        poolBlind[k] += weights[i] / total * blind[k];
      }
      boolean sampled = models[i].sampled();
      double p = oracle[0];
      out.add(new OpponentCeiling(entries.get(i).opponent().id(), weights[i], sampled, AttemptCeiling.ofPassAt(oracle),
          AttemptCeiling.ofPassAt(blind), sampled ? bestResponseCheck(i) : p, sampled ? blindCheck(i) : blind[0],
          sampled ? Math.sqrt(p * (1 - p) / samples) : 0));
    }
    int sampledBoards = 0;
    for (int i = 0; i < n; i++) {
      sampledBoards += models[i].sampledBoards();
      if (checkModels[i] != models[i]) {
        sampledBoards += checkModels[i].sampledBoards();
      }
    }
    return new Ceilings(agentFirst ? Seat.FIRST : Seat.SECOND, samples, out, AttemptCeiling.ofPassAt(poolOracle),
        AttemptCeiling.ofPassAt(poolBlind), blindReadsBoardOnly, sampledBoards);
  }

  /** The best response to opponent i (found on the samples) evaluated on fresh samples. */
  private double bestResponseCheck(int i) {
    Map<Integer, Double> memo = new HashMap<>();
    return overStarts(checkModels[i], (x, o) -> responseValue(i, x, o, memo));
  }

  private double responseValue(int i, int x, int o, Map<Integer, Double> memo) {
    int s = status(x, o);
    if (s != RUNNING) {
      return s;
    }
    Double known = memo.get(x | o << 9);
    if (known != null) {
      return known;
    }
    double v;
    if (agentToMove(x, o)) {
      v = responseValue(i, x | 1 << bestMove(i, x, o), o, memo);
    } else {
      double[] d = checkModels[i].at(x, o);
      v = 0;
      for (int c = 0; c < Board.CELLS; c++) {
        if (d[c] > 0) {
          v += d[c] * responseValue(i, x, o | 1 << c, memo);
        }
      }
    }
    memo.put(x | o << 9, v);
    return v;
  }

  /** The history-blind policy evaluated against opponent i on fresh samples. */
  private double blindCheck(int i) {
    return overStarts(checkModels[i], (x, o) -> blindValue(i, x, o, x == 0 && o == 0 ? 0 : hist(o)));
  }

  private static long hist(int o) {
    return Integer.numberOfTrailingZeros(o) + 1;
  }

  private double blindValue(int i, int x, int o, long hist) {
    int s = status(x, o);
    if (s != RUNNING) {
      return s;
    }
    if (agentToMove(x, o)) {
      int c = blindMove(hist, x, o);
      return blindValue(i, x | 1 << c, o, hist << 4 | (c + 1));
    }
    double[] d = checkModels[i].at(x, o);
    double v = 0;
    for (int c = 0; c < Board.CELLS; c++) {
      if (d[c] > 0) {
        v += d[c] * blindValue(i, x, o | 1 << c, hist << 4 | (c + 1));
      }
    }
    return v;
  }

  /** The value from the agent's start boards, the opening drawn from the model in the second seat. */
  private double overStarts(Moves model, BoardValue value) {
    if (agentFirst) {
      return value.at(0, 0);
    }
    double[] d = model.at(0, 0);
    double v = 0;
    for (int c = 0; c < Board.CELLS; c++) {
      if (d[c] > 0) {
        v += d[c] * value.at(0, 1 << c);
      }
    }
    return v;
  }

  /** A value of a board. */
  private interface BoardValue {
    double at(int x, int o);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // the strategies, for the tests

  /** @return the best response's move against opponent i on a running board where the agent moves */
  int bestMove(int i, int x, int o) {
    oracle(i, x, o);
    return oracleMove[i][x | o << 9];
  }

  /**
   * The best response's move against an opponent.
   *
   * @param opponent the index of the opponent in the pool
   * @param board a running board where the agent (X) moves
   * @return the cell index
   */
  int bestMove(int opponent, Board board) {
    return bestMove(opponent, board.xBits(), board.oBits());
  }

  /**
   * The history-blind policy's move: the move it chose at this point of the game, or (at a point its games never
   * reach, which the sampled distributions gave probability 0) the first of minimax's best moves.
   *
   * @param moves the cell indices played so far in this game, both players', in order
   * @return the cell index
   */
  int blindMove(List<Integer> moves) {
    long hist = 0;
    int x = 0;
    int o = 0;
    boolean xMoves = agentFirst;
    for (int c : moves) {
      hist = hist << 4 | (c + 1);
      if (xMoves) {
        x |= 1 << c;
      } else {
        o |= 1 << c;
      }
      xMoves = !xMoves;
    }
    return blindMove(hist, x, o);
  }

  private int blindMove(long hist, int x, int o) {
    Integer c = blindPolicy.get(hist);
    return c != null ? c : TicTacToeMinimax.bestMoves(Board.ofMasks(x, o), Mark.X).get(0);
  }

  /** @return the history-blind policy's move per board (cell masks {@code x | o << 9}) at the boards it reaches */
  Map<Integer, Integer> blindMovesByBoard() {
    return Collections.unmodifiableMap(blindByBoard);
  }

  /** @return the history-blind policy's move per history at the points it reaches */
  Map<Long, Integer> blindMovesByHistory() {
    return Collections.unmodifiableMap(blindPolicy);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // move distributions

  private static Moves model(TicTacToeOpponent opp, int samples, long seed) {
    if (opp instanceof RandomOpponent) {
      return new Moves() {
        @Override
        double[] compute(int x, int o) {
          int empty = FULL & ~(x | o);
          double[] d = new double[Board.CELLS];
          for (int c = 0; c < Board.CELLS; c++) {
            if ((empty & (1 << c)) != 0) {
              d[c] = 1.0 / Integer.bitCount(empty);
            }
          }
          return d;
        }
      };
    }
    if (opp instanceof PreferredPositionOpponent) {
      List<Cell> order = ((PreferredPositionOpponent) opp).preferences();
      Moves uniform = model(new RandomOpponent(), samples, seed);
      return new Moves() {
        @Override
        double[] compute(int x, int o) {
          for (Cell cell : order) {
            if (((x | o) & (1 << cell.index())) == 0) {
              double[] d = new double[Board.CELLS];
              d[cell.index()] = 1;
              return d;
            }
          }
          return uniform.at(x, o);
        }
      };
    }
    if (opp instanceof MinimaxOpponent) {
      return new Moves() {
        @Override
        double[] compute(int x, int o) {
          List<Integer> best = TicTacToeMinimax.bestMoves(Board.ofMasks(x, o), Mark.O);
          double[] d = new double[Board.CELLS];
          for (int c : best) {
            d[c] = 1.0 / best.size();
          }
          return d;
        }
      };
    }
    return new Sampled(opp, samples, seed, opp instanceof MctsOpponent);
  }

  /** An opponent's move distribution per board (O to move), memoised. */
  private abstract static class Moves {
    private final Map<Integer, double[]> cache = new HashMap<>();

    final double[] at(int x, int o) {
      int code = x | o << 9;
      double[] d = cache.get(code);
      if (d == null) {
        d = compute(x, o);
        cache.put(code, d);
      }
      return d;
    }

    abstract double[] compute(int x, int o);

    boolean sampled() {
      return false;
    }

    int sampledBoards() {
      return 0;
    }
  }

  /** A distribution estimated from {@code samples} calls of {@code chooseMove} per (canonical) board. */
  private static final class Sampled extends Moves {
    private final TicTacToeOpponent opponent;
    private final int samples;
    private final long seed;
    private final boolean symmetric;
    private final Map<Integer, double[]> canonical = new HashMap<>();

    Sampled(TicTacToeOpponent opponent, int samples, long seed, boolean symmetric) {
      this.opponent = opponent;
      this.samples = samples;
      this.seed = seed;
      this.symmetric = symmetric;
    }

    @Override
    boolean sampled() {
      return true;
    }

    @Override
    int sampledBoards() {
      return canonical.size();
    }

    @Override
    double[] compute(int x, int o) {
      if (!symmetric) {
        return canonical.computeIfAbsent(x | o << 9, k -> sample(x, o));
      }
      int bestSym = 0;
      int bestCode = Integer.MAX_VALUE;
      for (int s = 0; s < Symmetry.COUNT; s++) {
        int code = Symmetry.map(s, x) | Symmetry.map(s, o) << 9;
        if (code < bestCode) {
          bestCode = code;
          bestSym = s;
        }
      }
      int cx = bestCode & FULL;
      int co = bestCode >>> 9;
      double[] dc = canonical.computeIfAbsent(bestCode, k -> sample(cx, co));
      double[] d = new double[Board.CELLS];
      for (int c = 0; c < Board.CELLS; c++) {
        d[c] = dc[Symmetry.cell(bestSym, c)];
      }
      return d;
    }

    private double[] sample(int x, int o) {
      Board board = Board.ofMasks(x, o);
      Random random = new Random(mix(seed, x | o << 9));
      int[] counts = new int[Board.CELLS];
      for (int s = 0; s < samples; s++) {
        counts[opponent.chooseMove(board, Mark.O, random)]++;
      }
      double[] d = new double[Board.CELLS];
      for (int c = 0; c < Board.CELLS; c++) {
        d[c] = (double) counts[c] / samples;
      }
      return d;
    }
  }

  /** The eight symmetries of the square as permutations of the cells. */
  static final class Symmetry {
    static final int COUNT = 8;
    private static final int[][] CELL = new int[COUNT][Board.CELLS];
    private static final int[][] MASK = new int[COUNT][1 << Board.CELLS];

    static {
      for (int s = 0; s < COUNT; s++) {
        for (int c = 0; c < Board.CELLS; c++) {
          int r = c / 3;
          int k = c % 3;
          // s & 3 quarter turns, then a mirror when s >= 4
          for (int t = 0; t < (s & 3); t++) {
            int nr = k;
            int nk = 2 - r;
            r = nr;
            k = nk;
          }
          if (s >= 4) {
            k = 2 - k;
          }
          CELL[s][c] = r * 3 + k;
        }
        for (int m = 0; m < (1 << Board.CELLS); m++) {
          int out = 0;
          for (int c = 0; c < Board.CELLS; c++) {
            if ((m & (1 << c)) != 0) {
              out |= 1 << CELL[s][c];
            }
          }
          MASK[s][m] = out;
        }
      }
    }

    private Symmetry() {}

    static int cell(int s, int c) {
      return CELL[s][c];
    }

    static int map(int s, int mask) {
      return MASK[s][mask];
    }
  }

  /**
   * SplitMix64's finaliser of a seed and a salt: {@code mix(seed + (salt + 1) * GOLDEN_GAMMA)}, the {@code (salt +
   * 1)}-th value of a SplitMix64 generator seeded {@code seed}.
   */
  static long mix(long seed, long salt) {
    return SplitMix64.nth(seed, salt + 1);
  }
}
