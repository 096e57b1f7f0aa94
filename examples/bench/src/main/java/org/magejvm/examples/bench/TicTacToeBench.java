package org.magejvm.examples.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.tictactoe.Board;
import org.magejvm.impl.env.tictactoe.Mark;
import org.magejvm.impl.env.tictactoe.MctsOpponent;
import org.magejvm.impl.env.tictactoe.MinimaxOpponent;
import org.magejvm.impl.env.tictactoe.RandomOpponent;
import org.magejvm.impl.env.tictactoe.TicTacToeOpponent;
import org.magejvm.impl.env.tictactoe.TicTacToeProvider;
import org.magejvm.spi.Environment;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.PromptStyle;

/**
 * Measures the Tic-Tac-Toe environment: environment steps per second with the {@code random} scripted policy
 * against the {@code random} opponent (policy call, action parsing, rules and opponent reply; once without and
 * once with compact prompt rendering), and the time per move of the MCTS and minimax opponents from the empty
 * board and from a mid-game position. Each measurement runs a warm-up first; move times are the median of three
 * timed rounds.
 *
 * <p>Run: {@code mvn -B -q package -DskipTests} then {@code ./mage bench tictactoe [seconds-per-measurement]}
 * (default 3).
 */
public final class TicTacToeBench {

  private static final SamplingConfig SAMPLING = SamplingConfig.training(16);

  private TicTacToeBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args optionally the number of seconds each throughput measurement runs (default 3)
   */
  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("seconds per measurement must be positive, got " + args[0]);
    }
    System.out.printf(Locale.ROOT, "Tic-Tac-Toe benchmark (Java %s, %d processors)%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());

    // warm both paths up before measuring either
    stepThroughput(false, seconds / 2, false);
    stepThroughput(true, seconds / 2, false);
    stepThroughput(false, seconds, true);
    stepThroughput(true, seconds, true);

    Board empty = Board.EMPTY;
    Board mid = Board.parse("X . .\n. O .\n. X .");
    for (TicTacToeOpponent opp : List.of(new MctsOpponent(100), new MctsOpponent(1000), new MinimaxOpponent())) {
      moveTime(opp, empty, Mark.X, "empty board, X to move", seconds);
      moveTime(opp, mid, Mark.O, "mid-game X . . / . O . / . X ., O to move", seconds);
    }
  }

  private static void stepThroughput(boolean renderPrompt, double seconds, boolean report) {
    TicTacToeProvider provider = new TicTacToeProvider();
    Environment env = provider.create(Map.of());
    LanguagePolicy policy = provider.scriptedPolicy("random", 1);
    PromptRenderer renderer = env.promptRenderer();
    TicTacToeOpponent opponent = new RandomOpponent();
    long steps = 0;
    long games = 0;
    long promptChars = 0;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    long start = System.nanoTime();
    while (System.nanoTime() < deadline) {
      for (int batch = 0; batch < 100; batch++) {
        String initial = env.reset(games, opponent, games % 2 == 0 ? Seat.FIRST : Seat.SECOND);
        games++;
        int turn = 0;
        while (!env.isDone()) {
          String prompt = env.observation();
          if (renderPrompt) {
            prompt = renderer.renderPlay(
                new PromptContext(PromptStyle.COMPACT, initial, 0, List.of(), List.of(), null));
            promptChars += prompt.length();
          }
          PolicyRequest req = new PolicyRequest(prompt, Phase.PLAY, "bench", 0, turn++, env.legalActions(),
              env.state(), List.of());
          env.step(policy.generate(List.of(req), SAMPLING).get(0).text());
          steps++;
        }
      }
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    if (report) {
      System.out.printf(Locale.ROOT, "random policy vs random opponent%s: %,.0f steps/s (%,.0f games/s, %.2f"
              + " steps/game, %,d steps in %.1f s)%n",
          renderPrompt ? ", with compact prompt rendering" : "", steps / elapsed, games / elapsed,
          steps / (double) games, steps, elapsed);
    }
    if (promptChars < 0) {
      throw new AssertionError("unreachable; keeps the prompt work observable");
    }
  }

  private static void moveTime(TicTacToeOpponent opp, Board board, Mark mark, String where, double seconds) {
    Random random = new Random(7);
    long checksum = 0;
    // warm-up: a third of the time
    long warmEnd = System.nanoTime() + (long) (seconds / 3 * 1e9);
    while (System.nanoTime() < warmEnd) {
      checksum += opp.chooseMove(board, mark, random);
    }
    double[] rounds = new double[3];
    long moves = 0;
    for (int round = 0; round < rounds.length; round++) {
      long roundMoves = 0;
      long start = System.nanoTime();
      long deadline = start + (long) (seconds / rounds.length * 1e9);
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < 10; i++) {
          checksum += opp.chooseMove(board, mark, random);
        }
        roundMoves += 10;
      }
      rounds[round] = (System.nanoTime() - start) / 1e6 / roundMoves;
      moves += roundMoves;
    }
    Arrays.sort(rounds);
    System.out.printf(Locale.ROOT, "%-10s %-42s %9.4f ms/move (median of 3 rounds, min %.4f; %,d moves;"
        + " checksum %d)%n", opp.id(), where, rounds[1], rounds[0], moves, checksum % 1000);
  }
}
