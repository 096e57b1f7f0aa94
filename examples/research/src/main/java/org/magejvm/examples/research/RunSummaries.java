package org.magejvm.examples.research;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.magejvm.api.ContextMode;
import org.magejvm.api.util.AtomicFiles;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.RecipeGame;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.train.listen.MetricsFileListener;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.train.listen.TrainingCharts;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The finished runs of the lab's comparisons ({@link MethodsExperiment}, {@link ClaimsExperiment}): each (method, seed)
 * run writes its summary, with the settings it was made with, to a JSON file in its run directory; a later invocation
 * with the same settings reuses it instead of training again, and refuses one made with other settings, naming the
 * first setting that differs. Also the spread of a column over seeds as the tables print it.
 */
final class RunSummaries {

  /** The file in a run directory that holds the run's summary and the settings it was made with. */
  static final String SUMMARY_FILE = "summary.json";

  /** Pretty JSON with nulls, as the summary files are written. */
  static final Gson GSON = new GsonBuilder().setPrettyPrinting().serializeNulls().create();

  private RunSummaries() {}

  /**
   * What a run's summary depends on: its training config (with its seed) and the evaluation's settings (the warm
   * start, the sets and their seeds, sizes, sampling and context), with the comparison's own entries.
   *
   * @param base the recipe (warm start, evaluation settings, sets)
   * @param config the run's training config
   * @param format the version of the comparison's summary layout
   * @param attempts the attempts per evaluated meta-episode
   * @param context what the evaluation's prompts show of earlier attempts
   * @param evaluationExtras more evaluation settings, added after the common ones
   * @return the settings, {@linkplain #normalized normalized}
   */
  static JsonObject runKey(GameRecipe base, TrainingConfig config, int format, int attempts, ContextMode context,
      Map<String, Object> evaluationExtras) {
    RecipeSettings s = base.settings();
    JsonObject eval = new JsonObject();
    eval.addProperty("warm_start", base.warmStartKey().strip());
    eval.addProperty("seed", s.seed());
    eval.addProperty("meta_episodes", s.evalMetaEpisodes());
    eval.addProperty("attempts", attempts);
    eval.addProperty("sampling", s.evaluationSampling().toString());
    eval.addProperty("context_mode", context.name());
    evaluationExtras.forEach((k, v) -> eval.add(k, GSON.toJsonTree(v)));
    eval.add("sets", GSON.toJsonTree(base.game().evaluationSets()));
    JsonObject key = new JsonObject();
    key.addProperty("format", format);
    key.add("config", config.toJsonObject());
    key.add("evaluation", eval);
    return normalized(key);
  }

  /**
   * One (method, seed) run of a comparison: reuses its summary when its run directory holds one made with the same
   * settings ({@code "  METHOD seed S: reused FILE:"}); otherwise, with {@code train}, trains the warm start with the
   * config (metrics to the run directory's {@code metrics.jsonl}), evaluates it, writes the summary ({@code "  METHOD
   * seed S:"}); without it names the missing run and returns null. The line is left open for the caller's values.
   *
   * @param out where the progress goes
   * @param base the recipe (its warm start, training)
   * @param method the method's name
   * @param seed the training seed
   * @param config the run's training config
   * @param runDir the run's directory
   * @param key the settings the summary depends on ({@link #runKey})
   * @param columns the summary's columns
   * @param train whether to train a missing run
   * @param evaluate evaluates the trained policy into its summary
   * @return the summary, or null for a missing run without {@code train}
   * @throws IllegalStateException when the run directory holds a summary made with other settings
   */
  static Map<String, Double> reuseOrTrain(PrintWriter out, GameRecipe base, String method, long seed,
      TrainingConfig config, Path runDir, JsonObject key, List<String> columns, boolean train,
      Function<DjlLanguagePolicy, Map<String, Double>> evaluate) {
    Path file = runDir.resolve(SUMMARY_FILE);
    Map<String, Double> summary = reuse(file, key, columns);
    if (summary != null) {
      out.printf(Locale.ROOT, "  %s seed %d: reused %s:", method, seed, file);
      return summary;
    }
    if (!train) {
      out.printf(Locale.ROOT, "  %s seed %d: no finished run in %s, left out%n", method, seed, runDir);
      out.flush();
      return null;
    }
    out.printf(Locale.ROOT, "%s, training seed %d%n", method, seed);
    out.flush();
    long start = System.nanoTime();
    try (DjlLanguagePolicy policy = base.load(base.warmStartDir());
        MetricsFileListener metrics = new MetricsFileListener(runDir)) {
      base.train(config, policy, List.of(metrics));
      summary = evaluate.apply(policy);
    }
    write(file, key, summary);
    out.printf(Locale.ROOT, "  %s seed %d, trained and evaluated in %.0f s:", method, seed,
        (System.nanoTime() - start) / 1e9);
    return summary;
  }

