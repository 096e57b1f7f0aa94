package org.magejvm.impl.train.listen;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the run through SLF4J (logger {@code org.magejvm.impl.train.listen.LoggingListener}): one INFO line per iteration
 * with success rates, loss diagnostics and timings, one per validation and checkpoint, a WARN line per skipped
 * optimizer step.
 */
public final class LoggingListener implements TrainingListener {
  private static final Logger LOG = LoggerFactory.getLogger(LoggingListener.class);

  private int total = -1;

  /** A listener logging at INFO. */
  public LoggingListener() {}

  @Override
  public void onIterationStart(int iteration, int total) {
    this.total = total;
  }

  @Override
  public void onIterationEnd(int iteration, Map<String, Object> metrics) {
    if (!LOG.isInfoEnabled()) {
      return;
    }
    StringBuilder sb = new StringBuilder();
    sb.append("iteration ").append(iteration + 1);
    if (total > 0) {
      sb.append('/').append(total);
    }
    sb.append(": success_rate ").append(MetricsHistory.indexed(metrics, "success_rate"));
    append(sb, metrics, "actor/pg_loss", "pg_loss");
    append(sb, metrics, "actor/kl_loss", "kl_loss");
    append(sb, metrics, "actor/ppo_kl", "ppo_kl");
    append(sb, metrics, "actor/entropy", "entropy");
    append(sb, metrics, "grad_norm", "grad_norm");
    sb.append(String.format(Locale.ROOT, ", turns %s (%s trained), %.1f s (rollout %.1f, update %.1f)",
        metrics.get("turns"), metrics.get("trained_turns"), number(metrics, "timing/iteration_s"),
        number(metrics, "timing/rollout_s"), number(metrics, "timing/update_s")));
    LOG.info(sb.toString());
  }

  private static void append(StringBuilder sb, Map<String, Object> m, String key, String label) {
    Object v = m.get(key);
    if (v instanceof Number) {
      sb.append(String.format(Locale.ROOT, ", %s %.4g", label, ((Number) v).doubleValue()));
    }
  }

  private static double number(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
  }

  @Override
  public void onValidation(int iteration, Map<String, Number> metrics) {
    if (LOG.isInfoEnabled()) {
      LOG.info("validation after iteration {}: val/success_rate {}", iteration + 1,
          MetricsHistory.indexed(metrics, "val/success_rate"));
    }
  }

  @Override
  public void onCheckpoint(int iteration, Path directory) {
    LOG.info("checkpoint of iteration {} written to {}", iteration, directory);
  }

  @Override
  public void onSkippedSteps(int iteration, int skippedSteps) {
    LOG.warn("iteration {}: {} optimizer step(s) skipped (non-finite loss or gradient)", iteration + 1,
        skippedSteps);
  }
}
