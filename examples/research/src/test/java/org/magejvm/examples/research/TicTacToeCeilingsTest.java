package org.magejvm.examples.research;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.env.tictactoe.Board;
import org.magejvm.impl.env.tictactoe.Cell;
import org.magejvm.impl.env.tictactoe.Mark;
import org.magejvm.impl.env.tictactoe.MctsOpponent;
import org.magejvm.impl.env.tictactoe.PreferredPositionOpponent;
import org.magejvm.impl.env.tictactoe.RandomOpponent;
import org.magejvm.impl.env.tictactoe.TicTacToeEnvironment;
import org.magejvm.impl.env.tictactoe.TicTacToeOpponent;
import org.magejvm.spi.StepResult;

class TicTacToeCeilingsTest {

  /** The mask with all nine cell bits set. */
  private static final int FULL = (1 << Board.CELLS) - 1;

  /** The eight winning lines as cell masks: the three-cell masks that hold a line. */
  private static final List<Integer> LINES = java.util.stream.IntStream.range(0, FULL + 1)
      .filter(m -> Integer.bitCount(m) == 3 && Board.hasLine(m)).boxed().toList();

  /** @return a response holding the 0-based cell index as a move */
  private static String act(int index) {
    return "<action>" + Cell.of(index).text() + "</action>";
  }

  /** A strategy of the agent: its move given the moves of the game so far and the board. */
  private interface Player {
    int move(List<Integer> moves, Board board);
  }

  private static OpponentPool.Entry entry(TicTacToeOpponent o, double weight) {
    return new OpponentPool.Entry(o, weight);
  }

  /** The training pool without MCTS: every distribution exact. */
  private static List<OpponentPool.Entry> exactPool() {
    List<OpponentPool.Entry> pool = new ArrayList<>();
    for (PreferredPositionOpponent p : PreferredPositionOpponent.builtIns()) {
      pool.add(entry(p, 1));
    }
    pool.add(entry(new RandomOpponent(), 3));
    return pool;
  }

  /**
   * Plays one game through the environment (already reset or restarted) and returns its last step. The player sees
   * the moves so far, read off the boards the environment shows.
   */
  private static StepResult play(TicTacToeEnvironment env, Player player) {
    Board board = Board.parse(env.observation());
    List<Integer> moves = new ArrayList<>();
    if (board.oBits() != 0) {
      moves.add(Integer.numberOfTrailingZeros(board.oBits()));
    }
    while (true) {
      int cell = player.move(List.copyOf(moves), board);
      StepResult r = env.step(act(cell));
      assertThat(r.actionValid()).as("move %d on\n%s", cell, board).isTrue();
      Board after = Board.parse(r.observation());
      moves.add(cell);
      int reply = after.oBits() & ~board.oBits();
      if (reply != 0) {
        moves.add(Integer.numberOfTrailingZeros(reply));
      }
      board = after;
      if (r.done()) {
        return r;
      }
    }
  }

  private static StepResult playOnce(TicTacToeOpponent opp, Seat seat, long seed, Player player) {
    TicTacToeEnvironment env = new TicTacToeEnvironment();
    env.reset(seed, opp, seat);
    return play(env, player);
  }

  /** The most an agent can win against the uniformly random player, by plain recursion over boards. */
  private static double bruteForceAgainstRandom(Board b, Mark toMove) {
    if (b.winner() == Mark.X) {
      return 1;
    }
    if (b.winner() == Mark.O || b.isFull()) {
      return 0;
    }
    List<Integer> empty = b.emptyCells();
    if (toMove == Mark.X) {
      double best = 0;
      for (int c : empty) {
        best = Math.max(best, bruteForceAgainstRandom(b.place(c, Mark.X), Mark.O));
      }
      return best;
    }
    double sum = 0;
    for (int c : empty) {
      sum += bruteForceAgainstRandom(b.place(c, Mark.O), Mark.X);
    }
    return sum / empty.size();
  }

  private static void assertConsistent(AttemptCeiling c, String what) {
    List<Double> pass = c.passAt();
    for (int k = 0; k < c.attempts(); k++) {
      double before = k == 0 ? 0 : pass.get(k - 1);
      assertThat(pass.get(k)).as("%s Pass@%d", what, k + 1).isBetween(before - 1e-12, 1.0 + 1e-12);
      if (before < 1) {
        assertThat(c.perAttempt().get(k)).as("%s per-attempt %d", what, k)
            .isCloseTo((pass.get(k) - before) / (1 - before), within(1e-12));
      }
    }
  }

