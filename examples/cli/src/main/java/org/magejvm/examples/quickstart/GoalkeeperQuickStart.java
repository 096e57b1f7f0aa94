package org.magejvm.examples.quickstart;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.env.keeper.GoalkeeperCeilings;
import org.magejvm.impl.env.keeper.GoalkeeperProvider;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.checkpoint.ModelSaver;
import org.magejvm.impl.train.listen.TrainingCharts;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The default quick start, on Goalkeeper ({@link GameRecipe#GOALKEEPER}): a tiny Qwen3 model is warm-started, trained
 * with MAGE and evaluated before and after in the context mode it trained in, beside the controls that tell what the
 * gain depends on and the exact ceiling that applies to each row ({@link GoalkeeperCeilings}). The trained model is
 * saved to {@value KuhnQuickStart#TRAINED_DIR} in the run directory.
 *
 * <p>With reflections ({@code reflection_only}, the {@code mage} preset's context) the warm start is the {@code
 * random-plan} keeper's: lessons in the right format that name a random spot, and dives where the lesson says; what
 * training has to discover is that writing the shot's spot into the lesson pays. The controls: the trained model with
 * its reflections removed from the later attempts' prompts, with another meta-episode's reflections in their place
 * (shuffled), and with no memory at all; the first two know the attempt number, so the history-blind ceiling 3/7
 * applies to them, the last sees every attempt alike, so its ceiling is {@link GoalkeeperCeilings#memoryless} (1 -
 * (6/7)^3 = 0.370). With the history instead ({@code history_only}, the ablation) the rows are the warm start, the
 * trained model and the trained model without its history. Every row is evaluated on the same set, balanced over the
 * striker's spot, and the model rows are probed per spot ({@link GoalkeeperProbe}).
 */
public final class GoalkeeperQuickStart {

  /** The result's key of the warm start's rates. */
  public static final String BEFORE = "before";
  /** The result's key of the trained model's rates, in the context mode it trained in. */
  public static final String AFTER = "after";
  /** The result's key of the trained model's rates with its reflections removed from later prompts. */
  public static final String NO_REFLECTIONS = "after_without_reflections";
  /** The result's key of the trained model's rates with other meta-episodes' reflections in later prompts. */
  public static final String SHUFFLED_REFLECTIONS = "after_shuffled_reflections";
  /** The result's key of the trained model's rates with no earlier attempt (nor the attempt number) in its prompts. */
  public static final String NO_HISTORY = "after_without_history";
  /** The result's key of the best history-blind keeper's rates. */
  public static final String CEILING_BLIND = "ceiling_blind";
  /** The result's key of the best adaptive keeper's rates. */
  public static final String CEILING_ADAPTIVE = "ceiling_adaptive";
  /** The result's key of the ceiling of the reflections-removed control (the history-blind one). */
  public static final String CEILING_NO_REFLECTIONS = "ceiling_without_reflections";
  /** The result's key of the ceiling of the shuffled-reflections control (the history-blind one). */
  public static final String CEILING_SHUFFLED_REFLECTIONS = "ceiling_shuffled_reflections";
  /** The result's key of the ceiling of the no-history control (the keeper that cannot tell attempts apart). */
  public static final String CEILING_NO_HISTORY = "ceiling_without_history";
  /** The metric: the share of a row's reflections that name the striker's spot (chance: 1/spots). */
  public static final String NAMES_SPOT_RATE = "reflection_names_spot_rate";
  /** How many example reflections the report keeps per model row. */
  public static final int EXAMPLES = 3;

  /**
   * What the quick start measured.
   *
   * @param contextMode the context mode the model trained in (and the {@value #BEFORE} and {@value #AFTER} rows were
   *     evaluated in)
   * @param rows by row key, the metrics: for model rows {@code success_rate[k]}, {@code per_attempt_success[k]} and
   *     the rest of {@link EvaluationMetrics#toMap()}, with {@value #NAMES_SPOT_RATE} where reflections were written
   *     and {@code follow_rate[s]} for {@value #BEFORE} and {@value #AFTER}; for ceilings {@code success_rate[k]} and
   *     {@code per_attempt_success[k]}
   * @param ceilingOf for each control row, the key of the ceiling row that applies to it
   * @param examples by model row ({@value #BEFORE}, {@value #AFTER}), up to {@value #EXAMPLES} reflections with
   *     what their prompt showed ({@code dove 3, shot 5 -> dive 5}); empty without reflections
   */
  public record Report(ContextMode contextMode, Map<String, Map<String, Number>> rows, Map<String, String> ceilingOf,
      Map<String, List<String>> examples) {

    /**
     * Copies.
     *
     * @param contextMode the trained context mode
     * @param rows metrics by row
     * @param ceilingOf ceiling row per control row
     * @param examples example reflections by row
     */
    public Report {
      Objects.requireNonNull(contextMode, "contextMode");
      rows = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(rows));
      ceilingOf = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(ceilingOf));
      examples = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(examples));
    }
  }

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
   * @param settings the recipe settings (the training config's environment must be Goalkeeper; its context mode is
   *     the one trained and evaluated)
   * @param method the training method (the quick start uses {@link TrainingPreset#MAGE})
   * @param listeners training listeners (progress, metrics file, charts)
   * @return the rows, ceilings, probes and example reflections
   */
  public Report run(RecipeSettings settings, TrainingPreset method, List<TrainingListener> listeners) {
    GameRecipe recipe = new GameRecipe(registry, GameRecipe.GOALKEEPER, settings, out);
    TrainingConfig config = recipe.trainingConfig(method);
    ContextMode mode = config.rollout().contextMode();
    int attempts = settings.training().rollout().episodes();
    int spots = spots(settings.training());
    long probeSeed = Seeds.derive(settings.seed(), 18, 0);
    Map<String, Map<String, Number>> rows = new LinkedHashMap<>();
    Map<String, List<String>> examples = new LinkedHashMap<>();
    Path warm = recipe.warmStart();
    try (DjlLanguagePolicy policy = recipe.load(warm)) {
      rows.put(BEFORE, modelRow(recipe, policy, mode, ReflectionControl.OWN, spots, examples, BEFORE));
      GoalkeeperProbe.probe(registry, recipe, policy, probeMode(mode), spots, probeSeed).addTo(rows.get(BEFORE));
      out.printf(Locale.ROOT, "%nTraining with preset %s: %d iterations of %d x %d meta-episodes of %d attempts,"
          + " %d spots, context %s (the whole config: --print-config)%n", config.preset(), config.iterations(),
          config.rollout().tasks(), config.rollout().groupSize(), attempts, spots, name(mode));
      out.flush();
      recipe.train(config, policy, listeners);
      Path trained = settings.workDir().resolve(KuhnQuickStart.TRAINED_DIR);
      ModelSaver.saveReplacing(MageTrainer.modelOf(policy), warm, trained);
      out.println("Trained model (Hugging Face layout): " + trained);
      rows.put(AFTER, modelRow(recipe, policy, mode, ReflectionControl.OWN, spots, examples, AFTER));
      GoalkeeperProbe.probe(registry, recipe, policy, probeMode(mode), spots, probeSeed).addTo(rows.get(AFTER));
      if (mode.reflects()) {
        rows.put(NO_REFLECTIONS, modelRow(recipe, policy, mode, ReflectionControl.REMOVED, spots, null, null));
        rows.put(SHUFFLED_REFLECTIONS, modelRow(recipe, policy, mode, ReflectionControl.SHUFFLED, spots, null,
            null));
      }
      rows.put(NO_HISTORY, modelRow(recipe, policy, ContextMode.NONE, ReflectionControl.OWN, spots, null, null));
    }
    Map<String, String> ceilingOf = new LinkedHashMap<>();
    rows.put(CEILING_BLIND, rates(GoalkeeperCeilings.historyBlind(spots, attempts)));
    rows.put(CEILING_ADAPTIVE, rates(GoalkeeperCeilings.adaptive(spots, attempts)));
    if (mode.reflects()) {
      rows.put(CEILING_NO_REFLECTIONS, rates(GoalkeeperCeilings.historyBlind(spots, attempts)));
      rows.put(CEILING_SHUFFLED_REFLECTIONS, rates(GoalkeeperCeilings.historyBlind(spots, attempts)));
      ceilingOf.put(NO_REFLECTIONS, CEILING_NO_REFLECTIONS);
      ceilingOf.put(SHUFFLED_REFLECTIONS, CEILING_SHUFFLED_REFLECTIONS);
    }
    rows.put(CEILING_NO_HISTORY, rates(GoalkeeperCeilings.memoryless(spots, attempts)));
    ceilingOf.put(NO_HISTORY, CEILING_NO_HISTORY);
    Report report = new Report(mode, rows, ceilingOf, examples);
    printTable(report, attempts, settings.evalMetaEpisodes(), spots);
    Path chart = writeChart(settings.workDir(), report, attempts);
    out.println("  (chart: " + chart + ")");
    out.flush();
    return report;
  }

  /** The probe's context: the trained one, or the history for a model trained without any (never the case here). */
  private static ContextMode probeMode(ContextMode trained) {
    return trained == ContextMode.NONE ? ContextMode.HISTORY_ONLY : trained;
  }

  /**
   * Evaluates a model row on the recipe's evaluation set, adds the reflections' naming rate when any were written,
   * and keeps up to {@value #EXAMPLES} example reflections under {@code exampleKey} when asked.
   */
  private static Map<String, Number> modelRow(GameRecipe recipe, DjlLanguagePolicy policy, ContextMode mode,
      ReflectionControl control, int spots, Map<String, List<String>> examples, String exampleKey) {
    RolloutResult r = recipe.evaluationRollouts(policy, mode, control).get(GameRecipe.ALL_SET);
    Map<String, Number> m = new LinkedHashMap<>(EvaluationMetrics.of(r.metaEpisodes(), r.episodes()).toMap());
    double names = GoalkeeperProbe.reflectionNamesSpotRate(r.metaEpisodes(), spots);
    if (!Double.isNaN(names)) {
      m.put(NAMES_SPOT_RATE, names);
    }
    if (examples != null && mode.reflects()) {
      examples.put(exampleKey, examples(r.metaEpisodes()));
    }
    return m;
  }

  /**
   * Up to {@value #EXAMPLES} reflections of a rollout, each after the attempt it reflects on, from distinct
   * meta-episodes: {@code dove 3, shot 5 -> "dive 5"}.
   *
   * @param metaEpisodes Goalkeeper meta-episodes
   * @return the examples
   */
  static List<String> examples(List<MetaEpisode> metaEpisodes) {
    List<String> out = new ArrayList<>();
    for (MetaEpisode m : metaEpisodes) {
      if (out.size() == EXAMPLES) {
        break;
      }
      for (Turn t : m.turns()) {
        if (t.isReflection()) {
          var before = m.episodes().get(t.episodeIndex() - 1);
          String shown = before.turns().isEmpty() ? "no dive" : before.turns().get(before.turns().size() - 1).action();
          out.add(shown + " -> " + (t.valid() ? "\"" + t.action() + "\"" : "(no <remark>: " + t.response().strip()
              + ")"));
          break;
        }
      }
    }
    return out;
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

  private static String name(ContextMode mode) {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  /** The printed label of a row. */
  static String label(String row, ContextMode mode) {
    return switch (row) {
      case BEFORE -> "warm start";
      case AFTER -> mode.reflects() ? "trained (its reflections)" : "trained (its history)";
      case NO_REFLECTIONS -> "  reflections removed";
      case SHUFFLED_REFLECTIONS -> "  reflections shuffled";
      case NO_HISTORY -> "  no memory, no attempt no.";
      case CEILING_BLIND -> "best history-blind keeper";
      case CEILING_ADAPTIVE -> "best adaptive keeper";
      case CEILING_NO_REFLECTIONS, CEILING_SHUFFLED_REFLECTIONS -> "history-blind ceiling";
      case CEILING_NO_HISTORY -> "memoryless ceiling";
      default -> row;
    };
  }

  /** The rows the table and the chart show, in order (the controls' own ceilings are printed beside them). */
  private static List<String> shownRows(Report report) {
    List<String> shown = new ArrayList<>();
    for (String row : report.rows().keySet()) {
      if (!report.ceilingOf().containsValue(row)) {
        shown.add(row);
      }
    }
    return shown;
  }

  /**
   * Prints Pass@k (success_rate[k]: saved by attempt k), the per-attempt save rate (among the meta-episodes that
   * reached attempt k), the naming rate of the reflections, and each control's ceiling; then the per-spot probe and
   * the example reflections.
   */
  private void printTable(Report report, int attempts, int metaEpisodes, int spots) {
    out.println();
    out.printf(Locale.ROOT, "Goalkeeper, %d meta-episodes per row%s (evaluation seeds, not the training ones);"
        + " trained with context %s%n", metaEpisodes, metaEpisodes % spots == 0 ? ", " + metaEpisodes / spots
        + " per spot" : "", name(report.contextMode()));
    StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-28s", ""));
    for (int k = 0; k < attempts; k++) {
      head.append(String.format(Locale.ROOT, " %7s", "Pass@" + (k + 1)));
    }
    head.append("  ");
    for (int k = 0; k < attempts; k++) {
      head.append(String.format(Locale.ROOT, " %9s", "attempt " + k));
    }
    head.append(String.format(Locale.ROOT, "  %10s  %s", "names spot", "its ceiling (Pass@" + attempts + ")"));
    out.println(head);
    for (String row : shownRows(report)) {
      Map<String, Number> m = report.rows().get(row);
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-28s", label(row,
          report.contextMode())));
      for (int k = 0; k < attempts; k++) {
        line.append(String.format(Locale.ROOT, " %7.3f", m.get("success_rate[" + k + "]").doubleValue()));
      }
      line.append("  ");
      for (int k = 0; k < attempts; k++) {
        line.append(cell(m.get("per_attempt_success[" + k + "]"), 9));
      }
      line.append("  ").append(cell(m.get(NAMES_SPOT_RATE), 10));
      String ceiling = report.ceilingOf().get(row);
      if (ceiling != null) {
        line.append(String.format(Locale.ROOT, "  %.3f (%s)", report.rows().get(ceiling)
            .get("success_rate[" + (attempts - 1) + "]").doubleValue(), label(ceiling, report.contextMode())));
      }
      out.println(line);
    }
    out.printf(Locale.ROOT, "  (Pass@k: saved by attempt k; attempt k: saves among the meta-episodes that reached"
        + " attempt k, - where none did; names spot: the share of the row's reflections that name the striker's spot,"
        + " chance %.3f. The controls keep the attempt number except the last, which sees every attempt alike.)%n",
        1.0 / spots);
    for (String row : List.of(BEFORE, AFTER)) {
      Map<String, Number> m = report.rows().get(row);
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  follow rate per spot, %-10s",
          label(row, report.contextMode()) + ":"));
      for (int s = 1; s <= spots; s++) {
        line.append(cell(m.get("follow_rate[" + s + "]"), 6));
      }
      out.println(line);
    }
    out.println("  (follow rate of spot s: the probability, at temperature 1, that the second attempt dives to s after"
        + " the first saw the shot go there" + (report.contextMode().reflects() ? ", through the model's own"
        + " reflection" : "") + "; 1/" + spots + " for a keeper that does not carry the shot over)");
    for (Map.Entry<String, List<String>> e : report.examples().entrySet()) {
      out.println("  reflections, " + label(e.getKey(), report.contextMode()) + ": " + String.join("; ",
          e.getValue()));
    }
    out.flush();
  }

  private static String cell(Number v, int width) {
    return v == null || Double.isNaN(v.doubleValue()) ? String.format(Locale.ROOT, " %" + width + "s", "-")
        : String.format(Locale.ROOT, " %" + width + ".3f", v.doubleValue());
  }

  /** Draws Pass@k and the per-attempt rate of every shown row as one bar chart. */
  static Path writeChart(Path workDir, Report report, int attempts) {
    List<String> categories = new ArrayList<>();
    for (int k = 0; k < attempts; k++) {
      categories.add("Pass@" + (k + 1));
    }
    for (int k = 0; k < attempts; k++) {
      categories.add("attempt " + k);
    }
    Map<String, double[]> means = new LinkedHashMap<>();
    Map<String, double[]> spreads = new LinkedHashMap<>();
    List<String> rows = new ArrayList<>(shownRows(report));
    rows.add(CEILING_NO_HISTORY);
    for (String row : rows) {
      Map<String, Number> m = report.rows().get(row);
      double[] v = new double[2 * attempts];
      for (int k = 0; k < attempts; k++) {
        v[k] = m.get("success_rate[" + k + "]").doubleValue();
        Number p = m.get("per_attempt_success[" + k + "]");
        v[attempts + k] = p == null || Double.isNaN(p.doubleValue()) ? 0 : p.doubleValue();
      }
      means.put(label(row, report.contextMode()).strip(), v);
      spreads.put(label(row, report.contextMode()).strip(), new double[2 * attempts]);
    }
    return TrainingCharts.writeComparison(workDir.resolve(TrainingCharts.DIRECTORY), "adaptation",
        "Goalkeeper (" + name(report.contextMode()) + "): saved by attempt k (Pass@k) and per attempt", "rate",
        categories, means, spreads).get(0);
  }
}
