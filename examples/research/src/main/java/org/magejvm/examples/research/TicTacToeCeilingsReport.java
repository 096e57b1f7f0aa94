package org.magejvm.examples.research;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.env.tictactoe.MctsOpponent;
import org.magejvm.impl.env.tictactoe.TicTacToeProvider;

/**
 * Prints the Tic-Tac-Toe ceilings ({@link TicTacToeCeilings}) with many samples per MCTS board: the training pool with
 * its weights in both seats, the same opponents with equal weights (the mean the method comparison's pool columns
 * report), and the held-out MCTS-1000 alone. Arguments: {@code [samples [seed]]} (default 2000 and 1); with 2000 it
 * takes about a minute on one core. Run it as {@code ./mage bench ttt-ceilings 20000}.
 */
public final class TicTacToeCeilingsReport {

  private TicTacToeCeilingsReport() {}

  /**
   * Prints the report to standard output.
   *
   * @param args {@code [samples [seed]]}
   */
  public static void main(String[] args) {
    if (args.length > 2) {
      throw new IllegalArgumentException("usage: mage bench ttt-ceilings [SAMPLES [SEED]], got " + args.length
          + " arguments");
    }
    int samples = args.length > 0 ? (int) number("SAMPLES", args[0], 1, 10_000_000) : 2000;
    long seed = args.length > 1 ? number("SEED", args[1], Long.MIN_VALUE, Long.MAX_VALUE) : 1;
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    int attempts = new TicTacToeProvider().defaults().episodes();
    List<OpponentPool.Entry> training = new TicTacToeProvider().opponents().training();
    List<OpponentPool.Entry> equal = new ArrayList<>();
    for (OpponentPool.Entry e : training) {
      equal.add(new OpponentPool.Entry(e.opponent(), 1));
    }
    List<OpponentPool.Entry> heldOut = List.of(new OpponentPool.Entry(new MctsOpponent(1000), 1));
    out.printf(Locale.ROOT, "Tic-Tac-Toe ceilings, %d attempts, %d sampled moves per MCTS board, seed %d%n", attempts,
        samples, seed);
    for (Seat seat : Seat.values()) {
      report(out, "training pool (weights 7, 1 x 6, 3)", training, seat, attempts, samples, seed);
    }
    report(out, "pool with equal weights (the comparison's pool columns)", equal, Seat.FIRST, attempts, samples, seed);
    for (Seat seat : Seat.values()) {
      report(out, "held out", heldOut, seat, attempts, samples, seed);
    }
  }

  private static long number(String name, String text, long min, long max) {
    long value;
    try {
      value = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": expected an integer, got '" + text + "'", e);
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + ": " + value + " is outside [" + min + ", " + max + "]");
    }
    return value;
  }

  private static void report(PrintWriter out, String title, List<OpponentPool.Entry> pool, Seat seat, int attempts,
      int samples, long seed) {
    long start = System.nanoTime();
    TicTacToeCeilings.Ceilings c = TicTacToeCeilings.of(pool, seat, attempts, samples, seed);
    out.printf(Locale.ROOT, "%n%s, agent %s (%d boards sampled, %.1f s; the history-blind policy %s)%n", title,
        seat.name().toLowerCase(Locale.ROOT), c.sampledBoards(), (System.nanoTime() - start) / 1e9,
        c.blindReadsBoardOnly() ? "reads the board only" : "reads the order of the moves");
    out.printf(Locale.ROOT, "  %-24s %6s %8s %8s %10s %10s %7s%n", "opponent", "weight", "p*", "p_blind", "p*_fresh",
        "p_fresh", "se");
    for (TicTacToeCeilings.OpponentCeiling o : c.opponents()) {
      out.printf(Locale.ROOT, "  %-24s %6.0f %8.4f %8.4f %10.4f %10.4f %7.4f%s%n", o.opponentId(), o.weight(),
          o.bestResponseWin(), o.blindWin(), o.bestResponseCheck(), o.blindCheck(), o.standardError(),
          o.sampled() ? " sampled" : "");
    }
    line(out, "adaptive ceiling (upper bound)", c.adaptive());
    line(out, "best history-blind policy", c.blind());
    out.flush();
  }

  private static void line(PrintWriter out, String label, AttemptCeiling c) {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "  %-32s Pass@k", label));
    for (double p : c.passAt()) {
      sb.append(String.format(Locale.ROOT, " %.4f", p));
    }
    sb.append("   per attempt");
    for (double p : c.perAttempt()) {
      sb.append(String.format(Locale.ROOT, " %.4f", p));
    }
    out.println(sb);
  }
}
