package org.magejvm.examples.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.sokoban.SokobanConfig;
import org.magejvm.impl.env.sokoban.SokobanEnvironment;
import org.magejvm.impl.env.sokoban.SokobanGenerator;
import org.magejvm.impl.env.sokoban.SokobanProvider;
import org.magejvm.spi.StepResult;

/**
 * Measures the built-in Sokoban environment on one thread: rooms generated per second (reverse play plus the
 * solver check) for 1, 2 and 3 boxes in the default 6x6 room, and environment turns per second when the Sokoban
 * random policy plays (3 random moves per turn, episodes cut at the reference's 7 turns, each turn's pushes
 * checked for dead positions by the solver).
 *
 * <p>Usage: {@code SokobanBench [seconds per measurement, default 3]}. Every measurement is preceded by a warm-up
 * of the same length. Rates are given per wall-clock second and per second of the thread's CPU time; on a busy
 * machine the second figure is the steadier one.
 */
public final class SokobanBench {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private SokobanBench() {}

  /** @return the current thread's CPU time in nanoseconds, or the wall clock when the JVM cannot measure it */
  private static long cpuNanos() {
    return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
  }

  /**
   * Runs the benchmark.
   *
   * @param args optional: seconds per measurement
   */
  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
    System.out.printf(Locale.ROOT, "Sokoban benchmark (Java %s, %d cores, %.1f s per measurement)%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), seconds);
    for (int boxes = 1; boxes <= 3; boxes++) {
      SokobanConfig config = SokobanConfig.builder().optBoxes(boxes).build();
      generation(config, seconds, 0);
      RoomStats s = generation(config, seconds, 1_000_000);
      System.out.printf(Locale.ROOT,
          "generation  6x6, %d box(es): %8.0f rooms/s wall, %8.0f rooms/s CPU  (%.2f attempts per room, mean"
              + " shortest solution %.1f moves, %d rooms)%n", boxes, s.rooms / s.seconds, s.rooms / s.cpuSeconds,
          s.attempts / (double) s.rooms,
          s.solutionMoves / (double) s.rooms, s.rooms);
    }
    play(seconds, 0);
    PlayStats p = play(seconds, 1_000_000);
    System.out.printf(Locale.ROOT,
        "random play 6x6, 2 boxes: %8.0f turns/s wall, %8.0f turns/s CPU, %8.0f moves/s CPU  (%d episodes:"
            + " %.1f%% solved, %.1f%% dead, %.1f%% cut at 7 turns; the time covers the policy, parsing, stepping"
            + " and restarts)%n",
        p.turns / p.seconds, p.turns / p.cpuSeconds, p.moves / p.cpuSeconds, p.episodes, 100.0 * p.solved / p.episodes,
        100.0 * p.dead / p.episodes, 100.0 * (p.episodes - p.solved - p.dead) / p.episodes);
  }

  private record RoomStats(int rooms, long attempts, long solutionMoves, double seconds, double cpuSeconds) {}

  private static RoomStats generation(SokobanConfig config, double seconds, long firstSeed) {
    SokobanGenerator generator = new SokobanGenerator(config);
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    long start = System.nanoTime();
    long cpuStart = cpuNanos();
    int rooms = 0;
    long attempts = 0;
    long moves = 0;
    while (System.nanoTime() < deadline) {
      SokobanGenerator.Result r = generator.generate(firstSeed + rooms);
      attempts += r.attempts();
      moves += r.solution().size();
      rooms++;
    }
    return new RoomStats(rooms, attempts, moves, (System.nanoTime() - start) / 1e9, (cpuNanos() - cpuStart) / 1e9);
  }

  private record PlayStats(
      long turns, long moves, int episodes, int solved, int dead, double seconds, double cpuSeconds) {}

  private static PlayStats play(double seconds, long firstSeed) {
    SokobanProvider provider = new SokobanProvider();
    SokobanEnvironment env = provider.create(Map.of());
    LanguagePolicy policy = provider.scriptedPolicy("random", 7);
    SamplingConfig sampling = SamplingConfig.evaluation(16);
    int maxTurns = provider.defaults().maxTurns();
    int episodesPerRoom = 20;
    long turns = 0;
    long moves = 0;
    int episodes = 0;
    int solved = 0;
    int dead = 0;
    double elapsed = 0;
    double cpu = 0;
    long seed = firstSeed;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < deadline) {
      env.reset(seed++, null, Seat.FIRST);
      long t0 = System.nanoTime();
      long c0 = cpuNanos();
      for (int e = 0; e < episodesPerRoom; e++) {
        env.restart();
        StepResult r = null;
        for (int t = 0; t < maxTurns && !env.isDone(); t++) {
          PolicyRequest request = new PolicyRequest(env.observation(), Phase.PLAY, "bench", e, t,
              env.legalActions(), env.state(), List.of());
          Generation g = policy.generate(List.of(request), sampling).get(0);
          r = env.step(g.text());
          turns++;
        }
        moves += env.movesUsed();
        episodes++;
        if (r != null && r.won()) {
          solved++;
        } else if (env.isDone()) {
          dead++;
        }
      }
      elapsed += (System.nanoTime() - t0) / 1e9;
      cpu += (cpuNanos() - c0) / 1e9;
    }
    return new PlayStats(turns, moves, episodes, solved, dead, elapsed, cpu);
  }
}
