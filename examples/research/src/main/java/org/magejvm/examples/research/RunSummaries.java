package org.magejvm.examples.research;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.magejvm.api.util.AtomicFiles;

/**
 * The finished runs of the lab's comparisons ({@link MethodsExperiment}, {@link ClaimsExperiment}): each (method, seed)
 * run writes its summary, with the settings it was made with, to a JSON file in its run directory; a later invocation
 * with the same settings reuses it instead of training again, and refuses one made with other settings, naming the
 * first setting that differs. Also the spread of a column over seeds as the tables print it.
 */
final class RunSummaries {

  /** Pretty JSON with nulls, as the summary files are written. */
  static final Gson GSON = new GsonBuilder().setPrettyPrinting().serializeNulls().create();

  private RunSummaries() {}

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
}