  @Test
  void bestResponsesAndTheBlindPolicyBeatEveryPreferredPlayerThroughTheEnvironmentAsComputed() {
    for (Seat seat : Seat.values()) {
      List<OpponentPool.Entry> pool = exactPool();
      TicTacToeCeilings solved = TicTacToeCeilings.solve(pool, seat, 1, 0);
      TicTacToeCeilings.Ceilings c = solved.ceilings(3);
      for (int i = 0; i < 6; i++) {
        TicTacToeOpponent opp = (TicTacToeOpponent) pool.get(i).opponent();
        TicTacToeCeilings.OpponentCeiling oc = c.opponent(opp.id());
        assertThat(oc.sampled()).isFalse();
        int index = i;
        StepResult best = playOnce(opp, seat, 7, (moves, board) -> solved.bestMove(index, board));
        assertThat(best.won() ? 1.0 : 0.0).as("%s %s best response", seat, opp.id()).isEqualTo(oc.bestResponseWin());
        StepResult blind = playOnce(opp, seat, 7, (moves, board) -> solved.blindMove(moves));
        assertThat(blind.won() ? 1.0 : 0.0).as("%s %s blind", seat, opp.id()).isEqualTo(oc.blindWin());
        // none of them blocks a threat, so a player who knows it wins every game
        assertThat(oc.bestResponseWin()).isEqualTo(1.0);
      }
    }
  }

  @Test
  void againstRandomTheExpectimaxIsTheBruteForceValueAndWhatTheStrategiesWinThroughTheEnvironment() {
    RandomOpponent random = new RandomOpponent();
    for (Seat seat : Seat.values()) {
      // the blind policy of the exact pool, so that it is not simply the best response
      TicTacToeCeilings solved = TicTacToeCeilings.solve(
          List.of(entry(random, 1), entry(PreferredPositionOpponent.edgesFirst(), 1)), seat, 1, 0);
      TicTacToeCeilings.OpponentCeiling oc = solved.ceilings(3).opponent(RandomOpponent.ID);
      double brute;
      if (seat == Seat.FIRST) {
        brute = bruteForceAgainstRandom(Board.EMPTY, Mark.X);
      } else {
        brute = 0;
        for (int c = 0; c < Board.CELLS; c++) {
          brute += bruteForceAgainstRandom(Board.EMPTY.place(c, Mark.O), Mark.X) / Board.CELLS;
        }
      }
      assertThat(oc.bestResponseWin()).as(seat.name()).isCloseTo(brute, within(1e-12));
      assertThat(oc.blindWin()).isLessThanOrEqualTo(oc.bestResponseWin() + 1e-12);

      int games = 3000;
      int bestWins = 0;
      int blindWins = 0;
      for (int g = 0; g < games; g++) {
        bestWins += playOnce(random, seat, g, (moves, board) -> solved.bestMove(0, board)).won() ? 1 : 0;
        blindWins += playOnce(random, seat, g, (moves, board) -> solved.blindMove(moves)).won() ? 1 : 0;
      }
      double p = oc.bestResponseWin();
      assertThat((double) bestWins / games).as("%s best response", seat)
          .isCloseTo(p, within(4 * Math.sqrt(p * (1 - p) / games)));
      double q = oc.blindWin();
      assertThat((double) blindWins / games).as("%s blind", seat)
          .isCloseTo(q, within(4 * Math.sqrt(q * (1 - q) / games)));
    }
  }

  @Test
  void passAtKOfMetaEpisodesWithRestartsMatchesIndependentAttemptsAgainstRandom() {
    // the second seat replays the opponent's opening in every attempt: Pass@k averages over the openings
    RandomOpponent random = new RandomOpponent();
    TicTacToeCeilings solved = TicTacToeCeilings.solve(List.of(entry(random, 1)), Seat.SECOND, 1, 0);
    AttemptCeiling ceiling = solved.ceilings(3).adaptive();
    int metaEpisodes = 3000;
    int[] wonAt = new int[3];
    int[] reached = new int[3];
    for (int m = 0; m < metaEpisodes; m++) {
      TicTacToeEnvironment env = new TicTacToeEnvironment();
      env.reset(1000 + m, random, Seat.SECOND);
      for (int k = 0; k < 3; k++) {
        if (k > 0) {
          env.restart();
        }
        reached[k]++;
        if (play(env, (moves, board) -> solved.bestMove(0, board)).won()) {
          wonAt[k]++;
          break;
        }
      }
    }
    AttemptCeiling played = AttemptCeiling.ofCounts(wonAt, reached, metaEpisodes);
    for (int k = 0; k < 3; k++) {
      double p = ceiling.passAt().get(k);
      assertThat(played.passAt().get(k)).as("Pass@%d", k + 1)
          .isCloseTo(p, within(4 * Math.sqrt(p * (1 - p) / metaEpisodes) + 1e-9));
    }
    assertThat(ceiling.passAt().get(0)).isLessThan(ceiling.passAt().get(1));
  }

