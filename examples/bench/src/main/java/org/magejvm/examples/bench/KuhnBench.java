package org.magejvm.examples.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.kuhn.KuhnAnalysis;
import org.magejvm.impl.env.kuhn.KuhnCfrSolver;
import org.magejvm.impl.env.kuhn.KuhnOpponent;
import org.magejvm.impl.env.kuhn.KuhnOpponents;
import org.magejvm.impl.env.kuhn.KuhnPokerEnvironment;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.impl.env.kuhn.KuhnStrategyTable;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;

/**
 * Measures the Kuhn Poker environment and its CFR solver.
 *
 * <ol>
 *   <li>CFR: the time of a 1000-iteration solve, cold (the first ones in a fresh JVM, printed one by one) and warm
 *       (after many solves), plus the exploitability of the result.
 *   <li>Environment: steps per second of the scripted {@code random} policy against each random-free archetype,
 *       seats alternating, one hand per reset (a new seed each time); once with the policy call only, and once
 *       also rendering the compact or the verbose play prompt before each step, as the rollout engine does.
 * </ol>
 *
 * <p>Usage: {@code KuhnBench [seconds per measurement, default 2]}. Every configuration first runs once for half
 * that time as a warm-up; each figure is then the median of three measurements.
 */
public final class KuhnBench {

  private KuhnBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args optional: seconds per measurement
   */
  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
    System.out.printf(Locale.ROOT, "Kuhn Poker benchmark (Java %s, %d CPUs, %.1f s per measurement)%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), seconds);
    cfr();
    System.out.println();
    List<KuhnOpponent> opponents = List.of(KuhnOpponents.conservative(), KuhnOpponents.aggressive(),
        KuhnOpponents.intermediate());
    PromptStyle[] styles = {null, PromptStyle.COMPACT, PromptStyle.VERBOSE};
    // warm-up: every configuration once, so the JIT has seen all code paths before anything is measured
    for (KuhnOpponent opp : opponents) {
      for (PromptStyle style : styles) {
        run(opp, style, seconds / 2, new long[2]);
      }
    }
    System.out.println("Environment steps per second, random policy, seats alternating (median of 3 runs):");
    System.out.printf(Locale.ROOT, "%-14s %-10s %14s %14s %12s%n", "opponent", "prompt", "steps/s", "hands/s",
        "steps/hand");
    for (KuhnOpponent opp : opponents) {
      for (PromptStyle style : styles) {
        double[] stepRates = new double[3];
        double[] handRates = new double[3];
        double stepsPerHand = 0;
        for (int rep = 0; rep < 3; rep++) {
          long[] counts = new long[2];
          double elapsed = run(opp, style, seconds, counts);
          stepRates[rep] = counts[0] / elapsed;
          handRates[rep] = counts[1] / elapsed;
          stepsPerHand = (double) counts[0] / counts[1];
        }
        Arrays.sort(stepRates);
        Arrays.sort(handRates);
        System.out.printf(Locale.ROOT, "%-14s %-10s %,14.0f %,14.0f %12.3f%n", opp.id(),
            style == null ? "none" : style.name().toLowerCase(Locale.ROOT), stepRates[1], handRates[1],
            stepsPerHand);
      }
    }
  }

  private static void cfr() {
    int n = KuhnCfrSolver.REFERENCE_ITERATIONS;
    System.out.println("CFR solve (" + n + " iterations, alternating updates), milliseconds:");
    StringBuilder cold = new StringBuilder();
    KuhnStrategyTable last = null;
    for (int i = 0; i < 5; i++) {
      long t0 = System.nanoTime();
      last = new KuhnCfrSolver().iterate(n).averagePolicy();
      cold.append(String.format(Locale.ROOT, "%s%.2f", i == 0 ? "" : ", ", (System.nanoTime() - t0) / 1e6));
    }
    System.out.println("  cold, solves 1-5 in a fresh JVM: " + cold);
    for (int i = 0; i < 300; i++) {
      last = new KuhnCfrSolver().iterate(n).averagePolicy();
    }
    int reps = 50;
    double min = Double.MAX_VALUE;
    double sum = 0;
    for (int i = 0; i < reps; i++) {
      long t0 = System.nanoTime();
      last = new KuhnCfrSolver().iterate(n).averagePolicy();
      double ms = (System.nanoTime() - t0) / 1e6;
      min = Math.min(min, ms);
      sum += ms;
    }
    System.out.printf(Locale.ROOT, "  warm (after 305 solves), %d solves: mean %.3f, min %.3f%n", reps, sum / reps,
        min);
    long t0 = System.nanoTime();
    KuhnStrategyTable cached = KuhnCfrSolver.referenceAveragePolicy();
    System.out.printf(Locale.ROOT, "  cached reference policy, first call: %.3f%n", (System.nanoTime() - t0) / 1e6);
    System.out.printf(Locale.ROOT, "  same as cached: %s; exploitability %.6f; player 0 value %.6f%n",
        cached.equals(last), KuhnAnalysis.exploitability(cached, cached), KuhnAnalysis.value(cached, cached));
  }

  /** Plays hands until the time is up; counts[0] = steps, counts[1] = hands. Returns the elapsed seconds. */
  private static double run(KuhnOpponent opp, PromptStyle style, double seconds, long[] counts) {
    KuhnPokerProvider provider = new KuhnPokerProvider();
    KuhnPokerEnvironment env = provider.create(Map.of());
    LanguagePolicy policy = provider.scriptedPolicy("random", 42);
    SamplingConfig sampling = SamplingConfig.evaluation(16);
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    long seed = 0;
    long chars = 0;
    while (true) {
      for (int batch = 0; batch < 256; batch++) {
        Seat seat = (seed & 1) == 0 ? Seat.FIRST : Seat.SECOND;
        String initial = env.reset(seed++, opp, seat);
        int turn = 0;
        while (!env.isDone()) {
          String prompt = "";
          if (style != null) {
            prompt = env.promptRenderer().renderPlay(new PromptContext(style, initial, 0, List.of(), List.of(),
                null));
            chars += prompt.length();
          }
          PolicyRequest request = new PolicyRequest(prompt, Phase.PLAY, "bench", 0, turn++, env.legalActions(),
              env.state(), List.of());
          env.step(policy.generate(List.of(request), sampling).get(0).text());
          counts[0]++;
        }
        counts[1]++;
      }
      long now = System.nanoTime();
      if (now >= deadline) {
        if (chars < 0) {
          System.out.println(chars); // keeps the rendering from being optimised away
        }
        return (now - start) / 1e9;
      }
    }
  }
}
