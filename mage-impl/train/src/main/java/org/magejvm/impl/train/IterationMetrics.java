package org.magejvm.impl.train;

import java.util.LinkedHashMap;
import java.util.Map;
import org.magejvm.api.Advantages;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.train.update.PolicyUpdater;

/** The metrics of one training iteration, in the order {@code metrics.jsonl} writes them. */
final class IterationMetrics {

  private IterationMetrics() {}

  /**
   * @param iteration the iteration's index
   * @param batch its rollout
   * @param turns the scored turns
   * @param update the update's report
   * @param advantages the batch's advantages
   * @param learningRate AdamW's learning rate after the update
   * @param lossScale AdamW's loss scale after the update (reduced precision), or NaN without loss scaling
   * @param settings the update settings
   * @param nanos the clock at the rollout's start, the rollout's end, the scoring's end and the update's end
   * @param peaks the rollout, scoring and update memory peaks in MiB, or null without a memory probe
   * @return the metrics, validation and the iteration's total time not yet added
   */
  static Map<String, Object> of(int iteration, RolloutResult batch, int turns, PolicyUpdater.Report update,
      Advantages advantages, double learningRate, double lossScale, PolicyUpdater.Settings settings, long[] nanos,
      double[] peaks) {
    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("iteration", iteration);
    EvaluationMetrics.of(batch.metaEpisodes(), batch.episodes()).toMap().forEach(metrics::put);
    metrics.put("failed_meta_episodes", batch.failures().size());
    metrics.put("turns", turns);
    metrics.put("trained_turns", update.trainedRows());
    metrics.put("skipped_zero_advantage_turns", update.skippedZeroAdvantage());
    metrics.put("mean_abs_advantage", meanAbs(advantages.values()));
    metrics.put("step_groups", advantages.stepGroupCount());
    metrics.put("mean_step_group_size", advantages.meanStepGroupSize());
    metrics.put("optimizer_steps", update.optimizerSteps());
    metrics.put("skipped_steps", update.skippedSteps());
    metrics.put("grad_norm", update.meanGradNorm());
    if (!Double.isNaN(update.updateKl())) {
      metrics.put("update_kl", update.updateKl());
    }
    if (!Double.isNaN(update.anchorChange())) {
      metrics.put("anchor_logprob_change", update.anchorChange());
    }
    if (settings.maxUpdateKl() > 0 || settings.maxAnchorDrop() > 0) {
      metrics.put("update_backtracks", update.backtracks());
      metrics.put("update_undone", update.undone() ? 1 : 0);
    }
    metrics.put("learning_rate", learningRate);
    if (!Double.isNaN(lossScale)) {
      metrics.put("loss_scale", lossScale);
    }
    update.diagnostics().forEach(metrics::put);
    metrics.put("timing/rollout_s", (nanos[1] - nanos[0]) / 1e9);
    metrics.put("timing/scoring_s", (nanos[2] - nanos[1]) / 1e9);
    metrics.put("timing/update_s", (nanos[3] - nanos[2]) / 1e9);
    update.timing().toMap().forEach(metrics::put);
    if (peaks != null) {
      metrics.put("memory/rollout_peak_mib", peaks[0]);
      metrics.put("memory/scoring_peak_mib", peaks[1]);
      metrics.put("memory/update_peak_mib", peaks[2]);
    }
    return metrics;
  }

  private static double meanAbs(double[] a) {
    double s = 0;
    for (double v : a) {
      s += Math.abs(v);
    }
    return a.length == 0 ? 0 : s / a.length;
  }
}
