package org.magejvm.impl.train.listen;

import org.magejvm.impl.train.common.TrainingException;
import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The numeric metrics of a run as read from its {@code metrics.jsonl}: series per metric, the opponents that were
 * validated against, and a summary table (what {@code mage report} prints).
 */
public final class MetricsHistory {

  private static final Pattern OPPONENT_KEY = Pattern.compile("val/(.+)/success_rate\\[\\d+]");
  private static final Pattern INDEXED = Pattern.compile("(.*)\\[(\\d+)]");

  private final Path source;
  private final List<Map<String, Double>> rows;

  private MetricsHistory(Path source, List<Map<String, Double>> rows) {
    this.source = source;
    this.rows = Collections.unmodifiableList(rows);
  }

  /**
   * Reads a metrics file; lines that are not complete JSON objects with an {@code iteration} (a torn last line) are
   * skipped, and so are values that are not numbers.
   *
   * @param metricsFile the {@code metrics.jsonl} file
   * @return the history
   * @throws TrainingException naming the file when it cannot be read
   */
  public static MetricsHistory read(Path metricsFile) {
    List<String> lines;
    try {
      lines = Files.readAllLines(metricsFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new TrainingException(metricsFile + ": cannot read the metrics file: " + e.getMessage(), e);
    }
    List<Map<String, Double>> rows = new ArrayList<>();
    for (String line : lines) {
      if (MetricsFileListener.iterationOf(line) < 0) {
        continue;
      }
      Map<String, Double> row = new LinkedHashMap<>();
      try {
        for (Map.Entry<String, JsonElement> e : JsonParser.parseString(line).getAsJsonObject().entrySet()) {
          JsonElement v = e.getValue();
          if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber()) {
            row.put(e.getKey(), v.getAsDouble());
          }
        }
      } catch (JsonParseException | IllegalStateException | NumberFormatException e) {
        continue;
      }
      rows.add(row);
    }
    return new MetricsHistory(metricsFile, rows);
  }

  /** @return the file read */
  public Path source() {
    return source;
  }

  /** @return one map per iteration, in file order (numbers only) */
  public List<Map<String, Double>> rows() {
    return rows;
  }

  /** @return every metric name, in first-seen order */
  public Set<String> keys() {
    Set<String> out = new LinkedHashSet<>();
    for (Map<String, Double> r : rows) {
      out.addAll(r.keySet());
    }
    return out;
  }

  /**
   * @param key a metric name
   * @return {@code [iterations, values]} of the iterations that have a finite value for it
   */
  public double[][] series(String key) {
    List<double[]> points = new ArrayList<>();
    for (Map<String, Double> r : rows) {
      Double v = r.get(key);
      Double it = r.get("iteration");
      if (v != null && it != null && Double.isFinite(v)) {
        points.add(new double[] {it, v});
      }
    }
    double[][] out = new double[2][points.size()];
    for (int i = 0; i < points.size(); i++) {
      out[0][i] = points.get(i)[0];
      out[1][i] = points.get(i)[1];
    }
    return out;
  }

  /**
   * @param prefix a metric name without its index, e.g. {@code val/success_rate}
   * @return the keys {@code prefix[0]}, {@code prefix[1]}, ... present in the history, in index order
   */
  public List<String> indexedKeys(String prefix) {
    Set<String> keys = keys();
    List<String> out = new ArrayList<>();
    for (int k = 0; keys.contains(prefix + "[" + k + "]"); k++) {
      out.add(prefix + "[" + k + "]");
    }
    return out;
  }