  @Test
  void theTrainingPoolsRatesAreConsistentAndWeightedByThePoolsWeights() {
    TicTacToeCeilings.Ceilings c = TicTacToeCeilings.trainingPool(Seat.FIRST, 3, 16, 1);
    assertThat(c.opponents()).extracting(TicTacToeCeilings.OpponentCeiling::opponentId).containsExactly("mcts-100",
        "preferred-center-first", "preferred-corners-first", "preferred-edges-first", "preferred-main-diagonal",
        "preferred-anti-diagonal", "preferred-reverse", "random");
    assertThat(c.opponents()).extracting(TicTacToeCeilings.OpponentCeiling::weight)
        .containsExactly(7.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0);
    assertThat(c.opponent("mcts-100").sampled()).isTrue();
    assertThat(c.opponent("mcts-100").standardError()).isPositive();
    assertThat(c.opponent("random").sampled()).isFalse();
    assertConsistent(c.adaptive(), "adaptive");
    assertConsistent(c.blind(), "blind");
    double[] weighted = new double[3];
    double[] unweighted = new double[3];
    for (TicTacToeCeilings.OpponentCeiling o : c.opponents()) {
      assertConsistent(o.adaptive(), o.opponentId());
      assertConsistent(o.blind(), o.opponentId());
      for (int k = 0; k < 3; k++) {
        assertThat(o.blind().passAt().get(k)).isLessThanOrEqualTo(o.adaptive().passAt().get(k) + 1e-12);
        // attempts are independent given the opponent (first seat: no opening to share)
        assertThat(o.adaptive().passAt().get(k))
            .isCloseTo(1 - Math.pow(1 - o.bestResponseWin(), k + 1), within(1e-12));
        weighted[k] += o.weight() / 16 * o.adaptive().passAt().get(k);
        unweighted[k] += o.adaptive().passAt().get(k) / 8;
      }
    }
    for (int k = 0; k < 3; k++) {
      assertThat(c.adaptive().passAt().get(k)).isCloseTo(weighted[k], within(1e-12));
      assertThat(c.blind().passAt().get(k)).isLessThanOrEqualTo(c.adaptive().passAt().get(k) + 1e-12);
    }
    // MCTS-100 (weight 7) is far harder than the rest: the weights move the pool's rate
    assertThat(Math.abs(weighted[0] - unweighted[0])).isGreaterThan(0.05);
    assertThat(c.opponent("random").bestResponseWin())
        .isCloseTo(bruteForceAgainstRandom(Board.EMPTY, Mark.X), within(1e-12));
  }