  /**
   * The recipe of a comparison, after checking its methods and, when nothing is to be trained, that the work
   * directory holds the warm start its runs were trained from.
   *
   * @param registry where the game is found
   * @param game the game
   * @param settings the recipe's settings
   * @param out where progress goes
   * @param methods the methods to compare
   * @param train whether missing runs are trained
   * @return the recipe
   * @throws IllegalArgumentException when a method does not train
   * @throws IllegalStateException without {@code train} when the work directory holds no warm start
   */
  static GameRecipe recipe(EnvironmentRegistry registry, RecipeGame game, RecipeSettings settings, PrintWriter out,
      List<TrainingPreset> methods, boolean train) {
    for (TrainingPreset method : methods) {
      if (!method.trains()) {
        throw new IllegalArgumentException("method '" + method.id() + "' trains nothing");
      }
    }
    GameRecipe base = new GameRecipe(registry, game, settings, out);
    if (!train && !Files.exists(base.warmStartDir().resolve("model.safetensors"))) {
      throw new IllegalStateException("nothing to print: " + base.warmStartDir() + " holds no warm start, so no run"
          + " of this comparison was trained in " + settings.workDir() + " (--no-train trains nothing)");
    }
    return base;
  }

  /**
   * Adds each method's row of per-seed summaries, in order; a method without a finished run is named and left out.
   *
   * @param out where the progress goes
   * @param rows the rows to add to
   * @param methods the methods
   * @param runs trains (or reuses) a method's runs, one summary per seed that has one
   */
  static void addMethodRows(PrintWriter out, Map<String, List<Map<String, Double>>> rows,
      List<TrainingPreset> methods, Function<TrainingPreset, List<Map<String, Double>>> runs) {
    for (TrainingPreset method : methods) {
      List<Map<String, Double>> perSeed = runs.apply(method);
      if (perSeed.isEmpty()) {
        out.printf(Locale.ROOT, "%s: no finished run, left out of the table and the chart%n", method.id());
      } else {
        rows.put(method.id(), perSeed);
      }
    }
  }

  /**
   * @param key the settings a summary depends on
   * @return the settings as read back from a file, so that equal settings compare equal
   */
  static JsonObject normalized(JsonObject key) {
    return JsonParser.parseString(GSON.toJson(key)).getAsJsonObject();
  }

