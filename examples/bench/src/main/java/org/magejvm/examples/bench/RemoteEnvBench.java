package org.magejvm.examples.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Phase;
import org.magejvm.api.Turn;
import org.magejvm.impl.agentgym.RemoteEnvironmentProvider;
import org.magejvm.impl.agentgym.RemoteSettings;
import org.magejvm.impl.agentgym.server.EnvServer;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * {@code mage bench remote-env [env=ID] [tasks=T] [group=G] [reps=R]}: plays the same meta-episodes of a built-in
 * game in-process and through {@code mage env-serve}'s server on a loopback port in this JVM ({@link EnvServer} and
 * {@link RemoteEnvironmentProvider}), with the random scripted policy, and prints play turns (environment steps) per
 * second for both, the median of R runs after one warm-up run each. Both sides play identical games, so the
 * difference is the cost of the protocol: one HTTP round trip per reset, restart and step (plus one per prompt for
 * games that render on the server).
 */
public final class RemoteEnvBench {

  private RemoteEnvBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args {@code key=value}: env (default mage-kuhn-poker), tasks (64), group (8), reps (3)
   * @throws Exception if the server cannot start
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("env", "mage-kuhn-poker");
    o.put("tasks", "64");
    o.put("group", "8");
    o.put("reps", "3");
    BenchArgs.apply(o, args);
    String env = o.get("env");
    int tasks = Integer.parseInt(o.get("tasks"));
    int group = Integer.parseInt(o.get("group"));
    int reps = Integer.parseInt(o.get("reps"));
    if (tasks < 1 || group < 1 || reps < 1 || (long) tasks * group > 65_536) {
      throw new IllegalArgumentException("tasks, group and reps must be >= 1 and tasks*group <= 65536, got "
          + tasks + ", " + group + ", " + reps);
    }
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    EnvironmentProvider local = registry.require(env);
    System.out.printf(Locale.ROOT, "Remote environment benchmark: %s, %d meta-episodes (%d tasks x %d), random"
        + " policy (Java %s, %d CPUs)%n", env, tasks * group, tasks, group, System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors());
    try (EnvServer server = EnvServer.builder().setRegistry(registry).addEnvironment(env).build().start()) {
      RemoteEnvironmentProvider remote = new RemoteEnvironmentProvider(RemoteSettings.of(server.url()), env);
      double[] here = measure(local, tasks, group, reps, () -> 0);
      double[] there = measure(remote, tasks, group, reps, server::requestsServed);
      double requestsPerRun = there[3];
      System.out.printf(Locale.ROOT, "%-26s %14s %14s %12s%n", "", "play turns/s", "meta-ep./s", "turns");
      System.out.printf(Locale.ROOT, "%-26s %,14.0f %,14.1f %12.0f%n", "in-process", here[0], here[1], here[2]);
      System.out.printf(Locale.ROOT, "%-26s %,14.0f %,14.1f %12.0f%n", "env server, loopback HTTP", there[0],
          there[1], there[2]);
      System.out.printf(Locale.ROOT, "remote / in-process: %.4f (%.3f ms per remote play turn); %.2f HTTP requests"
          + " per play turn, %.3f ms per request%n", there[0] / here[0], 1000.0 / there[0],
          requestsPerRun / there[2], 1000.0 / there[0] / (requestsPerRun / there[2]));
    }
  }

  /**
   * @return median play turns per second, median meta-episodes per second, play turns of the last run, requests of
   *     the last run
   */
  private static double[] measure(EnvironmentProvider p, int tasks, int group, int reps,
      java.util.function.LongSupplier requests) {
    run(p, tasks, group, 0); // warm-up
    long requestCount = 0;
    double[] turnRates = new double[reps];
    double[] metaRates = new double[reps];
    long turns = 0;
    for (int r = 0; r < reps; r++) {
      long before = requests.getAsLong();
      long start = System.nanoTime();
      RolloutResult result = run(p, tasks, group, r + 1);
      double seconds = (System.nanoTime() - start) / 1e9;
      requestCount = requests.getAsLong() - before;
      if (!result.complete()) {
        throw new IllegalStateException(result.failures().size() + " meta-episodes failed, the first: "
            + result.failures().get(0).describe());
      }
      turns = 0;
      for (MetaEpisode m : result.metaEpisodes()) {
        for (Turn t : m.turns()) {
          if (t.phase() == Phase.PLAY) {
            turns++;
          }
        }
      }
      turnRates[r] = turns / seconds;
      metaRates[r] = result.metaEpisodes().size() / seconds;
    }
    Arrays.sort(turnRates);
    Arrays.sort(metaRates);
    return new double[] {turnRates[reps / 2], metaRates[reps / 2], turns, requestCount};
  }

  private static RolloutResult run(EnvironmentProvider p, int tasks, int group, long seed) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(p.id()).optTasks(tasks).optGroupSize(group)
        .optSeed(seed).build();
    return MetaEpisodeRunner.of(p).run(config, new RandomPolicy(seed));
  }
}
