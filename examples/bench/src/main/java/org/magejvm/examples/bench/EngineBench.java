package org.magejvm.examples.bench;

import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.plugin.PluginException;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * Measures the rollout engine without a model: meta-episodes per second with one of the environment's scripted
 * policies at the reference batch shape (16 groups x 8 meta-episodes, N episodes, reflections, mixed seats for
 * two-player games), then the time of credit assignment (all three return kinds) and of the evaluation metrics for
 * one such batch.
 *
 * <p>Usage: {@code EngineBench [ENV_ID [POLICY [SECONDS]]]}, defaults {@code mage-tictactoe random 10}. The
 * environment must be on the class path (built-in, or a plugin jar).
 */
public final class EngineBench {

  private EngineBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args environment id, policy name, seconds of measurement
   */
  public static void main(String[] args) {
    String envId = args.length > 0 ? args[0] : "mage-tictactoe";
    String policyName = args.length > 1 ? args[1] : "random";
    double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 10;
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    EnvironmentProvider provider;
    try {
      provider = registry.require(envId);
    } catch (PluginException e) {
      System.err.println("EngineBench: " + e.getMessage());
      System.exit(2);
      return;
    }
    RolloutConfig config = RolloutConfig.builder()
        .setEnvironmentId(envId)
        .optTasks(16)
        .optGroupSize(8)
        .optSeating(provider.twoPlayer() ? Seating.mixed(0.5) : Seating.first())
        .build();
    MetaEpisodeRunner runner = new MetaEpisodeRunner(registry);
    System.out.printf(Locale.ROOT, "EngineBench: %s, policy %s, %d x %d meta-episodes of %d episodes, Java %s%n",
        envId, policyName, config.tasks(), config.groupSize(), provider.defaults().episodes(),
        System.getProperty("java.version"));

    // warm-up: a few batches so the JIT has compiled the hot paths
    RolloutResult last = null;
    for (int i = 0; i < 3; i++) {
      last = runBatch(runner, provider, config, policyName, 1000 + i);
    }
    long batches = 0;
    long metaEpisodes = 0;
    long turns = 0;
    long calls = 0;
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    while (System.nanoTime() < deadline) {
      last = runBatch(runner, provider, config, policyName, batches);
      batches++;
      metaEpisodes += last.metaEpisodes().size();
      calls += last.policyCalls();
      for (MetaEpisode m : last.metaEpisodes()) {
        turns += m.turns().size();
      }
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    System.out.printf(Locale.ROOT, "rollout: %d batches in %.2f s: %.1f meta-episodes/s, %.0f turns/s,"
        + " %.1f turns per meta-episode, %.1f policy calls per batch, %d failures in the last batch%n",
        batches, elapsed, metaEpisodes / elapsed, turns / elapsed, turns / (double) metaEpisodes,
        calls / (double) batches, last.failures().size());

    List<MetaEpisode> batch = last.metaEpisodes();
    for (MetaReturn kind : MetaReturn.values()) {
      CreditAssigner a = new CreditAssigner(CreditConfig.forEnvironment(provider.defaults())
          .optMetaReturn(kind).build());
      double micros = time(() -> a.assign(batch).size());
      System.out.printf(Locale.ROOT, "credit %-14s: %.1f us per batch of %d meta-episodes%n",
          kind.name().toLowerCase(Locale.ROOT), micros, batch.size());
    }
    int episodes = last.episodes();
    double metricsMicros = time(() -> EvaluationMetrics.of(batch, episodes).playTurns());
    System.out.printf(Locale.ROOT, "metrics: %.1f us per batch%n", metricsMicros);
  }

  private static RolloutResult runBatch(MetaEpisodeRunner runner, EnvironmentProvider provider,
      RolloutConfig config, String policyName, long index) {
    try (LanguagePolicy policy = provider.scriptedPolicy(policyName, Seeds.derive(index, Seeds.POLICY, 0))) {
      return runner.run(config.toBuilder().optSeed(index).build(), policy);
    }
  }

  /**
   * Microseconds per call of a task: after 2000 warm-up calls, the best mean of five rounds of at least 0.2 s each
   * (the best round is the least disturbed by other processes).
   */
  private static double time(IntSupplier task) {
    int sink = 0;
    for (int i = 0; i < 2000; i++) {
      sink += task.getAsInt();
    }
    double best = Double.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      long start = System.nanoTime();
      int n = 0;
      while (System.nanoTime() - start < 200_000_000L || n < 10) {
        sink += task.getAsInt();
        n++;
      }
      best = Math.min(best, (System.nanoTime() - start) / 1e3 / n);
    }
    if (sink == 42) {
      System.out.print("");
    }
    return best;
  }
}
