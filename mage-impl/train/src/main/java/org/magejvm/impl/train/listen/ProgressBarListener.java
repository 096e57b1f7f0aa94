package org.magejvm.impl.train.listen;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.magejvm.api.annotation.Api;

/**
 * A console progress bar (the {@code me.tongfei:progressbar} library): iterations done out of the {@code fit}
 * target, elapsed time, ETA, and the latest success rate (validation if any, else training) of the last episode.
 * It is off when the JVM has no console ({@code System.console() == null}: output redirected or piped) unless forced.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class ProgressBarListener implements TrainingListener, AutoCloseable {

  private final boolean enabled;
  private final PrintStream stream;
  private ProgressBar bar;
  private String latestValidation = "";

  /**
   * A bar on standard error when the JVM has a console.
   *
   * @param force draw even without a console
   */
  public ProgressBarListener(boolean force) {
    this(force || System.console() != null, null);
  }

  /**
   * A bar drawn to a given stream (tests, or a host's own console), always on.
   *
   * @param stream where the bar is drawn
   */
  public ProgressBarListener(PrintStream stream) {
    this(true, java.util.Objects.requireNonNull(stream, "stream"));
  }

  private ProgressBarListener(boolean enabled, PrintStream stream) {
    this.enabled = enabled;
    this.stream = stream;
  }

  /** @return whether the bar is drawn */
  public boolean enabled() {
    return enabled;
  }

  @Override
  public void onIterationStart(int iteration, int total) {
    if (!enabled || bar != null) {
      return;
    }
    ProgressBarBuilder b = new ProgressBarBuilder()
        .setTaskName("train")
        .setInitialMax(total > 0 ? total : -1)
        .setStyle(ProgressBarStyle.ASCII)
        .setUpdateIntervalMillis(1000)
        .continuousUpdate()
        .setUnit(" it", 1)
        .startsFrom(iteration, Duration.ZERO);
    if (stream != null) {
      b.setConsumer(new ConsoleProgressBarConsumer(stream, 100));
    }
    bar = b.build();
  }

  @Override
  public void onValidation(int iteration, Map<String, Number> metrics) {
    String v = MetricsHistory.lastIndexed(metrics, "val/success_rate");
    if (!v.isEmpty()) {
      latestValidation = v;
    }
  }

  @Override
  public void onIterationEnd(int iteration, Map<String, Object> metrics) {
    if (bar == null) {
      return;
    }
    String train = MetricsHistory.lastIndexed(metrics, "success_rate");
    bar.stepTo(iteration + 1L);
    bar.setExtraMessage(String.format(Locale.ROOT, "success %s%s", train.isEmpty() ? "-" : train,
        latestValidation.isEmpty() ? "" : " val " + latestValidation));
    bar.refresh();
  }

  /** Finishes the bar at the end of a {@code fit}; the next {@code fit} draws a new one. */
  @Override
  public void onFitEnd(int iterations) {
    close();
  }

  /** Finishes the bar (prints its final state). Idempotent. */
  @Override
  public void close() {
    if (bar != null) {
      bar.close();
      bar = null;
    }
  }
}