  /**
   * @return the validated opponents with metrics {@code val/OPPONENT/success_rate[k]}, sorted: the population's
   *     opponents by their ids and the held-out sets as {@code heldout/OPPONENT}
   */
  public Set<String> validatedOpponents() {
    Set<String> out = new TreeSet<>();
    for (String k : keys()) {
      Matcher m = OPPONENT_KEY.matcher(k);
      if (m.matches()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /**
   * A plain-text summary: the number of iterations, then for the success rates (training and validation, overall
   * and per opponent), the loss diagnostics, the gradient norm and the timings, the first, last, lowest, highest
   * and mean values with the iteration of the highest.
   *
   * @return the table
   */
  public String summary() {
    StringBuilder sb = new StringBuilder();
    if (rows.isEmpty()) {
      return source + ": no iterations recorded\n";
    }
    double[][] its = series("iteration");
    sb.append(String.format(Locale.ROOT, "%s: %d iterations (%d..%d)%n%n", source, rows.size(),
        (long) its[1][0], (long) its[1][its[1].length - 1]));
    sb.append(String.format(Locale.ROOT, "%-36s %5s %9s %9s %9s %9s %9s %7s%n", "metric", "n", "first", "last",
        "min", "max", "mean", "argmax"));
    List<String> keys = new ArrayList<>();
    keys.addAll(indexedKeys("success_rate"));
    keys.addAll(indexedKeys("val/success_rate"));
    for (String o : validatedOpponents()) {
      keys.addAll(indexedKeys("val/" + o + "/success_rate"));
    }
    for (String k : keys()) {
      if (k.startsWith("actor/") || k.startsWith("timing/") || k.equals("grad_norm") || k.equals("mean_abs_advantage")
          || k.equals("skipped_zero_advantage_turns") || k.equals("failed_meta_episodes")
          || k.equals("invalid_action_rate")) {
        keys.add(k);
      }
    }
    for (String k : keys) {
      double[] v = series(k)[1];
      double[] x = series(k)[0];
      if (v.length == 0) {
        continue;
      }
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      double sum = 0;
      int argmax = 0;
      for (int i = 0; i < v.length; i++) {
        min = Math.min(min, v[i]);
        if (v[i] > max) {
          max = v[i];
          argmax = i;
        }
        sum += v[i];
      }
      sb.append(String.format(Locale.ROOT, "%-36s %5d %s %s %s %s %s %7d%n", k, v.length, cell(v[0]),
          cell(v[v.length - 1]), cell(min), cell(max), cell(sum / v.length), (long) x[argmax]));
    }
    return sb.toString();
  }

  private static String cell(double v) {
    return v == 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6) ? String.format(Locale.ROOT, "%9.4f", v)
        : String.format(Locale.ROOT, "%9.2e", v);
  }

  /**
   * @param metrics a metrics map
   * @param prefix an indexed metric's name without the index
   * @return the values {@code prefix[0]}, {@code prefix[1]}, ... formatted to 3 decimals and joined by spaces
   */
  static String indexed(Map<String, ?> metrics, String prefix) {
    List<String> parts = new ArrayList<>();
    for (int k = 0; metrics.get(prefix + "[" + k + "]") instanceof Number; k++) {
      parts.add(String.format(Locale.ROOT, "%.3f", ((Number) metrics.get(prefix + "[" + k + "]")).doubleValue()));
    }
    return String.join(" ", parts);
  }

  /**
   * @param metrics a metrics map
   * @param prefix an indexed metric's name without the index
   * @return the value with the highest index formatted as {@code [k] 0.123}, or "" when there is none
   */
  static String lastIndexed(Map<String, ?> metrics, String prefix) {
    int last = -1;
    for (int k = 0; metrics.get(prefix + "[" + k + "]") instanceof Number; k++) {
      last = k;
    }
    if (last < 0) {
      return "";
    }
    return String.format(Locale.ROOT, "[%d] %.3f", last,
        ((Number) metrics.get(prefix + "[" + last + "]")).doubleValue());
  }

  /**
   * @param key an indexed metric name such as {@code val/success_rate[2]}
   * @return its index, or -1
   */
  static int indexOf(String key) {
    Matcher m = INDEXED.matcher(key);
    return m.matches() ? Integer.parseInt(m.group(2)) : -1;
  }
}