  /**
   * @param file a run's summary file
   * @param key the settings it must have been made with ({@link #normalized})
   * @param columns the columns to read (NaN for one the file does not hold)
   * @return the summary stored in the file when it was made with the same settings, null when there is no file
   * @throws IllegalStateException naming the first setting that differs, or when the file is not a summary
   * @throws UncheckedIOException when the file cannot be read
   */
  static Map<String, Double> reuse(Path file, JsonObject key, List<String> columns) {
    if (!Files.exists(file)) {
      return null;
    }
    JsonObject stored;
    try {
      stored = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8)).getAsJsonObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    } catch (JsonParseException | IllegalStateException e) {
      throw new IllegalStateException(file + " is not a run summary (" + e.getMessage() + "); delete it to train"
          + " the run again", e);
    }
    JsonElement storedKey = stored.get("settings");
    if (!key.equals(storedKey)) {
      throw new IllegalStateException("the run summary " + file + " was made with other settings ("
          + difference("", storedKey, key) + "); use another --work-dir, the settings it was made with, or delete "
          + file.getParent() + " to train the run again");
    }
    Map<String, Double> summary = new LinkedHashMap<>();
    JsonElement valuesElement = stored.get("summary");
    JsonObject values = valuesElement != null && valuesElement.isJsonObject() ? valuesElement.getAsJsonObject() : null;
    for (String column : columns) {
      JsonElement v = values == null ? null : values.get(column);
      try {
        summary.put(column, v == null || v.isJsonNull() ? Double.NaN : v.getAsDouble());
      } catch (RuntimeException e) {
        throw new IllegalStateException(file + ": summary." + column + " is not a number (" + v + "); delete "
            + file.getParent() + " to train the run again", e);
      }
    }
    return summary;
  }

  /**
   * The first difference between two JSON trees.
   *
   * @param path the path of the trees ("" at the top)
   * @param stored the stored tree
   * @param wanted the wanted tree
   * @return {@code key: stored there, wanted now}
   */
  static String difference(String path, JsonElement stored, JsonElement wanted) {
    if (stored != null && wanted != null && stored.isJsonObject() && wanted.isJsonObject()) {
      JsonObject a = stored.getAsJsonObject();
      JsonObject b = wanted.getAsJsonObject();
      Set<String> keys = new TreeSet<>(a.keySet());
      keys.addAll(b.keySet());
      for (String k : keys) {
        if (!Objects.equals(a.get(k), b.get(k))) {
          return difference(path.isEmpty() ? k : path + "." + k, a.get(k), b.get(k));
        }
      }
    }
    return (path.isEmpty() ? "settings" : path) + ": " + stored + " there, " + wanted + " now";
  }

  /**
   * Writes a run's summary with the settings it was made with (NaN values are left out), atomically.
   *
   * @param file the summary file
   * @param key the settings
   * @param summary the values
   * @throws UncheckedIOException when the file cannot be written
   */
  static void write(Path file, JsonObject key, Map<String, Double> summary) {
    JsonObject values = new JsonObject();
    summary.forEach((k, v) -> {
      if (Double.isFinite(v)) {
        values.addProperty(k, v);
      }
    });
    JsonObject root = new JsonObject();
    root.add("settings", key);
    root.add("summary", values);
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      AtomicFiles.writeString(file, GSON.toJson(root) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * @param v values
   * @return those that are not NaN
   */
  static double[] finite(double[] v) {
    return Arrays.stream(v).filter(x -> !Double.isNaN(x)).toArray();
  }

  /**
   * @param v values (NaN for a rate no meta-episode reached; left out)
   * @return "mean +- sd [min..max]" (sd omitted for one value; "-" when every value is NaN)
   */
  static String meanSpread(double[] v) {
    v = finite(v);
    if (v.length == 0) {
      return "-";
    }
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

  /**
   * @param v values
   * @return the mean and the sample standard deviation (NaN for one value)
   */
  static double[] meanAndSd(double[] v) {
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

  /**
   * @param perSeed the per-seed summaries of a row
   * @param key a column
   * @return the column's mean and sample sd over the seeds that have a value (NaN sd for one, both NaN for none)
   */
  static double[] meanSd(List<Map<String, Double>> perSeed, String key) {
    double[] v = finite(perSeed.stream().mapToDouble(m -> m.getOrDefault(key, Double.NaN)).toArray());
    return v.length == 0 ? new double[] {Double.NaN, Double.NaN} : meanAndSd(v);
  }

  /**
   * Writes a comparison's chart ({@code NAME.png} and {@code .svg}): per row and series the mean over the seeds (0
   * where no seed has a value: a rate no meta-episode reached) with the sample sd as error bars (0 for one seed).
   *
   * @param dir where the chart goes
   * @param name the files' name
   * @param title the title
   * @param yAxis the y axis's title
   * @param rows per row, the per-seed summaries
   * @param series per series label, the column it draws
   * @return the PNG file
   */
  static Path chart(Path dir, String name, String title, String yAxis, Map<String, List<Map<String, Double>>> rows,
      Map<String, String> series) {
    List<String> categories = new ArrayList<>(rows.keySet());
    Map<String, double[]> means = new LinkedHashMap<>();
    Map<String, double[]> spreads = new LinkedHashMap<>();
    for (Map.Entry<String, String> s : series.entrySet()) {
      double[] m = new double[categories.size()];
      double[] sd = new double[categories.size()];
      for (int i = 0; i < categories.size(); i++) {
        double[] stats = meanSd(rows.get(categories.get(i)), s.getValue());
        m[i] = Double.isNaN(stats[0]) ? 0 : stats[0];
        sd[i] = Double.isNaN(stats[1]) ? 0 : stats[1];
      }
      means.put(s.getKey(), m);
      spreads.put(s.getKey(), sd);
    }
    return TrainingCharts.writeComparison(dir, name, title, yAxis, categories, means, spreads).get(0);
  }
}