  @Test
  void theBlindPolicyIsOnePolicyTheWeightsChoose() {
    // MCTS and random want different moves with the agent second: the heavier one gets its best response
    MctsOpponent mcts = new MctsOpponent(30);
    RandomOpponent random = new RandomOpponent();
    TicTacToeCeilings.Ceilings mctsHeavy = TicTacToeCeilings.of(List.of(entry(mcts, 1), entry(random, 1e-6)),
        Seat.SECOND, 3, 16, 1);
    TicTacToeCeilings.Ceilings randomHeavy = TicTacToeCeilings.of(List.of(entry(mcts, 1e-6), entry(random, 1)),
        Seat.SECOND, 3, 16, 1);
    TicTacToeCeilings.OpponentCeiling m1 = mctsHeavy.opponent(mcts.id());
    TicTacToeCeilings.OpponentCeiling r1 = mctsHeavy.opponent(RandomOpponent.ID);
    TicTacToeCeilings.OpponentCeiling m2 = randomHeavy.opponent(mcts.id());
    TicTacToeCeilings.OpponentCeiling r2 = randomHeavy.opponent(RandomOpponent.ID);
    assertThat(m1.bestResponseWin()).isEqualTo(m2.bestResponseWin());
    assertThat(m1.blindWin()).isCloseTo(m1.bestResponseWin(), within(1e-12));
    assertThat(r2.blindWin()).isCloseTo(r2.bestResponseWin(), within(1e-12));
    assertThat(r1.blindWin()).isLessThan(r1.bestResponseWin() - 0.02);
    assertThat(m2.blindWin()).isLessThan(m2.bestResponseWin() - 0.02);

    // one policy: at every point of a game the same move, whichever opponent it plays
    List<OpponentPool.Entry> pool = new ArrayList<>(exactPool());
    pool.add(entry(mcts, 5));
    TicTacToeCeilings solved = TicTacToeCeilings.solve(pool, Seat.FIRST, 16, 1);
    Map<Board, Set<Integer>> seen = new HashMap<>();
    Set<String> opponentsAtSharedBoards = new HashSet<>();
    Map<Board, String> firstOpponent = new HashMap<>();
    for (OpponentPool.Entry e : pool) {
      TicTacToeOpponent opp = (TicTacToeOpponent) e.opponent();
      for (long seed = 0; seed < (opp instanceof PreferredPositionOpponent ? 1 : 40); seed++) {
        playOnce(opp, Seat.FIRST, seed, (moves, board) -> {
          int move = solved.blindMove(moves);
          seen.computeIfAbsent(board, b -> new HashSet<>()).add(move);
          String before = firstOpponent.putIfAbsent(board, opp.id());
          if (before != null && !before.equals(opp.id())) {
            opponentsAtSharedBoards.add(opp.id());
          }
          return move;
        });
      }
    }
    assertThat(seen.values()).allSatisfy(moves -> assertThat(moves).hasSize(1));
    assertThat(opponentsAtSharedBoards).hasSizeGreaterThan(2);
    assertThat(solved.ceilings(3).blindReadsBoardOnly()).isTrue();
    for (Map.Entry<Integer, Integer> m : solved.blindMovesByBoard().entrySet()) {
      Board b = Board.ofMasks(m.getKey() & FULL, m.getKey() >>> 9);
      if (seen.containsKey(b)) {
        assertThat(seen.get(b)).containsExactly(m.getValue());
      }
    }
  }

  @Test
  void theSampledMctsBestResponseWinsThroughTheEnvironmentWhatItsFreshSamplesSay() {
    // the sampled distribution (with the symmetry reduction) against the real player: a wrong distribution or a
    // wrong mapping of symmetric boards would make the strategy win something else than computed
    MctsOpponent mcts = new MctsOpponent(100);
    int samples = 100;
    TicTacToeCeilings solved = TicTacToeCeilings.solve(List.of(entry(mcts, 1)), Seat.FIRST, samples, 3);
    TicTacToeCeilings.OpponentCeiling oc = solved.ceilings(3).opponent(mcts.id());
    assertThat(oc.sampled()).isTrue();
    assertThat(oc.blindWin()).isCloseTo(oc.bestResponseWin(), within(1e-12));
    int games = 800;
    int wins = 0;
    for (int g = 0; g < games; g++) {
      wins += playOnce(mcts, Seat.FIRST, 5000 + g, (moves, board) -> solved.bestMove(0, board)).won() ? 1 : 0;
    }
    double p = oc.bestResponseCheck();
    double se = Math.sqrt(p * (1 - p) / games + oc.standardError() * oc.standardError());
    assertThat((double) wins / games).isCloseTo(p, within(4 * se));
    // MCTS-100 is beatable but far from random
    assertThat(oc.bestResponseWin()).isBetween(0.4, 0.8);
    assertThat(Math.abs(oc.bestResponseCheck() - oc.bestResponseWin())).isLessThan(4 * oc.standardError());
  }

  @Test
  void theSymmetriesArePermutationsThatMapLinesToLines() {
    Set<String> distinct = new HashSet<>();
    Set<Integer> lines = new HashSet<>();
    assertThat(LINES).hasSize(8);
    for (int line : LINES) {
      lines.add(line);
    }
    for (int s = 0; s < TicTacToeCeilings.Symmetry.COUNT; s++) {
      StringBuilder image = new StringBuilder();
      int covered = 0;
      for (int c = 0; c < Board.CELLS; c++) {
        int to = TicTacToeCeilings.Symmetry.cell(s, c);
        covered |= 1 << to;
        image.append(to);
      }
      assertThat(covered).isEqualTo(FULL);
      distinct.add(image.toString());
      for (int line : LINES) {
        assertThat(lines).contains(TicTacToeCeilings.Symmetry.map(s, line));
      }
    }
    assertThat(distinct).hasSize(8);
  }
}
