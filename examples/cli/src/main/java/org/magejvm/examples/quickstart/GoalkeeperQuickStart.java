package org.magejvm.examples.quickstart;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.ContextMode;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.env.keeper.GoalkeeperCeilings;
import org.magejvm.impl.env.keeper.GoalkeeperProvider;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.ModelSaver;
import org.magejvm.impl.train.TrainingCharts;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingListener;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The default quick start, on Goalkeeper ({@link GameRecipe#GOALKEEPER}): a tiny Qwen3 model, warm-started on
 * keepers that never read where the shots went, is trained with MAGE and evaluated before and after, with its
 * earlier attempts in the prompt and without them, next to the two exact ceilings ({@link GoalkeeperCeilings}): the
 * best keeper that ignores its earlier attempts and the best one that reads them. The trained model is saved to
 * {@value KuhnQuickStart#TRAINED_DIR} in the run directory.
 */
public final class GoalkeeperQuickStart {

  /** The result's key of the warm start's rates. */
  public static final String BEFORE = "before";
  /** The result's key of the trained model's rates. */
  public static final String AFTER = "after";
  /** The result's key of the trained model's rates with no earlier attempt in its prompts. */
  public static final String NO_HISTORY = "after_without_history";
  /** The result's key of the best history-blind keeper's rates. */
  public static final String CEILING_BLIND = "ceiling_blind";
  /** The result's key of the best adaptive keeper's rates. */
  public static final String CEILING_ADAPTIVE = "ceiling_adaptive";

  private final EnvironmentRegistry registry;
  private final PrintWriter out;

  /**
   * @param registry where the Goalkeeper environment is found
   * @param out where progress and tables go
   */
  public GoalkeeperQuickStart(EnvironmentRegistry registry, PrintWriter out) {
    this.registry = registry;
    this.out = out;
  }

  /**
   * Runs the quick start.
   *
   * @param settings the recipe settings (the training config's environment must be Goalkeeper)
   * @param method the training method (the quick start uses {@link MethodPreset#MAGE})
   * @param listeners training listeners (progress, metrics file, charts)
   * @return by row ({@value #BEFORE}, {@value #AFTER}, {@value #NO_HISTORY}, {@value #CEILING_BLIND}, {@value
   *     #CEILING_ADAPTIVE}), the metrics of the one evaluation set {@link GameRecipe#ALL_SET}; the ceilings hold
   *     {@code success_rate[k]} and {@code per_attempt_success[k]}
   */
  public Map<String, Map<String, Map<String, Number>>> run(
      GameRecipe.Settings settings, MethodPreset method, List<TrainingListener> listeners) {
    GameRecipe recipe = new GameRecipe(registry, GameRecipe.GOALKEEPER, settings, out);
    int attempts = settings.training().rollout().episodes();
    int spots = spots(settings.training());
    Map<String, Map<String, Map<String, Number>>> result = new LinkedHashMap<>();
    Path warm = recipe.warmStart();
    try (DjlLanguagePolicy policy = recipe.load(warm)) {
      result.put(BEFORE, recipe.evaluate(policy, ContextMode.HISTORY_ONLY));
      TrainingConfig config = recipe.trainingConfig(method);
      out.printf(Locale.ROOT, "%nTraining with preset %s: %d iterations of %d x %d meta-episodes of %d attempts,"
          + " %d spots (the whole config: --print-config)%n", config.preset(), config.iterations(),
          config.rollout().tasks(), config.rollout().groupSize(), attempts, spots);
      out.flush();
      recipe.train(config, policy, listeners);
      Path trained = settings.workDir().resolve(KuhnQuickStart.TRAINED_DIR);
      ModelSaver.save(MageTrainer.modelOf(policy), warm, trained);
      out.println("Trained model (Hugging Face layout): " + trained);
      result.put(AFTER, recipe.evaluate(policy, ContextMode.HISTORY_ONLY));
      result.put(NO_HISTORY, recipe.evaluate(policy, ContextMode.NONE));
    }
    result.put(CEILING_BLIND, Map.of(GameRecipe.ALL_SET, rates(GoalkeeperCeilings.historyBlind(spots, attempts))));
    result.put(CEILING_ADAPTIVE, Map.of(GameRecipe.ALL_SET, rates(GoalkeeperCeilings.adaptive(spots, attempts))));
    printTable(result, attempts, settings.evalMetaEpisodes());
    Path chart = writeChart(settings.workDir(), result, attempts);
    out.println("  (chart: " + chart + ")");
    out.flush();
    return result;
  }

  /**
   * @param config a training config on Goalkeeper
   * @return its number of spots (the environment option, else the default)
   */
  public static int spots(TrainingConfig config) {
    return Integer.parseInt(config.environment().options().getOrDefault(GoalkeeperProvider.SPOTS_OPTION,
        Integer.toString(GoalkeeperProvider.DEFAULT_SPOTS)).strip());
  }

  /**
   * @param c a ceiling
   * @return its rates named like an evaluation's metrics: {@code success_rate[k]}, then {@code
   *     per_attempt_success[k]} (NaN for an attempt the ceiling's keeper never reaches)
   */
  public static Map<String, Number> rates(AttemptCeiling c) {
    Map<String, Number> m = new LinkedHashMap<>();
    for (int k = 0; k < c.attempts(); k++) {
      m.put("success_rate[" + k + "]", c.passAt().get(k));
    }
    for (int k = 0; k < c.attempts(); k++) {
      m.put("per_attempt_success[" + k + "]", c.perAttempt().get(k));
    }
    return m;
  }

  private static final String[] LABELS = {"before training (warm start)", "after training",
      "after, without its history", "best history-blind keeper", "best adaptive keeper"};
  private static final String[] ROWS = {BEFORE, AFTER, NO_HISTORY, CEILING_BLIND, CEILING_ADAPTIVE};

  /**
   * Prints Pass@k (success_rate[k]: saved by attempt k) and the per-attempt save rate (among the meta-episodes that
   * reached attempt k) for every row.
   */
  private void printTable(Map<String, Map<String, Map<String, Number>>> result, int attempts, int metaEpisodes) {
    out.println();
    out.printf(Locale.ROOT, "Goalkeeper, %d meta-episodes per row (evaluation seeds, not the training ones)%n",
        metaEpisodes);
    StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-30s", ""));
    for (int k = 0; k < attempts; k++) {
      head.append(String.format(Locale.ROOT, " %8s", "Pass@" + (k + 1)));
    }
    head.append("   ");
    for (int k = 0; k < attempts; k++) {
      head.append(String.format(Locale.ROOT, " %9s", "attempt " + k));
    }
    out.println(head);
    for (int i = 0; i < ROWS.length; i++) {
      Map<String, Number> m = result.get(ROWS[i]).get(GameRecipe.ALL_SET);
      StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-30s", LABELS[i]));
      for (int k = 0; k < attempts; k++) {
        row.append(String.format(Locale.ROOT, " %8.3f", m.get("success_rate[" + k + "]").doubleValue()));
      }
      row.append("   ");
      for (int k = 0; k < attempts; k++) {
        Number v = m.get("per_attempt_success[" + k + "]");
        row.append(v == null || Double.isNaN(v.doubleValue()) ? String.format(Locale.ROOT, " %9s", "-")
            : String.format(Locale.ROOT, " %9.3f", v.doubleValue()));
      }
      out.println(row);
    }
    out.println("  (Pass@k: saved by attempt k; attempt k: saves among the meta-episodes that reached attempt k, - where"
        + " none did. Without its history the model sees every attempt as the first; the history-blind keeper may"
        + " know the attempt number, so it is an upper bound for that row.)");
    out.flush();
  }

  /** Draws Pass@k and the per-attempt rate of every row as one bar chart. */
  static Path writeChart(Path workDir, Map<String, Map<String, Map<String, Number>>> result, int attempts) {
    List<String> categories = new ArrayList<>();
    for (int k = 0; k < attempts; k++) {
      categories.add("Pass@" + (k + 1));
    }
    for (int k = 0; k < attempts; k++) {
      categories.add("attempt " + k);
    }
    Map<String, double[]> means = new LinkedHashMap<>();
    Map<String, double[]> spreads = new LinkedHashMap<>();
    for (int i = 0; i < ROWS.length; i++) {
      Map<String, Number> m = result.get(ROWS[i]).get(GameRecipe.ALL_SET);
      double[] v = new double[2 * attempts];
      for (int k = 0; k < attempts; k++) {
        v[k] = m.get("success_rate[" + k + "]").doubleValue();
        Number p = m.get("per_attempt_success[" + k + "]");
        v[attempts + k] = p == null || Double.isNaN(p.doubleValue()) ? 0 : p.doubleValue();
      }
      means.put(LABELS[i], v);
      spreads.put(LABELS[i], new double[2 * attempts]);
    }
    return TrainingCharts.writeComparison(workDir.resolve(TrainingCharts.DIRECTORY), "adaptation",
        "Goalkeeper: saved by attempt k (Pass@k) and per attempt", "rate", categories, means, spreads).get(0);
  }
}
