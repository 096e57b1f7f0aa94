package org.magejvm.examples.research;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.util.AtomicFiles;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.env.penalty.PenaltyCeilings;
import org.magejvm.impl.env.penalty.PenaltyEnvironment;
import org.magejvm.impl.env.penalty.PenaltyObjectives;
import org.magejvm.impl.env.penalty.PenaltyPlanner;
import org.magejvm.impl.env.penalty.PenaltyPopulation;
import org.magejvm.impl.env.penalty.PenaltyStrikers;
import org.magejvm.impl.env.penalty.PenaltyTransfer;
import org.magejvm.impl.env.penalty.Scoring;
import org.magejvm.impl.env.penalty.Striker;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The paper's three claims at toy scale, on Penalty Shoot-out ({@code mage-penalty-graded}, {@code mage-penalty} or
 * {@code mage-penalty-steps}):
 * from one warm start and on one budget, train {@code mage}, {@code lamer} and the single-episode {@code gigpo} and
 * {@code grpo} with several training seeds, and evaluate each run and the warm start on every training striker and
 * every held-out striker (never trained on), with the same evaluation seeds. Per run and set it measures Pass@k, the
 * final-attempt score (the score of the last attempt played: what MAGE's differential return with {@code
 * gamma_traj = 1} sums to) and the cumulative score (the sum of the attempts' scores: LaMer's return), and the same
 * with no earlier attempt in the prompt (the history control: a model that adapts must lose what it gained).
 *
 * <p>Beside the measurements it prints exact rows ({@link PenaltyCeilings}, {@link PenaltyObjectives}): the best
 * history-blind keeper of each set, the optima of the two objectives computed on the training population (played on
 * both sets), and the adaptive ceiling of each set; and the prediction the theory makes before any training (the
 * difference of the two optima; what the keepers optimal for MAGE's objective on the training population reach on
 * the held-out strikers, and the frontier between the two sets' Pass@K: {@link PenaltyTransfer}), then the measured
 * differences with their combined spread and the held-out test (Pass@K's mean minus two standard deviations against
 * the held-out blind ceiling).
 *
 * <p>Every method trains from the settings' config with only its method-defining keys swapped in ({@link
 * GameRecipe#trainingConfig(TrainingPreset)}): the same warm start, budget, prompts, update settings and attempt
 * discount. Finished runs are reused as {@link MethodsExperiment}'s are ({@link RunSummaries}).
 */
public final class ClaimsExperiment {

  /** The methods trained unless told otherwise. */
  public static final List<TrainingPreset> METHODS =
      List.of(TrainingPreset.MAGE, TrainingPreset.LAMER, TrainingPreset.GIGPO, TrainingPreset.GRPO);
  /** The summary file in a run directory. */
  public static final String SUMMARY_FILE = RunSummaries.SUMMARY_FILE;
  /** The prefix of the history control's columns. */
  public static final String NO_HISTORY = "no_history/";
  /** The training population's columns' set name. */
  public static final String TRAIN = "train";
  /** The held-out strikers' columns' set name. */
  public static final String HELD_OUT = "held_out";
  /** The final-attempt score's metric name. */
  public static final String FINAL = "final_attempt_score";
  /** The cumulative score's metric name. */
  public static final String CUMULATIVE = "cumulative_score";
  /** The row of the untrained warm start. */
  public static final String WARM_START = "warm-start";
  /** The exact row of the best history-blind keeper of each set. */
  public static final String CEILING_BLIND = "ceiling-blind";
  /** The exact row of the final-attempt (MAGE) objective's optimum on the training population. */
  public static final String OPTIMUM_FINAL = "optimum-final";
  /** The exact row of the cumulative (LaMer) objective's optimum on the training population. */
  public static final String OPTIMUM_CUMULATIVE = "optimum-cumulative";
  /** The exact row of the best adaptive keeper of each set. */
  public static final String CEILING_ADAPTIVE = "ceiling-adaptive";
  /** The invalid-action rate's metric name. */
  private static final String INVALID = "invalid_action_rate";
  /** The version of the summaries' layout. */
  static final int SUMMARY_FORMAT = 1;

  private static final List<String> EXACT_ROWS =
      List.of(CEILING_BLIND, OPTIMUM_FINAL, OPTIMUM_CUMULATIVE, CEILING_ADAPTIVE);

  private final EnvironmentRegistry registry;
  private final RecipeGame game;
  private final PrintWriter out;
  private final PenaltyPopulation population;
  private final int attempts;

  /**
   * @param registry where the game's environment is found
   * @param game {@link GameRecipe#PENALTY_GRADED}, {@link GameRecipe#PENALTY} or {@link GameRecipe#PENALTY_STEPS}
   * @param out where progress and the tables go
   * @throws IllegalArgumentException for another game
   */
  public ClaimsExperiment(EnvironmentRegistry registry, RecipeGame game, PrintWriter out) {
    if (game.equals(GameRecipe.PENALTY_GRADED)) {
      population = PenaltyStrikers.GRADED_POPULATION;
    } else if (game.equals(GameRecipe.PENALTY)) {
      population = PenaltyStrikers.POPULATION;
    } else if (game.equals(GameRecipe.PENALTY_STEPS)) {
      population = PenaltyStrikers.STEPS_POPULATION;
    } else {
      throw new IllegalArgumentException("the claims are measured on " + GameRecipe.PENALTY_GRADED.environment()
          + ", " + GameRecipe.PENALTY.environment() + " or " + GameRecipe.PENALTY_STEPS.environment() + ", not "
          + game.environment());
    }
    this.registry = registry;
    this.game = game;
    this.out = out;
    this.attempts = registry.require(game.environment()).defaults().episodes();
  }

  /**
   * The comparison's outcome.
   *
   * @param rows per row (the warm start, each method with a finished run, then the exact rows), the per-seed
   *     summaries ({@link #columns()})
   * @param json the report as JSON ({@code methods}, {@code ceilings}, {@code predicted}, {@code measured})
   */
  public record Report(Map<String, List<Map<String, Double>>> rows, JsonObject json) {}

  /**
   * Trains what is missing (or only reads finished runs), evaluates, prints the tables, the prediction and the
   * measured differences, and writes the chart ({@code claims-SUFFIX.png}, {@code .svg}) and the report ({@code
   * claims-SUFFIX.json}) to the work directory.
   *
   * @param settings the recipe settings (its seed is the warm start's and the evaluation's)
   * @param trainingSeeds the training seeds per method
   * @param methods the methods (training presets)
   * @param train whether to train the runs that are missing (false: report the finished ones, name the others)
   * @return the report
   * @throws IllegalStateException when a run's summary was made with other settings, or without {@code train} when
   *     the work directory holds no warm start
   * @throws IllegalArgumentException when a method does not train
   */
  public Report run(RecipeSettings settings, List<Long> trainingSeeds, List<TrainingPreset> methods, boolean train) {
    GameRecipe base = RunSummaries.recipe(registry, game, settings, out, methods, train);
    ContextMode context = contextOf(settings);
    out.printf(Locale.ROOT, "%s: %s scoring, %d spots, %d attempts, attempt discount %s; multi-episode methods see"
        + " %s, single-episode ones nothing%n", game.environment(), scoring(base).id(), base.spots().orElseThrow(),
        attempts, base.trajGamma(), context.name().toLowerCase(Locale.ROOT));
    Map<String, List<Map<String, Double>>> rows = new LinkedHashMap<>();
    Path warm = base.warmStart();
    try (DjlLanguagePolicy policy = base.load(warm)) {
      rows.put(WARM_START, List.of(evaluate(base, policy, context, true)));
    }
    RunSummaries.addMethodRows(out, rows, methods, method -> train(base, method, trainingSeeds, train));
    rows.putAll(exactRows(base));
    print(rows);
    JsonObject json = report(base, settings, trainingSeeds, context, rows);
    printMeasured(json);
    chart(rows, settings.workDir());
    Path file = settings.workDir().resolve("claims" + game.cacheSuffix() + ".json");
    try {
      Files.createDirectories(settings.workDir());
      AtomicFiles.writeString(file, RunSummaries.GSON.toJson(json) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
    out.println("Report: " + file);
    out.flush();
    return new Report(rows, json);
  }

  private static ContextMode contextOf(RecipeSettings settings) {
    ContextMode c = settings.training().rollout().contextMode();
    return c == ContextMode.NONE ? ContextMode.HISTORY_ONLY : c;
  }

  /** The scoring of the game's environment with the recipe's options (the game's own default where they set none). */
  private Scoring scoring(GameRecipe base) {
    try (PenaltyEnvironment e = (PenaltyEnvironment) registry.require(game.environment())
        .create(base.environmentOptions())) {
      return e.scoring();
    }
  }

  /** Trains (or reuses) and evaluates one method with every training seed; without {@code train}, only reuses. */
  private List<Map<String, Double>> train(GameRecipe base, TrainingPreset method, List<Long> trainingSeeds,
      boolean train) {
    RecipeSettings settings = base.settings();
    TrainingConfig config = base.trainingConfig(method);
    TrainingConfig.RolloutSettings r = config.rollout();
    out.printf(Locale.ROOT, "%s: %d iterations x %d task groups x %d meta-episodes of %d attempt(s) per training"
        + " seed%n", method.id(), config.iterations(), r.tasks(), r.groupSize(), r.episodes());
    out.flush();
    boolean multiEpisode = method.multiEpisode();
    ContextMode context = multiEpisode ? contextOf(settings) : ContextMode.NONE;
    List<Map<String, Double>> perSeed = new ArrayList<>();
    for (long seed : trainingSeeds) {
      TrainingConfig seeded = config.with("seed", Seeds.derive(seed, GameRecipe.TRAINING_SEED_STREAM, 0));
      Path runDir = settings.workDir().resolve("claims-" + method.id() + base.cacheSuffix() + "-seed" + seed);
      JsonObject key = runKey(base, seeded, context);
      Map<String, Double> summary = RunSummaries.reuseOrTrain(out, base, method.id(), seed, seeded, runDir, key,
          columns(), train, policy -> evaluate(base, policy, context, multiEpisode));
      if (summary == null) {
        continue;
      }
      out.printf(Locale.ROOT, " train Pass@%d %.3f, final-attempt score %.3f, cumulative score %.3f; held out"
          + " Pass@%d %.3f%n", attempts, summary.get(TRAIN + "/" + pass(attempts - 1)),
          summary.get(TRAIN + "/" + FINAL),
          summary.get(TRAIN + "/" + CUMULATIVE), attempts, summary.get(HELD_OUT + "/" + pass(attempts - 1)));
      out.flush();
      perSeed.add(summary);
    }
    return perSeed;
  }

  /** What a run's summary depends on: its training config and the evaluation's settings. */
  private JsonObject runKey(GameRecipe base, TrainingConfig config, ContextMode context) {
    JsonObject key = RunSummaries.runKey(base, config, SUMMARY_FORMAT, attempts, context, Map.of());
    key.addProperty("experiment", "claims");
    return key;
  }

  /**
   * Evaluates a policy on every set, with the context, and (when {@code control}) again with no earlier attempt in
   * the prompt for the {@value #NO_HISTORY} columns; without it those columns repeat the first evaluation (a
   * single-episode method is evaluated without history anyway).
   */
  private Map<String, Double> evaluate(GameRecipe base, DjlLanguagePolicy policy, ContextMode context,
      boolean control) {
    Map<String, Double> s = measure(base.evaluationRollouts(policy, context, ReflectionControl.OWN), "");
    Map<String, Double> none = control
        ? measure(base.evaluationRollouts(policy, ContextMode.NONE, ReflectionControl.OWN), NO_HISTORY)
        : prefixed(s, NO_HISTORY);
    s.putAll(none);
    return s;
  }

  private static Map<String, Double> prefixed(Map<String, Double> s, String prefix) {
    Map<String, Double> p = new LinkedHashMap<>();
    s.forEach((k, v) -> p.put(prefix + k, v));
    return p;
  }

  /** Pass@k, the two scores and the invalid-action rate of every set, and their means over each population. */
  Map<String, Double> measure(Map<String, RolloutResult> rollouts, String prefix) {
    Map<String, Map<String, Double>> sets = new LinkedHashMap<>();
    for (Map.Entry<String, RolloutResult> e : rollouts.entrySet()) {
      sets.put(e.getKey(), measure(e.getValue().metaEpisodes()));
    }
    return summary(sets, prefix);
  }

  /** One set's measures. */
  private Map<String, Double> measure(List<MetaEpisode> metaEpisodes) {
    Map<String, Number> rates = EvaluationMetrics.of(metaEpisodes, attempts).toMap();
    Map<String, Double> m = new LinkedHashMap<>();
    for (int k = 0; k < attempts; k++) {
      m.put(pass(k), rates.get(pass(k)).doubleValue());
    }
    double last = 0;
    double sum = 0;
    for (MetaEpisode me : metaEpisodes) {
      List<Episode> played = me.episodes();
      last += played.isEmpty() ? 0 : played.get(played.size() - 1).score();
      for (Episode e : played) {
        sum += e.score();
      }
    }
    m.put(FINAL, last / metaEpisodes.size());
    m.put(CUMULATIVE, sum / metaEpisodes.size());
    m.put(INVALID, rates.get(INVALID).doubleValue());
    return m;
  }

  /** Per-set measures as a summary: each population's mean over its sets, then every set. */
  private Map<String, Double> summary(Map<String, Map<String, Double>> sets, String prefix) {
    Map<String, Double> s = new LinkedHashMap<>();
    for (String population : List.of(TRAIN, HELD_OUT)) {
      List<String> members = population.equals(TRAIN) ? game.pool() : game.heldOut();
      for (String metric : metrics()) {
        double sum = 0;
        for (String set : members) {
          sum += sets.get(set).getOrDefault(metric, Double.NaN);
        }
        s.put(prefix + population + "/" + metric, sum / members.size());
      }
    }
    for (String set : game.evaluationSets()) {
      for (String metric : metrics()) {
        s.put(prefix + set + "/" + metric, sets.get(set).getOrDefault(metric, Double.NaN));
      }
    }
    return s;
  }

  private static String pass(int k) {
    return "success_rate[" + k + "]";
  }

  /** The measures of a set: Pass@1..K ({@code success_rate[k]}), the two scores, the invalid-action rate. */
  List<String> metrics() {
    List<String> m = scoreMetrics();
    m.add(INVALID);
    return m;
  }

  /**
   * @return the summary's keys: for {@code train}, {@code held_out} and every striker, each of {@link #metrics()};
   *     then the same with the {@value #NO_HISTORY} prefix
   */
  List<String> columns() {
    List<String> sets = new ArrayList<>(List.of(TRAIN, HELD_OUT));
    sets.addAll(game.evaluationSets());
    List<String> keys = new ArrayList<>();
    for (String prefix : List.of("", NO_HISTORY)) {
      for (String set : sets) {
        for (String metric : metrics()) {
          keys.add(prefix + set + "/" + metric);
        }
      }
    }
    return keys;
  }

  /**
   * The exact rows ({@link PenaltyCeilings}): {@value #CEILING_BLIND}, the best history-blind keeper of each population
   * (by Pass@K) on it and its strikers, also in the {@value #NO_HISTORY} columns, which it bounds; {@value
   * #OPTIMUM_FINAL} and {@value #OPTIMUM_CUMULATIVE}, the two objectives' optima computed on the training population
   * and played on both (their preferred dives where several are optimal; they dive where the last shot went after a
   * history no training striker shoots); {@value #CEILING_ADAPTIVE}, the final-attempt optimum of each population on
   * it (no keeper saves more often). Their invalid-action rates are 0.
   *
   * @param base the recipe (its options and attempt discount)
   * @return the rows
   */
  Map<String, List<Map<String, Double>>> exactRows(GameRecipe base) {
    int spots = base.spots().orElseThrow();
    Scoring scoring = scoring(base);
    double gamma = base.trajGamma();
    List<Striker> training = population.training();
    List<Striker> heldOut = population.heldOut();
    int[] blindTrain = PenaltyCeilings.bestBlindDives(training, spots, attempts);
    int[] blindHeld = PenaltyCeilings.bestBlindDives(heldOut, spots, attempts);
    PenaltyPlanner mage = PenaltyObjectives.finalAttemptOptimum(training, spots, attempts, scoring, gamma);
    PenaltyPlanner lamer = PenaltyObjectives.cumulativeOptimum(training, spots, attempts, scoring, gamma);
    PenaltyPlanner heldMage = PenaltyObjectives.finalAttemptOptimum(heldOut, spots, attempts, scoring, gamma);
    Map<String, List<Map<String, Double>>> rows = new LinkedHashMap<>();
    rows.put(CEILING_BLIND, List.of(exact(spots, scoring, earlier -> blindTrain[earlier.size()],
        earlier -> blindHeld[earlier.size()], true)));
    rows.put(OPTIMUM_FINAL, List.of(exact(spots, scoring, mage::dive, mage::dive, false)));
    rows.put(OPTIMUM_CUMULATIVE, List.of(exact(spots, scoring, lamer::dive, lamer::dive, false)));
    rows.put(CEILING_ADAPTIVE, List.of(exact(spots, scoring, mage::dive, heldMage::dive, false)));
    return rows;
  }

  /** An exact row: one keeper against the training strikers, one against the held-out ones. */
  private Map<String, Double> exact(int spots, Scoring scoring, PenaltyCeilings.Keeper onTraining,
      PenaltyCeilings.Keeper onHeldOut, boolean blind) {
    Map<String, Map<String, Double>> sets = new LinkedHashMap<>();
    for (Striker s : population.training()) {
      sets.put(s.id(), outcome(PenaltyCeilings.play(List.of(s), spots, attempts, scoring, onTraining)));
    }
    for (Striker s : population.heldOut()) {
      sets.put(s.id(), outcome(PenaltyCeilings.play(List.of(s), spots, attempts, scoring, onHeldOut)));
    }
    Map<String, Double> row = summary(sets, "");
    Map<String, Double> none = new LinkedHashMap<>();
    row.forEach((k, v) -> none.put(NO_HISTORY + k, blind ? v : Double.NaN));
    row.putAll(none);
    return row;
  }

  private Map<String, Double> outcome(PenaltyCeilings.Outcome o) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (int k = 0; k < attempts; k++) {
      m.put(pass(k), o.passAt().get(k));
    }
    m.put(FINAL, o.finalScore());
    m.put(CUMULATIVE, o.cumulativeScore());
    m.put(INVALID, 0.0);
    return m;
  }

  /** The three tables: the training population, the held-out strikers, Pass@K per striker. */
  private void print(Map<String, List<Map<String, Double>>> rows) {
    List<String> popColumns = scoreMetrics();
    popColumns.add(NO_HISTORY + pass(attempts - 1));
    popColumns.add(INVALID);
    for (String population : List.of(TRAIN, HELD_OUT)) {
      List<String> keys = new ArrayList<>();
      List<String> labels = new ArrayList<>();
      for (String c : popColumns) {
        keys.add(c.startsWith(NO_HISTORY) ? NO_HISTORY + population + "/" + c.substring(NO_HISTORY.length())
            : population + "/" + c);
        labels.add(label(c));
      }
      out.println();
      out.println(population.equals(TRAIN) ? "Training population (" + String.join(", ", game.pool()) + ")"
          : "Held-out strikers, never trained on (" + String.join(", ", game.heldOut()) + ")");
      table(rows, keys, labels);
    }
    List<String> keys = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (String set : game.evaluationSets()) {
      keys.add(set + "/" + pass(attempts - 1));
      labels.add(set + (game.heldOut().contains(set) ? "*" : ""));
    }
    out.println();
    out.println("Pass@" + attempts + " per striker (* held out)");
    table(rows, keys, labels);
    out.println("(mean +- sample standard deviation over training seeds, min..max in brackets. final: the score of the"
        + " last attempt played; cumulative: the sum of the attempts' scores; no-history: the same model with no"
        + " earlier attempt in its prompts (single-episode methods are evaluated so anyway). " + CEILING_BLIND
        + ": each population's best history-blind keeper; " + OPTIMUM_FINAL + " / " + OPTIMUM_CUMULATIVE + ": the"
        + " optima of the final-attempt (MAGE) and cumulative (LaMer) objectives on the training population, played on"
        + " both; " + CEILING_ADAPTIVE + ": each population's best adaptive keeper; all exact.)");
    out.flush();
  }

  private String label(String column) {
    if (column.startsWith("success_rate[")) {
      int k = Integer.parseInt(column.substring("success_rate[".length(), column.length() - 1));
      return "Pass@" + (k + 1);
    }
    if (column.startsWith(NO_HISTORY)) {
      return "no-history " + label(column.substring(NO_HISTORY.length()));
    }
    return switch (column) {
      case FINAL -> "final";
      case CUMULATIVE -> "cumulative";
      case INVALID -> "invalid";
      default -> column;
    };
  }

  private void table(Map<String, List<Map<String, Double>>> rows, List<String> keys, List<String> labels) {
    int nameWidth = 18;
    for (String name : rows.keySet()) {
      nameWidth = Math.max(nameWidth, name.length());
    }
    int width = 25;
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-" + nameWidth + "s %5s", "row", "seeds"));
    for (String label : labels) {
      header.append(String.format(Locale.ROOT, " %" + Math.max(width, label.length()) + "s", label));
    }
    out.println(header);
    for (Map.Entry<String, List<Map<String, Double>>> row : rows.entrySet()) {
      String seeds = EXACT_ROWS.contains(row.getKey()) ? "-" : Integer.toString(row.getValue().size());
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + nameWidth + "s %5s", row.getKey(),
          seeds));
      for (int i = 0; i < keys.size(); i++) {
        String key = keys.get(i);
        double[] v = row.getValue().stream().mapToDouble(m -> m.getOrDefault(key, Double.NaN)).toArray();
        sb.append(String.format(Locale.ROOT, " %" + Math.max(width, labels.get(i).length()) + "s",
            RunSummaries.meanSpread(v)));
      }
      out.println(sb);
    }
  }

  /** The JSON report. */
  private JsonObject report(GameRecipe base, RecipeSettings settings, List<Long> seeds, ContextMode context,
      Map<String, List<Map<String, Double>>> rows) {
    JsonObject root = new JsonObject();
    root.addProperty("environment", game.environment());
    root.addProperty("scoring", scoring(base).id());
    root.addProperty("spots", base.spots().orElseThrow());
    root.addProperty("attempts", attempts);
    root.addProperty("traj_gamma", base.trajGamma());
    root.addProperty("context_mode", context.name().toLowerCase(Locale.ROOT));
    root.addProperty("iterations", settings.training().iterations());
    root.addProperty("tasks", settings.training().rollout().tasks());
    root.addProperty("eval_meta_episodes_per_striker", settings.evalMetaEpisodes());
    JsonArray seedArray = new JsonArray();
    seeds.forEach(seedArray::add);
    root.add("seeds", seedArray);
    JsonObject methods = new JsonObject();
    for (Map.Entry<String, List<Map<String, Double>>> row : rows.entrySet()) {
      if (EXACT_ROWS.contains(row.getKey())) {
        continue;
      }
      JsonObject m = new JsonObject();
      m.addProperty("runs", row.getValue().size());
      m.addProperty("context_mode", row.getKey().equals(WARM_START)
          || TrainingPreset.find(row.getKey()).map(TrainingPreset::multiEpisode).orElse(false)
          ? context.name().toLowerCase(Locale.ROOT) : "none");
      for (String population : List.of(TRAIN, HELD_OUT)) {
        m.add(population, stats(row.getValue(), population + "/"));
        m.add(NO_HISTORY + population, stats(row.getValue(), NO_HISTORY + population + "/"));
      }
      JsonObject strikers = new JsonObject();
      for (String set : game.evaluationSets()) {
        strikers.add(set, stats(row.getValue(), set + "/"));
      }
      m.add("strikers", strikers);
      methods.add(row.getKey(), m);
    }
    root.add("methods", methods);
    JsonObject ceilings = new JsonObject();
    for (String population : List.of(TRAIN, HELD_OUT)) {
      JsonObject c = new JsonObject();
      for (String exact : EXACT_ROWS) {
        c.add(exact.replace('-', '_'), values(rows.get(exact).get(0), population + "/"));
      }
      ceilings.add(population, c);
    }
    JsonObject strikerCeilings = new JsonObject();
    for (String set : game.evaluationSets()) {
      JsonObject c = new JsonObject();
      for (String exact : EXACT_ROWS) {
        c.add(exact.replace('-', '_'), values(rows.get(exact).get(0), set + "/"));
      }
      strikerCeilings.add(set, c);
    }
    ceilings.add("strikers", strikerCeilings);
    root.add("ceilings", ceilings);
    JsonObject predicted = new JsonObject();
    Map<String, Double> mage = rows.get(OPTIMUM_FINAL).get(0);
    Map<String, Double> lamer = rows.get(OPTIMUM_CUMULATIVE).get(0);
    JsonObject diff = new JsonObject();
    for (String metric : scoreMetrics()) {
      diff.addProperty(metric, round(mage.get(TRAIN + "/" + metric) - lamer.get(TRAIN + "/" + metric)));
    }
    predicted.add("mage_minus_lamer_train", diff);
    predicted.addProperty("single_episode_max_train_pass_at_" + attempts,
        rows.get(CEILING_BLIND).get(0).get(TRAIN + "/" + pass(attempts - 1)));
    predicted.addProperty("held_out_blind_pass_at_" + attempts,
        rows.get(CEILING_BLIND).get(0).get(HELD_OUT + "/" + pass(attempts - 1)));
    predicted.addProperty("training_optimum_on_held_out_pass_at_" + attempts,
        mage.get(HELD_OUT + "/" + pass(attempts - 1)));
    int spots = base.spots().orElseThrow();
    PenaltyTransfer.Range range = PenaltyTransfer.heldOutPassAt(PenaltyObjectives.finalAttemptOptimum(
        population.training(), spots, attempts, scoring(base), base.trajGamma()), population.heldOut());
    JsonObject optimal = new JsonObject();
    optimal.addProperty("min", round(range.min()));
    optimal.addProperty("max", round(range.max()));
    predicted.add("training_optima_on_held_out_pass_at_" + attempts, optimal);
    JsonArray frontier = new JsonArray();
    for (PenaltyTransfer.Point p : PenaltyTransfer.frontier(population.training(), population.heldOut(), spots,
        attempts)) {
      JsonObject point = new JsonObject();
      point.addProperty("train", round(p.training()));
      point.addProperty(HELD_OUT, round(p.heldOut()));
      frontier.add(point);
    }
    predicted.add("frontier_pass_at_" + attempts, frontier);
    int[] lastShot = PenaltyCeilings.bestLastShotOffsets(population.training(), spots, attempts, scoring(base));
    predicted.addProperty("last_shot_keeper_train_pass_at_" + attempts, round(PenaltyCeilings.lastShotOffsets(
        population.training(), spots, scoring(base), lastShot).passAt().get(attempts - 1)));
    root.add("predicted", predicted);
    root.add("measured", measured(rows));
    return root;
  }

  /** @return Pass@1..K, the final-attempt score and the cumulative score, in a list the caller may extend */
  private List<String> scoreMetrics() {
    List<String> m = new ArrayList<>();
    for (int k = 0; k < attempts; k++) {
      m.add(pass(k));
    }
    m.add(FINAL);
    m.add(CUMULATIVE);
    return m;
  }

  /**
   * The measured differences: MAGE minus LaMer on the training population with their combined spread (the sum of the
   * two sample standard deviations) and a verdict against the predicted sign; each multi- and single-episode method's
   * held-out Pass@K mean minus two standard deviations against the held-out blind ceiling.
   */
  private JsonObject measured(Map<String, List<Map<String, Double>>> rows) {
    JsonObject measured = new JsonObject();
    Map<String, Double> mageOpt = rows.get(OPTIMUM_FINAL).get(0);
    Map<String, Double> lamerOpt = rows.get(OPTIMUM_CUMULATIVE).get(0);
    List<Map<String, Double>> mage = rows.get(TrainingPreset.MAGE.id());
    List<Map<String, Double>> lamer = rows.get(TrainingPreset.LAMER.id());
    if (mage != null && lamer != null) {
      JsonObject d = new JsonObject();
      for (String metric : scoreMetrics()) {
        String key = TRAIN + "/" + metric;
        double[] a = RunSummaries.meanSd(mage, key);
        double[] b = RunSummaries.meanSd(lamer, key);
        double difference = a[0] - b[0];
        double spread = (Double.isNaN(a[1]) ? 0 : a[1]) + (Double.isNaN(b[1]) ? 0 : b[1]);
        double predictedDiff = mageOpt.get(key) - lamerOpt.get(key);
        JsonObject m = new JsonObject();
        m.addProperty("predicted", round(predictedDiff));
        m.addProperty("difference", round(difference));
        m.addProperty("combined_sd", round(spread));
        m.addProperty("verdict", verdict(predictedDiff, difference, spread));
        d.add(metric, m);
      }
      measured.add("mage_minus_lamer_train", d);
    }
    double blind = rows.get(CEILING_BLIND).get(0).get(HELD_OUT + "/" + pass(attempts - 1));
    JsonObject heldOut = new JsonObject();
    for (Map.Entry<String, List<Map<String, Double>>> row : rows.entrySet()) {
      if (EXACT_ROWS.contains(row.getKey()) || row.getKey().equals(WARM_START)) {
        continue;
      }
      double[] s = RunSummaries.meanSd(row.getValue(), HELD_OUT + "/" + pass(attempts - 1));
      double lower = s[0] - 2 * (Double.isNaN(s[1]) ? 0 : s[1]);
      JsonObject m = new JsonObject();
      m.addProperty("mean", round(s[0]));
      m.addProperty("sd", Double.isNaN(s[1]) ? null : round(s[1]));
      m.addProperty("mean_minus_2sd", round(lower));
      m.addProperty("blind_ceiling", round(blind));
      m.addProperty("above_blind_ceiling", lower > blind);
      heldOut.add(row.getKey(), m);
    }
    measured.add("held_out_pass_at_" + attempts, heldOut);
    return measured;
  }

  /**
   * @param predicted the predicted difference
   * @param measured the measured difference
   * @param spread the combined spread
   * @return {@code reproduced} (same sign, beyond the spread), {@code not separated} (within it), {@code reversed}
   *     (opposite sign, beyond it), or for a predicted tie {@code tie as predicted} or {@code separated}
   */
  static String verdict(double predicted, double measured, double spread) {
    if (Math.abs(predicted) < 1e-9) {
      return Math.abs(measured) <= spread ? "tie as predicted" : "separated";
    }
    if (Math.abs(measured) <= spread) {
      return "not separated";
    }
    return Math.signum(measured) == Math.signum(predicted) ? "reproduced" : "reversed";
  }

  private void printMeasured(JsonObject report) {
    JsonObject predicted = report.getAsJsonObject("predicted");
    JsonObject measured = report.getAsJsonObject("measured");
    out.println();
    out.printf(Locale.ROOT, "Predicted before training (the exact optima of the two objectives on the training"
        + " population): MAGE minus LaMer %s; a single-episode method's Pass@%d is at most %.3f (ceiling-blind);"
        + " held out, the blind ceiling is %.3f and the training population's optimum reaches %.3f%n",
        predicted.getAsJsonObject("mage_minus_lamer_train"), attempts,
        predicted.get("single_episode_max_train_pass_at_" + attempts).getAsDouble(),
        predicted.get("held_out_blind_pass_at_" + attempts).getAsDouble(),
        predicted.get("training_optimum_on_held_out_pass_at_" + attempts).getAsDouble());
    JsonObject optimal = predicted.getAsJsonObject("training_optima_on_held_out_pass_at_" + attempts);
    StringBuilder frontier = new StringBuilder();
    for (com.google.gson.JsonElement e : predicted.getAsJsonArray("frontier_pass_at_" + attempts)) {
      JsonObject p = e.getAsJsonObject();
      frontier.append(frontier.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "(%.3f, %.3f)",
          p.get(TRAIN).getAsDouble(), p.get(HELD_OUT).getAsDouble()));
    }
    out.printf(Locale.ROOT, "A perfect learner: every keeper optimal for MAGE's objective on the training population"
        + " saves %.3f to %.3f of the held-out strikers within %d attempts (free where no training striker shoots the"
        + " history); the frontier of (training, held-out) Pass@%d over all keepers: %s%n",
        optimal.get("min").getAsDouble(), optimal.get("max").getAsDouble(), attempts, attempts, frontier);
    out.printf(Locale.ROOT, "The simplest reader of the history, a dive at a fixed offset from the last shot per"
        + " attempt, reaches Pass@%d %.3f at best on the training population (blind ceiling %.3f)%n", attempts,
        predicted.get("last_shot_keeper_train_pass_at_" + attempts).getAsDouble(),
        predicted.get("single_episode_max_train_pass_at_" + attempts).getAsDouble());
    if (measured.has("mage_minus_lamer_train")) {
      out.println("Measured, MAGE minus LaMer on the training population (combined spread: the sum of the two sample"
          + " standard deviations):");
      for (Map.Entry<String, com.google.gson.JsonElement> e
          : measured.getAsJsonObject("mage_minus_lamer_train").entrySet()) {
        JsonObject m = e.getValue().getAsJsonObject();
        out.printf(Locale.ROOT, "  %-22s predicted %+.3f, measured %+.3f (spread %.3f): %s%n", label(e.getKey()),
            m.get("predicted").getAsDouble(), m.get("difference").getAsDouble(), m.get("combined_sd").getAsDouble(),
            m.get("verdict").getAsString());
      }
    }
    out.printf(Locale.ROOT, "Held-out Pass@%d against the held-out blind ceiling (mean - 2 sd above it?):%n", attempts);
    for (Map.Entry<String, com.google.gson.JsonElement> e
        : measured.getAsJsonObject("held_out_pass_at_" + attempts).entrySet()) {
      JsonObject m = e.getValue().getAsJsonObject();
      out.printf(Locale.ROOT, "  %-22s mean %.3f, mean - 2 sd %.3f, blind %.3f: %s%n", e.getKey(),
          m.get("mean").getAsDouble(), m.get("mean_minus_2sd").getAsDouble(), m.get("blind_ceiling").getAsDouble(),
          m.get("above_blind_ceiling").getAsBoolean() ? "above" : "not above");
    }
    out.flush();
  }

  /** Writes {@code claims-SUFFIX.png} and {@code .svg}: per row four measures with the seeds' spread as error bars. */
  private void chart(Map<String, List<Map<String, Double>>> rows, Path dir) {
    Map<String, String> series = new LinkedHashMap<>();
    series.put("train Pass@2", TRAIN + "/" + pass(1));
    series.put("train Pass@" + attempts, TRAIN + "/" + pass(attempts - 1));
    series.put("train final-attempt score", TRAIN + "/" + FINAL);
    series.put("held-out Pass@" + attempts, HELD_OUT + "/" + pass(attempts - 1));
    out.println("Chart: " + RunSummaries.chart(dir, "claims" + game.cacheSuffix(),
        game.environment() + ": the claims by method", "mean over seeds (bars: sd)", rows, series));
  }




  /** Per metric of a set, mean, sd and the per-seed values. */
  private JsonObject stats(List<Map<String, Double>> perSeed, String prefix) {
    JsonObject o = new JsonObject();
    for (String metric : metrics()) {
      double[] s = RunSummaries.meanSd(perSeed, prefix + metric);
      JsonObject m = new JsonObject();
      m.addProperty("mean", Double.isNaN(s[0]) ? null : round(s[0]));
      m.addProperty("sd", Double.isNaN(s[1]) ? null : round(s[1]));
      JsonArray values = new JsonArray();
      for (Map<String, Double> seed : perSeed) {
        double v = seed.getOrDefault(prefix + metric, Double.NaN);
        values.add(Double.isNaN(v) ? null : round(v));
      }
      m.add("values", values);
      o.add(metric, m);
    }
    return o;
  }

  /** An exact row's metrics of a set. */
  private JsonObject values(Map<String, Double> row, String prefix) {
    JsonObject o = new JsonObject();
    for (String metric : scoreMetrics()) {
      o.addProperty(metric, round(row.get(prefix + metric)));
    }
    return o;
  }

  /** Rounds to 6 decimals, so that the report does not print float noise. */
  private static double round(double v) {
    return Math.round(v * 1e6) / 1e6;
  }
}
