package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.MetricsFileListener;
import org.magejvm.impl.train.listen.ProgressBarListener;
import org.magejvm.impl.train.listen.TrainingCharts;
import org.magejvm.impl.train.listen.MetricsHistory;
import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metrics file (with resume truncation), charts and summary drawn from it, the progress bar. */
class ListenersTest {

  /** Metrics shaped like a trainer's: training rates, loss diagnostics, timings, validation every 2 iterations. */
  static Map<String, Object> metrics(int it) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("iteration", it);
    for (int k = 0; k < 3; k++) {
      m.put("success_rate[" + k + "]", Math.min(1.0, 0.1 * it + 0.05 * k));
    }
    m.put("actor/pg_loss", 0.5 / (it + 1));
    m.put("actor/ppo_kl", 0.001 * it);
    m.put("actor/kl_loss", 0.002 * it);
    m.put("actor/entropy", 2.0 - 0.1 * it);
    m.put("actor/pg_clipfrac_low", 0.01 * it);
    m.put("actor/pg_clipfrac_high", 0.02 * it);
    m.put("grad_norm", 1.5);
    if ((it + 1) % 2 == 0) {
      for (int k = 0; k < 3; k++) {
        m.put("val/success_rate[" + k + "]", Math.min(1.0, 0.08 * it + 0.1 * k));
        m.put("val/cfr/success_rate[" + k + "]", Math.min(1.0, 0.05 * it + 0.1 * k));
      }
    }
    m.put("timing/iteration_s", 1.25);
    return m;
  }

  @Test
  void theMetricsFileDropsLinesFromTheResumedIterationOnAndATornLine(@TempDir Path run) throws Exception {
    try (MetricsFileListener l = new MetricsFileListener(run)) {
      for (int i = 0; i < 5; i++) {
        l.onIterationStart(i, 5);
        l.onIterationEnd(i, metrics(i));
      }
    }
    Path file = run.resolve(MetricsFileListener.FILE_NAME);
    Files.writeString(file, "{\"iteration\":5,\"success_ra", java.nio.file.StandardOpenOption.APPEND);
    assertThat(Files.readAllLines(file)).hasSize(6);
    try (MetricsFileListener l = new MetricsFileListener(run)) {
      l.onIterationStart(3, 6);
      assertThat(Files.readAllLines(file)).hasSize(3);
      l.onIterationEnd(3, metrics(3));
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(MetricsFileListener.iterationOf(lines.get(i))).isEqualTo(i);
    }
    assertThat(lines.get(1)).startsWith("{\"iteration\":1,\"success_rate[0]\":0.1");
  }

  @Test
  void chartsAndTheSummaryAreDrawnFromTheMetricsFile(@TempDir Path run) throws Exception {
    try (MetricsFileListener l = new MetricsFileListener(run)) {
      for (int i = 0; i < 10; i++) {
        l.onIterationStart(i, 10);
        l.onIterationEnd(i, metrics(i));
      }
    }
    List<Path> files = TrainingCharts.writeForRun(run);
    Path charts = run.resolve(TrainingCharts.DIRECTORY);
    for (String name : List.of("val_success_rate", "val_success_rate_cfr", "train_success_rate", "pg_loss", "kl",
        "entropy", "clipfrac")) {
      assertThat(files).contains(charts.resolve(name + ".png"), charts.resolve(name + ".svg"));
      BufferedImage png = ImageIO.read(charts.resolve(name + ".png").toFile());
      assertThat(png.getWidth()).as(name).isEqualTo(800);
      assertThat(Files.readString(charts.resolve(name + ".svg"), StandardCharsets.UTF_8)).contains("<svg");
    }
    MetricsHistory h = MetricsHistory.read(run.resolve(MetricsFileListener.FILE_NAME));
    assertThat(h.rows()).hasSize(10);
    assertThat(h.validatedOpponents()).containsExactly("cfr");
    assertThat(h.series("val/success_rate[2]")[0]).containsExactly(1, 3, 5, 7, 9);
    String summary = h.summary();
    assertThat(summary).contains("10 iterations (0..9)").contains("val/cfr/success_rate[2]")
        .contains("actor/entropy").contains("timing/iteration_s");
  }

  @Test
  void theProgressBarShowsIterationsAndTheSuccessRateAndIsOffWithoutAConsole() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ProgressBarListener bar = new ProgressBarListener(out)) {
      for (int i = 0; i < 4; i++) {
        bar.onIterationStart(i, 4);
        Map<String, Object> m = metrics(i);
        if ((i + 1) % 2 == 0) {
          Map<String, Number> val = new LinkedHashMap<>();
          m.forEach((k, v) -> {
            if (k.startsWith("val/")) {
              val.put(k, (Number) v);
            }
          });
          bar.onValidation(i, val);
        }
        bar.onIterationEnd(i, m);
      }
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("train").contains("4/4").contains("success [2] 0.400").contains("val [2] 0.440");
    // surefire runs the tests without a console
    assertThat(new ProgressBarListener(false).enabled()).isEqualTo(System.console() != null);
    assertThat(new ProgressBarListener(true).enabled()).isTrue();
  }
}
