package org.magejvm.examples.quickstart;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.ContextMode;
import org.magejvm.impl.env.kuhn.KuhnObjectiveOptimum;
import org.magejvm.impl.env.kuhn.KuhnOptimumPolicy;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The Kuhn Poker quick start: a tiny Qwen3 model, warm-started to write valid actions (but not to adapt), is trained
 * with MAGE against the population {conservative, aggressive, intermediate} and evaluated before and after, per
 * opponent and against the held-out {@code cfr} opponent, next to each evaluation set's winnable-deal ceiling. The
 * trained model is saved to {@value #TRAINED_DIR} in the run directory.
 */
public final class KuhnQuickStart {

  /** Meta-episodes of the scripted player whose prompts the policy probe scores. */
  public static final int PROBE_META_EPISODES = 192;

  /** The run directory's subdirectory the trained model is saved to. */
  public static final String TRAINED_DIR = "trained";

  private final EnvironmentRegistry registry;
  private final PrintWriter out;

  /**
   * @param registry where the Kuhn environment is found
   * @param out where progress and tables go
   */
  public KuhnQuickStart(EnvironmentRegistry registry, PrintWriter out) {
    this.registry = registry;
    this.out = out;
  }

  /**
   * Runs the quick start.
   *
   * @param settings the recipe settings
   * @param method the training method (the quick start uses {@link TrainingPreset#MAGE})
   * @param listeners training listeners (progress, metrics file, charts)
   * @return {@code before}, {@code after}, {@code after_without_history} (the trained model with no earlier
   *     attempts in its prompt: every attempt is then a fresh sample of its first-attempt play, so the difference to
   *     {@code after} is what reading the history adds) and {@code ceiling}: metrics per evaluation set; and {@code
   *     bet_probability}: {@code before} and {@code after}, the {@link KuhnPolicyProbe} of the model (P(BET) per
   *     first-attempt state, {@code spread}, {@code history_shift}, {@code repeat_probability})
   */
  public Map<String, Map<String, Map<String, Number>>> run(
      RecipeSettings settings, TrainingPreset method, List<TrainingListener> listeners) {
    GameRecipe recipe = new GameRecipe(registry, settings, out);
    Path warm = recipe.warmStart();
    Map<String, Map<String, Map<String, Number>>> result = new LinkedHashMap<>();
    Map<String, Map<String, Number>> ceiling = recipe.ceilings();
    Map<String, Map<String, Number>> optimum = optimum(recipe);
    // evaluated in the context mode it trains in (the quick start's: the history)
    ContextMode trainedMode = recipe.trainingConfig(method).rollout().contextMode();
    try (DjlLanguagePolicy policy = recipe.load(warm)) {
      Map<String, Map<String, Number>> before = recipe.evaluate(policy, trainedMode);
      printTable("Before training (the warm start)", before, ceiling);
      java.util.List<org.magejvm.api.MetaEpisode> probePrompts = recipe.probeMetaEpisodes(PROBE_META_EPISODES);
      KuhnPolicyProbe.Result probeBefore = KuhnPolicyProbe.probe(policy, probePrompts);
      TrainingConfig config = recipe.trainingConfig(method);
      out.printf(Locale.ROOT, "%nTraining with preset %s: %d iterations of %d x %d meta-episodes, episode score %s,"
          + " attempt discount %s, environment options %s (the whole config: --print-config)%n", config.preset(),
          config.iterations(), config.rollout().tasks(), config.rollout().groupSize(),
          config.credit().episodeScore().name().toLowerCase(Locale.ROOT), recipe.trajGamma(),
          recipe.environmentOptions());
      out.flush();
      recipe.train(config, policy, listeners);
      Path trained = settings.workDir().resolve(TRAINED_DIR);
      org.magejvm.impl.train.checkpoint.ModelSaver.saveReplacing(org.magejvm.impl.train.MageTrainer.modelOf(policy), warm, trained);
      out.println("Trained model (Hugging Face layout): " + trained);
      Map<String, Map<String, Number>> after = recipe.evaluate(policy, trainedMode);
      printTable("After training", after, ceiling);
      Map<String, Map<String, Number>> withoutHistory = recipe.evaluate(policy, ContextMode.NONE);
      printHistoryEffect(before, after, withoutHistory, ceiling, optimum, recipe.game(),
          recipe.trajGamma());
      KuhnPolicyProbe.Result probeAfter = KuhnPolicyProbe.probe(policy, probePrompts);
      printProbe(probeBefore, probeAfter);
      Path chart = writeProbeChart(settings.workDir(), probeBefore, probeAfter);
      out.println("  (chart: " + chart + ")");
      out.flush();
      result.put("before", before);
      result.put("after", after);
      result.put("after_without_history", withoutHistory);
      result.put("ceiling", ceiling);
      result.put("optimum", optimum);
      Map<String, Map<String, Number>> probes = new LinkedHashMap<>(); // before, after: the same order every run
      probes.put("before", probeMap(probeBefore));
      probes.put("after", probeMap(probeAfter));
      result.put("bet_probability", probes);
    }
    return result;
  }

  /**
   * The optimum of the objective the run trains ({@link KuhnObjectiveOptimum}, with the run's discount between
   * attempts) on the recipe's evaluation sets.
   *
   * @param recipe the recipe
   * @return its metrics per evaluation set
   */
  public static Map<String, Map<String, Number>> optimum(GameRecipe recipe) {
    try (KuhnOptimumPolicy p = new KuhnOptimumPolicy(KuhnPokerProvider.OPTIMUM_POLICY,
        KuhnObjectiveOptimum.reference(recipe.trajGamma()), 0)) {
      return recipe.evaluate(p, ContextMode.HISTORY_ONLY);
    }
  }

  /**
   * Prints success_rate[0..2], score[2] and the invalid-action rate per evaluation set, with the ceiling.
   *
   * @param title the heading
   * @param metrics metrics per set
   * @param ceiling the ceiling metrics per set
   */
  void printTable(String title, Map<String, Map<String, Number>> metrics, Map<String, Map<String, Number>> ceiling) {
    out.println();
    out.println(title);
    out.printf(Locale.ROOT, "  %-13s %8s %8s %8s %9s %9s %9s %8s%n", "opponent", "sr[0]", "sr[1]", "sr[2]",
        "ceiling", "score[0]", "score[2]", "invalid");
    for (Map.Entry<String, Map<String, Number>> e : metrics.entrySet()) {
      Map<String, Number> v = e.getValue();
      String label = e.getKey() + (e.getKey().equals(GameRecipe.KUHN.firstHeldOut()) ? "*" : "");
      out.printf(Locale.ROOT, "  %-13s %8.3f %8.3f %8.3f %9.3f %9.3f %9.3f %8.3f%n", label,
          v.get("success_rate[0]").doubleValue(), v.get("success_rate[1]").doubleValue(),
          v.get("success_rate[2]").doubleValue(), ceiling.get(e.getKey()).get("success_rate[2]").doubleValue(),
          v.get("score[0]").doubleValue(), v.get("score[2]").doubleValue(),
          v.get("invalid_action_rate").doubleValue());
    }
    out.println("  (* held out: never played in training; agent second)");
    out.flush();
  }

  /**
   * Prints the pool averages of sr[0], sr[2], score[0] and score[2] before, after, after without the history in the
   * prompt, for the ceiling player and for the optimum of the training objective. success_rate[k] counts
   * meta-episodes won by attempt k and score[k] is the best chips of the attempts played up to k, so both rise from
   * attempt 0 to 2 even for a player that ignores its history (a lost deal replayed can go differently with another
   * sample); only the comparison with the same model without history shows what the history adds. The optimum
   * ({@link org.magejvm.impl.env.kuhn.KuhnObjectiveOptimum}) shows what the training can reach at best.
   */
  private void printHistoryEffect(Map<String, Map<String, Number>> before, Map<String, Map<String, Number>> after,
      Map<String, Map<String, Number>> withoutHistory, Map<String, Map<String, Number>> ceiling,
      Map<String, Map<String, Number>> optimum, RecipeGame game, double trajGamma) {
    out.println();
    out.println("Pool averages (the rise from attempt 0 to attempt 2 is the within-meta-episode gain)");
    out.printf(Locale.ROOT, "  %-32s %8s %8s %8s %9s %9s %8s%n", "", "sr[0]", "sr[2]", "gain", "score[0]",
        "score[2]", "gain");
    String[] labels = {"before (warm start, history)", "after (history)", "after, without history",
        "ceiling (" + game.referencePolicy() + ")", "optimum of the objective"};
    List<Map<String, Map<String, Number>>> rows = List.of(before, after, withoutHistory, ceiling, optimum);
    for (int i = 0; i < labels.length; i++) {
      double sr0 = game.poolAverage(rows.get(i), "success_rate[0]");
      double sr2 = game.poolAverage(rows.get(i), "success_rate[2]");
      double score0 = game.poolAverage(rows.get(i), "score[0]");
      double score2 = game.poolAverage(rows.get(i), "score[2]");
      out.printf(Locale.ROOT, "  %-32s %8.3f %8.3f %8.3f %9.3f %9.3f %8.3f%n", labels[i], sr0, sr2, sr2 - sr0,
          score0, score2, score2 - score0);
    }
    String objective = " The optimum is the best player for the training objective (differential return, step"
        + " discount 0.95, attempt discount " + trajGamma + ") against this pool, computed exactly";
    String why = trajGamma == registry.require(game.environment()).defaults().trajGamma()
        ? ": it wins every winnable deal in its first attempt and adapts in chips only, folding after a lost call, so"
            + " even perfect training raises score[2] over score[0], not sr[2] over sr[0]: docs/results.md)"
        : trajGamma == 1
            ? ": every turn's return is then the last attempt's reward, so it gives up early attempts to learn the"
                + " opponent where that pays later: docs/results.md)"
            : ": docs/results.md)";
    out.println("  (without history every attempt resamples the first attempt's play: its gain comes from chance,"
        + " not from reading the earlier attempts." + objective + why);
    out.flush();
  }

  /**
   * Prints what the model plays before and after training, from its probabilities: P(BET) per first-attempt
   * information state, their spread, and how far the earlier attempts in the prompt move it.
   */
  private void printProbe(KuhnPolicyProbe.Result before, KuhnPolicyProbe.Result after) {
    out.println();
    out.println("What the model plays: P(BET) in a first attempt, per seat, card and betting so far");
    out.printf(Locale.ROOT, "  %-34s %8s %8s%n", "", "before", "after");
    for (String state : before.firstAttempt().keySet()) {
      out.printf(Locale.ROOT, "  %-34s %8.3f %8.3f%n", state, before.firstAttempt().get(state),
          after.firstAttempt().getOrDefault(state, Double.NaN));
    }
    out.printf(Locale.ROOT, "  %-34s %8.3f %8.3f%n", "spread over the states", before.spread(), after.spread());
    out.printf(Locale.ROOT, "  %-34s %8.3f %8.3f%n", "mean |change| from the history", before.historyShift(),
        after.historyShift());
    out.printf(Locale.ROOT, "  %-34s %8.3f %8.3f%n", "P(repeat the previous attempt)", before.repeatProbability(),
        after.repeatProbability());
    out.printf(Locale.ROOT, "  (a spread near 0 means the model ignores its card and the betting; a change near 0"
        + " that it ignores its earlier attempts; over %d later-attempt prompts)%n", after.laterPrompts());
    out.flush();
  }

  /**
   * Draws P(BET) per first-attempt state before and after training as a bar chart.
   *
   * @param workDir the run directory (the chart goes to its charts directory)
   * @param before the probe before training
   * @param after the probe after training
   * @return the PNG file
   */
  static Path writeProbeChart(Path workDir, KuhnPolicyProbe.Result before, KuhnPolicyProbe.Result after) {
    List<String> labels = new ArrayList<>();
    double[] b = new double[before.firstAttempt().size()];
    double[] a = new double[b.length];
    int i = 0;
    for (Map.Entry<String, Double> e : before.firstAttempt().entrySet()) {
      labels.add(KuhnPolicyProbe.shortLabel(e.getKey()));
      b[i] = e.getValue();
      a[i] = after.firstAttempt().getOrDefault(e.getKey(), Double.NaN);
      i++;
    }
    Map<String, double[]> means = new LinkedHashMap<>();
    means.put("before training", b);
    means.put("after training", a);
    Map<String, double[]> none = new LinkedHashMap<>();
    none.put("before training", new double[b.length]);
    none.put("after training", new double[b.length]);
    return org.magejvm.impl.train.listen.TrainingCharts.writeComparison(
        workDir.resolve(org.magejvm.impl.train.listen.TrainingCharts.DIRECTORY), "bet_probability",
        "P(BET) in a first attempt by seat, card and betting", "P(BET)", labels, means, none).get(0);
  }

  private static Map<String, Number> probeMap(KuhnPolicyProbe.Result r) {
    Map<String, Number> m = new LinkedHashMap<>(r.firstAttempt());
    m.put("spread", r.spread());
    m.put("history_shift", r.historyShift());
    m.put("repeat_probability", r.repeatProbability());
    return m;
  }
}
