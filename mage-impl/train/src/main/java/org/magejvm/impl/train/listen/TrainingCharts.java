package org.magejvm.impl.train.listen;

import org.magejvm.impl.train.Validation;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.impl.train.MageTrainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a run's charts from its metrics file as PNG and SVG (XChart), into {@code RUN_DIR/charts}:
 *
 * <ul>
 *   <li>{@code val_success_rate}: {@code val/success_rate[k]} (success within the first k+1 episodes of a
 *       meta-episode) for every episode index k over iterations (the
 *       training population under evaluation sampling);
 *   <li>{@code val_success_rate_OPPONENT}: the same per opponent of the training population ({@code
 *       val/OPPONENT/success_rate[k]}), and {@code val_success_rate_heldout_OPPONENT} per held-out validation set
 *       ({@code val/heldout/OPPONENT/success_rate[k]}, the opponent's evaluation seat);
 *   <li>{@code train_success_rate}: {@code success_rate[k]} of the training rollouts;
 *   <li>{@code pg_loss}, {@code kl} ({@code actor/ppo_kl}, {@code actor/kl_loss}), {@code entropy} and {@code
 *       clipfrac} ({@code actor/pg_clipfrac_low/high/dual}).
 * </ul>
 *
 * A chart without any data point is not written. The same code serves the live {@link ChartListener} and {@code mage
 * report}.
 */
public final class TrainingCharts {

  /** The charts subdirectory of a run directory. */
  public static final String DIRECTORY = "charts";

  private static final int WIDTH = 800;
  private static final int HEIGHT = 480;

  private TrainingCharts() {}

  /**
   * Redraws the charts of a run directory from its {@code metrics.jsonl}.
   *
   * @param runDirectory the run directory
   * @return the files written
   * @throws TrainingException when the metrics file cannot be read
   * @throws UncheckedIOException naming the file when a chart cannot be written
   */
  public static List<Path> writeForRun(Path runDirectory) {
    MetricsHistory h = MetricsHistory.read(runDirectory.resolve(MetricsFileListener.FILE_NAME));
    return write(h, runDirectory.resolve(DIRECTORY));
  }

  /**
   * A bar chart comparing runs (methods, settings) on a few metrics, with the spread over seeds as error bars: one
   * group of bars per category, one bar per series. Written as {@code NAME.png} and {@code NAME.svg}.
   *
   * @param outDir where the files go (created)
   * @param name the file name without extension
   * @param title the chart title
   * @param yAxis the y-axis label
   * @param categories the x-axis categories (for example the methods)
   * @param means per series (for example {@code pool success_rate[2]}), one mean per category
   * @param spreads per series, one error-bar half-width per category (for example the sample standard deviation;
   *     0 where there is one seed); a series whose spreads are all 0 is drawn without error bars
   * @return the files written
   * @throws IllegalArgumentException when a series' arrays do not match the categories
   * @throws UncheckedIOException naming the file when the chart cannot be written
   */
  public static List<Path> writeComparison(Path outDir, String name, String title, String yAxis,
      List<String> categories, Map<String, double[]> means, Map<String, double[]> spreads) {
    CategoryChart chart = new CategoryChartBuilder().width(900).height(480).title(title).xAxisTitle("")
        .yAxisTitle(yAxis).build();
    chart.getStyler().setYAxisMin(0.0);
    if (categories.size() > 6) {
      chart.getStyler().setXAxisLabelRotation(45); // many categories: keep their labels apart
    }
    for (Map.Entry<String, double[]> e : means.entrySet()) {
      double[] spread = spreads.get(e.getKey());
      if (e.getValue().length != categories.size() || spread == null || spread.length != categories.size()) {
        throw new IllegalArgumentException("series '" + e.getKey() + "' needs " + categories.size()
            + " means and spreads, one per category");
      }
      List<Double> m = new ArrayList<>();
      List<Double> err = new ArrayList<>();
      for (int i = 0; i < categories.size(); i++) {
        m.add(e.getValue()[i]);
        err.add(spread[i]);
      }
      if (err.stream().allMatch(x -> x == 0)) {
        chart.addSeries(e.getKey(), categories, m); // no spread: no error bars
      } else {
        chart.addSeries(e.getKey(), categories, m, err);
      }
    }
    try {
      Files.createDirectories(outDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + outDir + ": " + e.getMessage(), e);
    }
    Path png = outDir.resolve(name + ".png");
    Path svg = outDir.resolve(name + ".svg");
    try {
      BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
      VectorGraphicsEncoder.saveVectorGraphic(chart, svg.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot write chart " + png + " / " + svg + ": " + ex.getMessage(), ex);
    }
    return List.of(png, svg);
  }

  /**
   * Draws the charts of a history.
   *
   * @param history the metrics
   * @param outDir where the {@code .png} and {@code .svg} files go (created)
   * @return the files written
   * @throws UncheckedIOException naming the file when a chart cannot be written
   */
  public static List<Path> write(MetricsHistory history, Path outDir) {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
    Map<String, XYChart> charts = new LinkedHashMap<>();
    rateChart(history, "val/success_rate", "Validation success rate (training population)")
        .ifPresent(c -> charts.put("val_success_rate", c));
    for (String o : history.validatedOpponents()) {
      String against = o.startsWith(Validation.HELD_OUT + "/")
          ? o.substring(Validation.HELD_OUT.length() + 1) + " (held-out set, evaluation seat)"
          : o + " (training population)";
      rateChart(history, "val/" + o + "/success_rate", "Validation success rate against " + against)
          .ifPresent(c -> charts.put("val_success_rate_" + fileSafe(o), c));
    }
    rateChart(history, "success_rate", "Training success rate").ifPresent(c -> charts.put("train_success_rate", c));
    lineChart(history, "Policy-gradient loss", "loss", List.of("actor/pg_loss"))
        .ifPresent(c -> charts.put("pg_loss", c));
    lineChart(history, "KL divergence", "KL", List.of("actor/ppo_kl", "actor/kl_loss"))
        .ifPresent(c -> charts.put("kl", c));
    lineChart(history, "Entropy", "nats per token", List.of("actor/entropy")).ifPresent(c -> charts.put("entropy", c));
    lineChart(history, "Clip fraction", "share of tokens",
        List.of("actor/pg_clipfrac_low", "actor/pg_clipfrac_high", "actor/pg_clipfrac_dual"))
        .ifPresent(c -> charts.put("clipfrac", c));
    List<Path> written = new ArrayList<>();
    try {
      Files.createDirectories(outDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + outDir + ": " + e.getMessage(), e);
    }
    for (Map.Entry<String, XYChart> e : charts.entrySet()) {
      Path png = outDir.resolve(e.getKey() + ".png");
      Path svg = outDir.resolve(e.getKey() + ".svg");
      try {
        BitmapEncoder.saveBitmap(e.getValue(), png.toString(), BitmapEncoder.BitmapFormat.PNG);
        written.add(png);
        VectorGraphicsEncoder.saveVectorGraphic(e.getValue(), svg.toString(),
            VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        written.add(svg);
      } catch (IOException ex) {
        throw new UncheckedIOException("cannot write chart " + png + " / " + svg + ": " + ex.getMessage(), ex);
      }
    }
    return written;
  }

  private static java.util.Optional<XYChart> rateChart(MetricsHistory h, String prefix, String title) {
    List<String> keys = h.indexedKeys(prefix);
    java.util.Optional<XYChart> c = lineChart(h, title, "success rate", keys);
    c.ifPresent(chart -> {
      chart.getStyler().setYAxisMin(0.0);
      chart.getStyler().setYAxisMax(1.0);
    });
    return c;
  }

  /** The narrowest range of values a line chart's y axis spans (see {@link #lineChart}). */
  static final double MIN_Y_RANGE = 1e-3;

  private static java.util.Optional<XYChart> lineChart(MetricsHistory h, String title, String yTitle,
      List<String> keys) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("iteration")
        .yAxisTitle(yTitle).build();
    chart.getStyler().setDecimalPattern("#0.###");
    boolean any = false;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (String k : keys) {
      double[][] s = h.series(k);
      if (s[0].length == 0) {
        continue;
      }
      String label = MetricsHistory.indexOf(k) >= 0 ? k.substring(k.lastIndexOf('/') + 1) : k;
      XYSeries series = chart.addSeries(label, s[0], s[1]);
      series.setMarker(SeriesMarkers.CIRCLE);
      any = true;
      for (double v : s[1]) {
        if (Double.isFinite(v)) {
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
      }
    }
    if (any && max >= min && max - min < MIN_Y_RANGE) {
      // XChart's tick calculation does not end in reasonable time on an axis range of a few 1e-9 (one iteration of
      // a KL near 0, say): give such a chart an axis of its own around the values
      double mid = (max + min) / 2;
      double half = Math.max(MIN_Y_RANGE, Math.abs(mid) * 0.1);
      chart.getStyler().setYAxisMin(mid - half);
      chart.getStyler().setYAxisMax(mid + half);
    }
    return any ? java.util.Optional.of(chart) : java.util.Optional.empty();
  }

  private static String fileSafe(String s) {
    return s.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
