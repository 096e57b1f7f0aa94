package org.magejvm.impl.train.listen;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * Redraws the run's charts ({@link TrainingCharts}) from {@code metrics.jsonl} after every iteration that validated
 * and after the last iteration of a {@code fit}. Add it after the {@link MetricsFileListener} of the same run
 * directory, so the file already holds the iteration. A chart that cannot be drawn is logged, never fatal.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class ChartListener implements TrainingListener {
  private static final Logger LOG = LoggerFactory.getLogger(ChartListener.class);

  private final Path runDirectory;
  private int total = -1;

  /**
   * @param runDirectory the run directory (reads {@code metrics.jsonl}, writes {@code charts/})
   */
  public ChartListener(Path runDirectory) {
    this.runDirectory = Objects.requireNonNull(runDirectory, "runDirectory");
  }

  @Override
  public void onIterationStart(int iteration, int total) {
    this.total = total;
  }

  @Override
  public void onIterationEnd(int iteration, Map<String, Object> metrics) {
    boolean validated = metrics.keySet().stream().anyMatch(k -> k.startsWith("val/"));
    if (validated || iteration + 1 == total) {
      redraw();
    }
  }

  /** Redraws the charts now (logging a failure). */
  public void redraw() {
    try {
      TrainingCharts.writeForRun(runDirectory);
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("could not draw the charts of {}: {}", runDirectory, e.toString());
    }
  }
}
