package org.magejvm.examples.quickstart;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.ContextMode;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.train.MetricsFileListener;
import org.magejvm.impl.train.TrainingCharts;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The method comparison on Kuhn Poker at small scale (the paper's Table 1 in miniature): from one warm start, train
 * {@code mage}, {@code lamer} and {@code gigpo} (single episode, group 24: the same number of episodes per
 * iteration as 8 meta-episodes of 3) with several training seeds each, and evaluate them and the untrained warm start
 * on the same evaluation seeds: success_rate[0] and [2] against the pool and against the held-out {@code cfr}.
 *
 * <p>Rows: {@code react} is the warm start with no memory of earlier attempts; {@code warm+history} is the warm start
 * with the earlier attempts' moves and outcomes in its prompt (the stand-in for {@code reflexion}: a model this size
 * writes no useful reflection); single-episode methods are evaluated without cross-episode context (as the reference
 * evaluates its GiGPO baseline), the multi-episode ones with history.
 */
public final class KuhnMethodsExperiment {

  /** The methods trained. */
  public static final List<MethodPreset> METHODS = List.of(MethodPreset.MAGE, MethodPreset.LAMER, MethodPreset.GIGPO);

  private final EnvironmentRegistry registry;
  private final PrintWriter out;

  /**
   * @param registry where the Kuhn environment is found
   * @param out where progress and the table go
   */
  public KuhnMethodsExperiment(EnvironmentRegistry registry, PrintWriter out) {
    this.registry = registry;
    this.out = out;
  }

  /**
   * Runs the comparison.
   *
   * @param settings the recipe settings (its seed is the warm start's and the evaluation's)
   * @param trainingSeeds the training seeds per method
   * @return per row ({@code react}, {@code warm+history}, then each method), the list of per-seed summaries
   *     ({@code pool/success_rate[k]}, {@code cfr/success_rate[k]} for k = 0, 2)
   */
  public Map<String, List<Map<String, Double>>> run(KuhnRecipe.Settings settings, List<Long> trainingSeeds) {
    KuhnRecipe base = new KuhnRecipe(registry, settings, out);
    Path warm = base.warmStart();
    Map<String, List<Map<String, Double>>> rows = new LinkedHashMap<>();
    try (DjlLanguagePolicy policy = base.load(warm)) {
      rows.put("react", List.of(summary(base.evaluate(policy, ContextMode.NONE))));
      rows.put("warm+history", List.of(summary(base.evaluate(policy, ContextMode.HISTORY_ONLY))));
    }
    for (MethodPreset method : METHODS) {
      List<Map<String, Double>> perSeed = new ArrayList<>();
      for (long seed : trainingSeeds) {
        out.printf(Locale.ROOT, "%s, training seed %d%n", method.id(), seed);
        out.flush();
        // training seeds change the rollouts; the warm start and the evaluation sets stay those of settings.seed()
        KuhnRecipe training = new KuhnRecipe(registry, settings, out);
        Path runDir = settings.workDir().resolve(method.id() + "-seed" + seed);
        try (DjlLanguagePolicy policy = base.load(warm);
            MetricsFileListener metrics = new MetricsFileListener(runDir)) {
          training.train(method, policy, warm, List.of(metrics), seed);
          ContextMode context = method.multiEpisode() ? ContextMode.HISTORY_ONLY : ContextMode.NONE;
          Map<String, Double> summary = summary(base.evaluate(policy, context));
          out.printf(Locale.ROOT, "  %s seed %d: pool sr[0] %.3f, pool sr[2] %.3f, cfr sr[0] %.3f, cfr sr[2] %.3f%n",
              method.id(), seed, summary.get("pool/success_rate[0]"), summary.get("pool/success_rate[2]"),
              summary.get("cfr/success_rate[0]"), summary.get("cfr/success_rate[2]"));
          out.flush();
          perSeed.add(summary);
        }
      }
      rows.put(method.id(), perSeed);
    }
    print(rows);
    chart(rows, settings.workDir());
    return rows;
  }

  /** Writes {@code methods.png} and {@code methods.svg}: pool sr[0] and sr[2] per row, seed spread as error bars. */
  private void chart(Map<String, List<Map<String, Double>>> rows, Path dir) {
    List<String> categories = new ArrayList<>(rows.keySet());
    Map<String, double[]> means = new LinkedHashMap<>();
    Map<String, double[]> spreads = new LinkedHashMap<>();
    for (String key : List.of("pool/success_rate[0]", "pool/success_rate[2]", "cfr/success_rate[2]")) {
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
    List<Path> files = TrainingCharts.writeComparison(dir, "methods", "Kuhn Poker: success rate by method",
        "success rate (mean over training seeds, bars: sample sd)", categories, means, spreads);
    out.println("Chart: " + files.get(0));
    out.flush();
  }

  /** Pool averages (over the three pool opponents' sets) and the held-out set's rates. */
  static Map<String, Double> summary(Map<String, Map<String, Number>> sets) {
    Map<String, Double> s = new LinkedHashMap<>();
    for (int k : new int[] {0, 2}) {
      double pool = 0;
      for (String opp : KuhnRecipe.POOL) {
        pool += sets.get(opp).get("success_rate[" + k + "]").doubleValue();
      }
      s.put("pool/success_rate[" + k + "]", pool / KuhnRecipe.POOL.size());
      s.put("cfr/success_rate[" + k + "]", sets.get(KuhnRecipe.HELD_OUT).get("success_rate[" + k + "]").doubleValue());
    }
    return s;
  }

  private void print(Map<String, List<Map<String, Double>>> rows) {
    out.println();
    out.printf(Locale.ROOT, "%-14s %5s %18s %18s %18s %18s%n", "method", "seeds", "pool sr[0]", "pool sr[2]",
        "cfr sr[0]", "cfr sr[2]");
    for (Map.Entry<String, List<Map<String, Double>>> row : rows.entrySet()) {
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-14s %5d", row.getKey(),
          row.getValue().size()));
      for (String key : List.of("pool/success_rate[0]", "pool/success_rate[2]", "cfr/success_rate[0]",
          "cfr/success_rate[2]")) {
        double[] v = row.getValue().stream().mapToDouble(m -> m.get(key)).toArray();
        sb.append(String.format(Locale.ROOT, " %18s", meanSpread(v)));
      }
      out.println(sb);
    }
    out.println("(mean +- sample standard deviation over training seeds; min..max in brackets)");
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
