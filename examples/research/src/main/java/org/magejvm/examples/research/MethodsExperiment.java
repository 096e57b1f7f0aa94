package org.magejvm.examples.research;

import com.google.gson.JsonObject;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.magejvm.api.ContextMode;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.GoalkeeperQuickStart;
import org.magejvm.examples.quickstart.KuhnQuickStart;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.env.keeper.GoalkeeperCeilings;
import org.magejvm.impl.env.tictactoe.TicTacToeOpponents;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The method comparison at small scale (the paper's Table 1 in miniature), on Goalkeeper, Kuhn Poker or Tic-Tac-Toe:
 * from one warm start, train each method ({@code mage}, {@code mage-reference}, {@code lamer}, and the single-episode
 * {@code gigpo} and {@code grpo} with group 24: the same number of attempts per iteration as 8 meta-episodes of 3)
 * with several training seeds each, and evaluate them and the untrained warm start on the same evaluation seeds.
 * Every method trains from the settings' config with only its method-defining keys swapped in ({@link
 * GameRecipe#trainingConfig(TrainingPreset)}).
 *
 * <p>Games with opponents report success_rate[0] and [2] (and for Tic-Tac-Toe draw_rate[0] and [2]) and score[0] and
 * [2] against the pool (averaged over its evaluation sets) and against the held-out opponent, one table per metric;
 * for Kuhn Poker it also plays the exact optimum of the objective trained ({@link KuhnQuickStart#optimum}) on the
 * same sets; for Tic-Tac-Toe it adds the history-blind and adaptive ceilings of its sets ({@link TicTacToeCeilings},
 * the MCTS sets' values estimated from {@value #TIC_TAC_TOE_SAMPLES} sampled moves per board) as rows. A game without
 * opponents (Goalkeeper) reports its one set's Pass@k ({@code success_rate[k]}) and per-attempt rate ({@code
 * per_attempt_success[k]}) for every attempt, each beside the same model evaluated without its earlier attempts in the
 * prompt ({@value #NO_HISTORY}{@code success_rate[k]}, the history ablation), and the exact history-blind and adaptive
 * ceilings ({@link GoalkeeperCeilings}) as rows.
 *
 * <p>Rows: {@code react} is the warm start with no memory of earlier attempts; {@code warm+history} is the warm start
 * with the earlier attempts' moves and outcomes in its prompt (the stand-in for {@code reflexion}: a model this size
 * writes no useful reflection); single-episode methods are evaluated with the same number of attempts but without
 * cross-episode context (as the reference evaluates its GiGPO baseline), the multi-episode ones with history.
 *
 * <p>Each (method, seed) run writes its summary, with the config and evaluation settings it was made with, to
 * {@value #SUMMARY_FILE} in its run directory; a later run with the same work directory and settings reuses it
 * instead of training again, and refuses one made with other settings.
 */
public final class MethodsExperiment {

  /** The methods trained on a game with opponents unless told otherwise. */
  public static final List<TrainingPreset> METHODS =
      List.of(TrainingPreset.MAGE, TrainingPreset.LAMER, TrainingPreset.GIGPO);
  /** The methods trained on a game without opponents (Goalkeeper) unless told otherwise. */
  public static final List<TrainingPreset> ALL_METHODS = List.of(TrainingPreset.MAGE, TrainingPreset.MAGE_REFERENCE,
      TrainingPreset.LAMER, TrainingPreset.GIGPO, TrainingPreset.GRPO);
  /** The file in a run directory that holds the run's summary and the settings it was made with. */
  public static final String SUMMARY_FILE = RunSummaries.SUMMARY_FILE;
  /** The prefix of the history ablation's columns (a game without opponents). */
  public static final String NO_HISTORY = "no_history/";
  /** The version of {@value #SUMMARY_FILE}'s layout. */
  static final int SUMMARY_FORMAT = 1;
  /**
   * Moves sampled per board of the MCTS opponents for the Tic-Tac-Toe ceilings (about 5 seconds; the standard error of
   * an MCTS set's value is then at most about 0.035).
   */
  static final int TIC_TAC_TOE_SAMPLES = 200;
  /** The seed of those samples (fixed: the ceilings do not depend on the recipe's seed). */
  private static final long TIC_TAC_TOE_SEED = 1;

  private static final String CEILING_BLIND = "ceiling-blind";
  private static final String CEILING_ADAPTIVE = "ceiling-adaptive";
  private static final Set<String> EXACT_ROWS = Set.of(CEILING_BLIND, CEILING_ADAPTIVE);

  private final EnvironmentRegistry registry;
  private final RecipeGame game;
  private final PrintWriter out;
  private final int attempts;

  /**
   * @param registry where the game's environment is found
   * @param game the game
   * @param out where progress and the table go
   */
  public MethodsExperiment(EnvironmentRegistry registry, RecipeGame game, PrintWriter out) {
    this.registry = registry;
    this.game = game;
    this.out = out;
    // the evaluation plays the environment's attempts per meta-episode (GameRecipe.evaluate)
    this.attempts = registry.require(game.environment()).defaults().episodes();
  }

  /**
   * Runs the comparison of the default methods ({@link #METHODS}, or {@link #ALL_METHODS} for a game without
   * opponents).
   *
   * @param settings the recipe settings (its seed is the warm start's and the evaluation's)
   * @param trainingSeeds the training seeds per method
   * @return per row ({@code react}, {@code warm+history}, then each method, then for Goalkeeper and Tic-Tac-Toe the
   *     two ceilings), the list of per-seed summaries ({@link #columns()})
   */
  public Map<String, List<Map<String, Double>>> run(RecipeSettings settings, List<Long> trainingSeeds) {
    return run(settings, trainingSeeds, game.hasOpponents() ? METHODS : ALL_METHODS);
  }

  /**
   * Runs the comparison for some of the methods. Runs whose summary is in the work directory, made with the same
   * settings, are reused, so a long comparison can be split over several invocations.
   *
   * @param settings the recipe settings (its seed is the warm start's and the evaluation's)
   * @param trainingSeeds the training seeds per method
   * @param methods the methods to train (training presets)
   * @return per row ({@code react}, {@code warm+history}, then each method, then for Goalkeeper and Tic-Tac-Toe the
   *     two ceilings), the list of per-seed summaries ({@link #columns()})
   * @throws IllegalStateException when a run's summary was made with other settings
   * @throws IllegalArgumentException when a method does not train
   */
  public Map<String, List<Map<String, Double>>> run(RecipeSettings settings, List<Long> trainingSeeds,
      List<TrainingPreset> methods) {
    return run(settings, trainingSeeds, methods, true);
  }

  /**
   * Runs the comparison for some of the methods, or only prints what the work directory holds.
   *
   * @param settings the recipe settings (its seed is the warm start's and the evaluation's)
   * @param trainingSeeds the training seeds per method
   * @param methods the methods (training presets)
   * @param train whether to train the runs that are missing; without it nothing is trained (not even the warm
   *     start): every missing run is named, a method with no finished run is left out of the table and the chart,
   *     and the rows show how many seeds each method has
   * @return as {@link #run(RecipeSettings, List, List)}, without the methods that have no finished run when
   *     {@code train} is false
   * @throws IllegalStateException when a run's summary was made with other settings, or without {@code train} when
   *     the work directory holds no warm start
   * @throws IllegalArgumentException when a method does not train
   */
  public Map<String, List<Map<String, Double>>> run(RecipeSettings settings, List<Long> trainingSeeds,
      List<TrainingPreset> methods, boolean train) {
    GameRecipe base = RunSummaries.recipe(registry, game, settings, out, methods, train);
    Path warm = base.warmStart();
    Map<String, List<Map<String, Double>>> rows = new LinkedHashMap<>();
    try (DjlLanguagePolicy policy = base.load(warm)) {
      Map<String, Double> react = summary(base.evaluate(policy, ContextMode.NONE));
      Map<String, Double> history = summary(base.evaluate(policy, ContextMode.HISTORY_ONLY));
      if (!game.hasOpponents()) {
        react.putAll(ablation(react));
        history.putAll(ablation(react));
      }
      rows.put("react", List.of(react));
      rows.put("warm+history", List.of(history));
    }
    Map<String, List<Map<String, Double>>> ceilings = new LinkedHashMap<>();
    if (game.hasOpponents()) {
      out.printf(Locale.ROOT, "%s (%s) on the same sets:", game.referencePolicy(), game.referenceLabel());
      printLine(summary(base.ceilings()));
      if (game.equals(GameRecipe.KUHN)) {
        out.printf(Locale.ROOT, "optimum of the objective (attempt discount %s) on the same sets:", base.trajGamma());
        printLine(summary(KuhnQuickStart.optimum(base)));
      }
      if (game.equals(GameRecipe.TIC_TAC_TOE)) {
        ceilings.putAll(ticTacToeCeilings(TIC_TAC_TOE_SAMPLES));
        out.printf(Locale.ROOT, "Ceilings of the same sets (%d attempts, the agent first; the MCTS sets' values"
            + " estimated from %d sampled moves per board): best history-blind policy for the pool's mean", attempts,
            TIC_TAC_TOE_SAMPLES);
        printLine(ceilings.get(CEILING_BLIND).get(0));
        out.print("  best adaptive player (upper bound: the best response to each opponent)");
        printLine(ceilings.get(CEILING_ADAPTIVE).get(0));
      }
    } else {
      int spots = GoalkeeperQuickStart.spots(settings.training());
      Map<String, Number> blind = GoalkeeperQuickStart.rates(GoalkeeperCeilings.historyBlind(spots, attempts));
      Map<String, Number> adaptive = GoalkeeperQuickStart.rates(GoalkeeperCeilings.adaptive(spots, attempts));
      ceilings.put(CEILING_BLIND, List.of(ceiling(blind, blind)));
      ceilings.put(CEILING_ADAPTIVE, List.of(ceiling(adaptive, blind)));
      out.printf(Locale.ROOT, "Exact ceilings with %d spots and %d attempts: best history-blind keeper", spots,
          attempts);
      printLine(ceilings.get(CEILING_BLIND).get(0));
      out.print("  best adaptive keeper");
      printLine(ceilings.get(CEILING_ADAPTIVE).get(0));
    }
    RunSummaries.addMethodRows(out, rows, methods, method -> train(base, method, trainingSeeds, train));
    rows.putAll(ceilings);
    print(rows);
    chart(rows, settings.workDir());
    return rows;
  }

  /**
   * The Tic-Tac-Toe ceilings of the evaluation sets as summaries ({@link TicTacToeCeilings}): {@value
   * #CEILING_BLIND}, the pool sets' rates of the deterministic history-blind policy that wins most often on their mean
   * (the pool columns' average: equal weights), and the held-out set's best response (the best a history-blind
   * player does against one opponent); {@value #CEILING_ADAPTIVE}, every set's best response (no player wins more
   * often). Draw rates and scores are not computed (NaN).
   *
   * @param samples moves sampled per board of the MCTS opponents
   * @return the two rows
   */
  Map<String, List<Map<String, Double>>> ticTacToeCeilings(int samples) {
    List<OpponentPool.Entry> pool = new ArrayList<>();
    for (String id : game.pool()) {
      pool.add(new OpponentPool.Entry(TicTacToeOpponents.byId(id), 1));
    }
    List<TicTacToeCeilings.OpponentCeiling> sets = new ArrayList<>(
        TicTacToeCeilings.of(pool, seat(game.poolSeating()), attempts, samples, TIC_TAC_TOE_SEED).opponents());
    sets.addAll(TicTacToeCeilings.of(List.of(new OpponentPool.Entry(TicTacToeOpponents.byId(game.firstHeldOut()), 1)),
        game.heldOutSeat(), attempts, samples, TIC_TAC_TOE_SEED).opponents());
    Map<String, Map<String, Number>> blind = new LinkedHashMap<>();
    Map<String, Map<String, Number>> adaptive = new LinkedHashMap<>();
    for (TicTacToeCeilings.OpponentCeiling o : sets) {
      blind.put(o.opponentId(), rates(o.blind()));
      adaptive.put(o.opponentId(), rates(o.adaptive()));
    }
    Map<String, List<Map<String, Double>>> rows = new LinkedHashMap<>();
    rows.put(CEILING_BLIND, List.of(summary(blind)));
    rows.put(CEILING_ADAPTIVE, List.of(summary(adaptive)));
    return rows;
  }

  /** A ceiling's rates as one set's metrics: success rates and per-attempt rates; NaN draw rates and scores. */
  private Map<String, Number> rates(AttemptCeiling c) {
    Map<String, Number> m = new LinkedHashMap<>(GoalkeeperQuickStart.rates(c));
    for (String metric : List.of("draw_rate", "score")) {
      for (int k = 0; k < c.attempts(); k++) {
        m.put(metric + "[" + k + "]", Double.NaN);
      }
    }
    return m;
  }

  /** The one seat of a seating that is not mixed. */
  private static Seat seat(Seating seating) {
    switch (seating.mode()) {
      case FIRST:
        return Seat.FIRST;
      case SECOND:
        return Seat.SECOND;
      default:
        throw new IllegalStateException("the ceilings need one seat, not seating " + seating);
    }
  }

  /**
   * Trains (or reuses) and evaluates one method with every training seed; without {@code train}, only reuses.
   *
   * @return the summaries of the seeds that have one
   */
  private List<Map<String, Double>> train(GameRecipe base, TrainingPreset method, List<Long> trainingSeeds,
      boolean train) {
    RecipeSettings settings = base.settings();
    TrainingConfig config = base.trainingConfig(method);
    TrainingConfig.RolloutSettings r = config.rollout();
    long metaEpisodes = (long) config.iterations() * r.tasks() * r.groupSize();
    out.printf(Locale.ROOT, "%s: %d iterations x %d task groups x %d meta-episodes of %d attempt(s): %d meta-episodes,"
        + " at most %d attempts per training seed%s%n", method.id(), config.iterations(), r.tasks(), r.groupSize(),
        r.episodes(), metaEpisodes, metaEpisodes * r.episodes(),
        r.earlyStop() && r.episodes() > 1 ? " (a meta-episode ends at its first success)" : "");
    out.flush();
    boolean multiEpisode = method.multiEpisode();
    ContextMode context = multiEpisode ? settings.training().rollout().contextMode() : ContextMode.NONE;
    List<Map<String, Double>> perSeed = new ArrayList<>();
    for (long seed : trainingSeeds) {
      // training seeds change the rollouts; the warm start and the evaluation sets stay those of settings.seed()
      TrainingConfig seeded = config.with("seed", Seeds.derive(seed, GameRecipe.TRAINING_SEED_STREAM, 0));
      Path runDir = settings.workDir().resolve(method.id() + base.cacheSuffix() + "-seed" + seed);
      JsonObject key = runKey(base, seeded, context);
      Map<String, Double> summary = RunSummaries.reuseOrTrain(out, base, method.id(), seed, seeded, runDir, key,
          columns(), train, policy -> {
            Map<String, Double> s = summary(base.evaluate(policy, context));
            if (!game.hasOpponents()) {
              // the history ablation: the same model without its earlier attempts (for single-episode methods, which
              // are evaluated so, the same evaluation)
              s.putAll(ablation(multiEpisode ? summary(base.evaluate(policy, ContextMode.NONE)) : s));
            }
            return s;
          });
      if (summary == null) {
        continue;
      }
      printLine(summary);
      perSeed.add(summary);
    }
    return perSeed;
  }

  /**
   * What a run's summary depends on: its training config (with its seed) and the evaluation's settings (the warm
   * start, the sets and their seeds, sizes, sampling and context).
   */
  private JsonObject runKey(GameRecipe base, TrainingConfig config, ContextMode context) {
    return RunSummaries.runKey(base, config, SUMMARY_FORMAT, attempts, context,
        Map.of("history_ablation", !game.hasOpponents()));
  }

  /** Prints a summary's values after what the line has so far ("-" for NaN), and ends the line. */
  private void printLine(Map<String, Double> summary) {
    for (String key : columns()) {
      double v = summary.get(key);
      out.printf(Locale.ROOT, Double.isNaN(v) ? " %s -" : " %s %.3f", key, v);
    }
    out.println();
    out.flush();
  }

  /**
   * Writes {@code methods.png} and {@code methods.svg} ({@code methods-SUFFIX} for other games than Kuhn Poker), seed
   * spread as error bars: for a game with opponents pool sr[0] and sr[2] and the held-out sr[2] (draw rate for games
   * with draws) per row; without opponents Pass@N, the per-attempt rate of attempt 1 and Pass@N without history.
   */
  private void chart(Map<String, List<Map<String, Double>>> rows, Path dir) {
    Map<String, String> series = new LinkedHashMap<>();
    if (game.hasOpponents()) {
      String heldOutKey = game.firstHeldOut() + (game.draws() ? "/draw_rate[2]" : "/success_rate[2]");
      for (String key : List.of("pool/success_rate[0]", "pool/success_rate[2]", heldOutKey)) {
        series.put(key, key);
      }
    } else {
      int last = attempts - 1;
      series.put("Pass@" + attempts, "success_rate[" + last + "]");
      series.put("attempt 1 (per-attempt rate)", "per_attempt_success[1]");
      series.put("Pass@" + attempts + " without history", NO_HISTORY + "success_rate[" + last + "]");
    }
    String title = game.hasOpponents() ? game.environment() + ": rates by method"
        : game.environment() + ": Pass@k and per-attempt rate by method";
    out.println("Chart: " + RunSummaries.chart(dir, "methods" + game.cacheSuffix(), title,
        "rate (mean over training seeds, bars: sample sd)", rows, series));
    out.flush();
  }


  /**
   * @return the summary's keys: with opponents, pool and held-out success_rate[0] and [2], then (games with draws)
   *     the same draw_rate columns, then the same score columns; without opponents, success_rate[k] for every attempt
   *     and the same {@value #NO_HISTORY} columns, then the same per_attempt_success columns
   */
  List<String> columns() {
    List<String> keys = new ArrayList<>();
    for (String metric : metrics()) {
      keys.addAll(columns(metric));
    }
    return keys;
  }

  /** One metric's columns: pool and held-out [0] and [2]; without opponents every attempt, then without history. */
  private List<String> columns(String metric) {
    List<String> keys = new ArrayList<>();
    if (!game.hasOpponents()) {
      for (String prefix : List.of("", NO_HISTORY)) {
        for (int k = 0; k < attempts; k++) {
          keys.add(prefix + metric + "[" + k + "]");
        }
      }
      return keys;
    }
    for (String set : List.of("pool", game.firstHeldOut())) {
      for (int k : new int[] {0, 2}) {
        keys.add(set + "/" + metric + "[" + k + "]");
      }
    }
    return keys;
  }

  /**
   * Pool averages (over the pool's evaluation sets) and the held-out set's rates, keyed as {@link #columns()};
   * without opponents the one set's rates (NaN for an attempt no meta-episode reached) and no {@value #NO_HISTORY}
   * columns.
   */
  Map<String, Double> summary(Map<String, Map<String, Number>> sets) {
    Map<String, Double> s = new LinkedHashMap<>();
    if (!game.hasOpponents()) {
      Map<String, Number> all = sets.get(GameRecipe.ALL_SET);
      for (String key : columns()) {
        if (!key.startsWith(NO_HISTORY)) {
          Number v = all.get(key);
          s.put(key, v == null ? Double.NaN : v.doubleValue());
        }
      }
      return s;
    }
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

  /** A summary's rates as the {@value #NO_HISTORY} columns. */
  private static Map<String, Double> ablation(Map<String, Double> noHistory) {
    Map<String, Double> s = new LinkedHashMap<>();
    noHistory.forEach((k, v) -> {
      if (!k.startsWith(NO_HISTORY)) {
        s.put(NO_HISTORY + k, v);
      }
    });
    return s;
  }

  /**
   * An exact ceiling's rates as a summary; its {@value #NO_HISTORY} columns hold the history-blind ceiling's rates (a
   * keeper that does not see its earlier attempts is a history-blind one, so they bound every no-history column).
   */
  private Map<String, Double> ceiling(Map<String, Number> rates, Map<String, Number> blind) {
    Map<String, Double> s = summary(Map.of(GameRecipe.ALL_SET, rates));
    s.putAll(ablation(summary(Map.of(GameRecipe.ALL_SET, blind))));
    return s;
  }

  /**
   * The metrics of the summary, each with its own table: success_rate, draw_rate (games with draws), score; without
   * opponents success_rate and per_attempt_success.
   */
  private List<String> metrics() {
    if (!game.hasOpponents()) {
      return List.of("success_rate", "per_attempt_success");
    }
    return game.draws() ? List.of("success_rate", "draw_rate", "score") : List.of("success_rate", "score");
  }

  private void print(Map<String, List<Map<String, Double>>> rows) {
    int nameWidth = 14;
    for (String name : rows.keySet()) {
      nameWidth = Math.max(nameWidth, name.length());
    }
    for (String metric : metrics()) {
      List<String> keys = columns(metric);
      int width = 28;
      for (String key : keys) {
        width = Math.max(width, key.length());
      }
      out.println();
      StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-" + nameWidth + "s %5s", "method",
          "seeds"));
      for (String key : keys) {
        header.append(String.format(Locale.ROOT, " %" + width + "s", key));
      }
      out.println(header);
      for (Map.Entry<String, List<Map<String, Double>>> row : rows.entrySet()) {
        String seeds = EXACT_ROWS.contains(row.getKey()) ? "-" : Integer.toString(row.getValue().size());
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + nameWidth + "s %5s", row.getKey(),
            seeds));
        for (String key : keys) {
          double[] v = row.getValue().stream().mapToDouble(m -> m.get(key)).toArray();
          sb.append(String.format(Locale.ROOT, " %" + width + "s", RunSummaries.meanSpread(v)));
        }
        out.println(sb);
      }
    }
    if (game.hasOpponents()) {
      out.println("(mean +- sample standard deviation over training seeds; min..max in brackets; score: "
          + (game.equals(GameRecipe.KUHN) ? "chips per hand" : "+1 a win, 0 a draw, -1 a loss")
          + ", the best of the attempts so far)");
      if (rows.containsKey(CEILING_BLIND)) {
        out.println("(ceiling-blind: the deterministic player that never reads its earlier attempts and wins most often"
            + " on the pool's mean, against each set (success_rate[0] is the best any such player does,"
            + " success_rate[2] a lower bound), and the best response to the held-out opponent; ceiling-adaptive:"
            + " the best response to each opponent, which no player beats. Against MCTS the values are estimated from "
            + TIC_TAC_TOE_SAMPLES + " sampled moves per board (standard error at most about "
            + String.format(Locale.ROOT, "%.3f", Math.sqrt(0.25 / TIC_TAC_TOE_SAMPLES))
            + "); draw rates and scores are not computed.)");
      }
    } else {
      out.println("(mean +- sample standard deviation over training seeds; min..max in brackets. success_rate[k]:"
          + " Pass@(k+1), saved by attempt k; per_attempt_success[k]: saves among the meta-episodes that reached"
          + " attempt k, - where none did; " + NO_HISTORY + ": the same model with no earlier attempt in its prompts,"
          + " which single-episode methods and react are evaluated with anyway. ceiling-blind: the best keeper that"
          + " ignores its earlier attempts (it may know the attempt number: an upper bound for every no-history"
          + " column, which both ceiling rows show); ceiling-adaptive: the best one that reads them; both exact.)");
    }
    out.flush();
  }
}
