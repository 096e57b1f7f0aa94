package org.magejvm.examples.research;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.ContextMode;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.KuhnQuickStart;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.train.MetricsFileListener;
import org.magejvm.impl.train.TrainingCharts;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The method comparison at small scale (the paper's Table 1 in miniature), on Kuhn Poker or Tic-Tac-Toe: from one
 * warm start, train {@code mage}, {@code lamer} and {@code gigpo} (single episode, group 24: the same number of
 * episodes per iteration as 8 meta-episodes of 3) with several training seeds each, and evaluate them and the
 * untrained warm start on the same evaluation seeds: success_rate[0] and [2] (and for Tic-Tac-Toe draw_rate[0] and
 * [2]) and score[0] and [2] against the pool (averaged over its evaluation sets) and against the held-out opponent,
 * one table per metric. For Kuhn Poker it also plays the exact optimum of the objective trained ({@link
 * KuhnQuickStart#optimum}) on the same sets.
 *
 * <p>Rows: {@code react} is the warm start with no memory of earlier attempts; {@code warm+history} is the warm start
 * with the earlier attempts' moves and outcomes in its prompt (the stand-in for {@code reflexion}: a model this size
 * writes no useful reflection); single-episode methods are evaluated without cross-episode context (as the reference
 * evaluates its GiGPO baseline), the multi-episode ones with history.
 */
public final class MethodsExperiment {

  /** The methods trained. */
  public static final List<MethodPreset> METHODS = List.of(MethodPreset.MAGE, MethodPreset.LAMER, MethodPreset.GIGPO);

  private final EnvironmentRegistry registry;
  private final GameRecipe.Game game;
  private final PrintWriter out;

  /**
   * @param registry where the game's environment is found
   * @param game the game
   * @param out where progress and the table go
   */
  public MethodsExperiment(EnvironmentRegistry registry, GameRecipe.Game game, PrintWriter out) {
    this.registry = registry;
    this.game = game;
    this.out = out;
  }

  /**
   * Runs the comparison.
   *
   * @param settings the recipe settings (its seed is the warm start's and the evaluation's)
   * @param trainingSeeds the training seeds per method
   * @return per row ({@code react}, {@code warm+history}, then each method), the list of per-seed summaries
   *     ({@link #columns()})
   */
  public Map<String, List<Map<String, Double>>> run(GameRecipe.Settings settings, List<Long> trainingSeeds) {
    return run(settings, trainingSeeds, METHODS);
  }

  /**
   * Runs the comparison for some of the methods (runs are deterministic, so a long comparison can be split over
   * several invocations that share the work directory's warm start).
   *
   * @param settings the recipe settings (its seed is the warm start's and the evaluation's)
   * @param trainingSeeds the training seeds per method
   * @param methods the methods to train
   * @return per row ({@code react}, {@code warm+history}, then each method), the list of per-seed summaries
   *     ({@link #columns()})
   */
  public Map<String, List<Map<String, Double>>> run(GameRecipe.Settings settings, List<Long> trainingSeeds,
      List<MethodPreset> methods) {
    GameRecipe base = new GameRecipe(registry, game, settings, out);
    Path warm = base.warmStart();
    Map<String, List<Map<String, Double>>> rows = new LinkedHashMap<>();
    try (DjlLanguagePolicy policy = base.load(warm)) {
      rows.put("react", List.of(summary(base.evaluate(policy, ContextMode.NONE))));
      rows.put("warm+history", List.of(summary(base.evaluate(policy, ContextMode.HISTORY_ONLY))));
    }
    out.printf(Locale.ROOT, "%s (%s) on the same sets:", game.referencePolicy(), game.referenceLabel());
    printLine(summary(base.ceilings()));
    if (game.equals(GameRecipe.KUHN)) {
      out.printf(Locale.ROOT, "optimum of the objective (attempt discount %s) on the same sets:", base.trajGamma());
      printLine(summary(KuhnQuickStart.optimum(base)));
    }
    for (MethodPreset method : methods) {
      List<Map<String, Double>> perSeed = new ArrayList<>();
      for (long seed : trainingSeeds) {
        out.printf(Locale.ROOT, "%s, training seed %d%n", method.id(), seed);
        out.flush();
        // training seeds change the rollouts; the warm start and the evaluation sets stay those of settings.seed()
        Path runDir = settings.workDir().resolve(method.id() + game.cacheSuffix() + "-seed" + seed);
        try (DjlLanguagePolicy policy = base.load(warm);
            MetricsFileListener metrics = new MetricsFileListener(runDir)) {
          base.train(base.trainingConfig(method).with("seed",
              org.magejvm.impl.rollout.Seeds.derive(seed, GameRecipe.TRAINING_SEED_STREAM, 0)), policy,
              List.of(metrics));
          ContextMode context = method.multiEpisode() ? settings.training().rollout().contextMode()
              : ContextMode.NONE;
          Map<String, Double> summary = summary(base.evaluate(policy, context));
          out.printf(Locale.ROOT, "  %s seed %d:", method.id(), seed);
          printLine(summary);
          perSeed.add(summary);
        }
      }
      rows.put(method.id(), perSeed);
    }
    print(rows);
    chart(rows, settings.workDir());
    return rows;
  }

  /** Prints a summary's values after what the line has so far, and ends the line. */
  private void printLine(Map<String, Double> summary) {
    for (String key : columns()) {
      out.printf(Locale.ROOT, " %s %.3f", key, summary.get(key));
    }
    out.println();
    out.flush();
  }

  /**
   * Writes {@code methods.png} and {@code methods.svg}: pool sr[0] and sr[2] and the held-out sr[2] (draw rate for
   * games with draws) per row, seed spread as error bars.
   */
  private void chart(Map<String, List<Map<String, Double>>> rows, Path dir) {
    List<String> categories = new ArrayList<>(rows.keySet());
    Map<String, double[]> means = new LinkedHashMap<>();
    Map<String, double[]> spreads = new LinkedHashMap<>();
    String heldOutKey = game.heldOut() + (game.draws() ? "/draw_rate[2]" : "/success_rate[2]");
    for (String key : List.of("pool/success_rate[0]", "pool/success_rate[2]", heldOutKey)) {
      double[] m = new double[categories.size()];
      double[] sd = new double[categories.size()];
      for (int i = 0; i < categories.size(); i++) {
        double[] v = rows.get(categories.get(i)).stream().mapToDouble(r -> r.get(key)).toArray();
        double[] stats = meanAndSd(v);
        m[i] = stats[0];
        sd[i] = v.length > 1 ? stats[1] : 0;
      }
      means.put(key, m);
      spreads.put(key, sd);
    }
    List<Path> files = TrainingCharts.writeComparison(dir, "methods" + game.cacheSuffix(), game.environment() + ": rates by method",
        "rate (mean over training seeds, bars: sample sd)", categories, means, spreads);
    out.println("Chart: " + files.get(0));
    out.flush();
  }

  /**
   * @return the summary's keys: pool and held-out success_rate[0] and [2], then (games with draws) the same
   *     draw_rate columns, then the same score columns
   */
  List<String> columns() {
    List<String> keys = new ArrayList<>();
    for (String metric : metrics()) {
      keys.addAll(columns(metric));
    }
    return keys;
  }

  /** The pool and held-out columns of one metric, [0] and [2]. */
  private List<String> columns(String metric) {
    List<String> keys = new ArrayList<>();
    for (String set : List.of("pool", game.heldOut())) {
      for (int k : new int[] {0, 2}) {
        keys.add(set + "/" + metric + "[" + k + "]");
      }
    }
    return keys;
  }

  /** Pool averages (over the pool's evaluation sets) and the held-out set's rates, keyed as {@link #columns()}. */
  Map<String, Double> summary(Map<String, Map<String, Number>> sets) {
    Map<String, Double> s = new LinkedHashMap<>();
    for (String key : columns()) {
      String set = key.substring(0, key.indexOf('/'));
      String metric = key.substring(key.indexOf('/') + 1);
      if (set.equals("pool")) {
        s.put(key, game.poolAverage(sets, metric));
      } else {
        s.put(key, sets.get(set).get(metric).doubleValue());
      }
    }
    return s;
  }

  /** The metrics of the summary, each with its own table: success_rate, draw_rate (games with draws), score. */
  private List<String> metrics() {
    return game.draws() ? List.of("success_rate", "draw_rate", "score") : List.of("success_rate", "score");
  }

  private void print(Map<String, List<Map<String, Double>>> rows) {
    for (String metric : metrics()) {
      List<String> keys = columns(metric);
      out.println();
      StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-14s %5s", "method", "seeds"));
      for (String key : keys) {
        header.append(String.format(Locale.ROOT, " %28s", key));
      }
      out.println(header);
      for (Map.Entry<String, List<Map<String, Double>>> row : rows.entrySet()) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-14s %5d", row.getKey(),
            row.getValue().size()));
        for (String key : keys) {
          double[] v = row.getValue().stream().mapToDouble(m -> m.get(key)).toArray();
          sb.append(String.format(Locale.ROOT, " %28s", meanSpread(v)));
        }
        out.println(sb);
      }
    }
    out.println("(mean +- sample standard deviation over training seeds; min..max in brackets; score in chips per"
        + " hand for Kuhn Poker, the best of the attempts so far)");
    out.flush();
  }

  /**
   * @param v values
   * @return "mean +- sd [min..max]" (sd omitted for one value)
   */
  static String meanSpread(double[] v) {
    double[] stats = meanAndSd(v);
    if (v.length == 1) {
      return String.format(Locale.ROOT, "%.3f", stats[0]);
    }
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double x : v) {
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
    return String.format(Locale.ROOT, "%.3f+-%.3f [%.2f..%.2f]", stats[0], stats[1], min, max);
  }

  /** The mean and the sample standard deviation (NaN for one value) of the values. */
  private static double[] meanAndSd(double[] v) {
    double mean = 0;
    for (double x : v) {
      mean += x / v.length;
    }
    double ss = 0;
    for (double x : v) {
      ss += (x - mean) * (x - mean);
    }
    return new double[] {mean, Math.sqrt(ss / (v.length - 1))};
  }
}
