package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingCharts;
import org.magejvm.impl.train.listen.MetricsHistory;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Charts of metrics whose values hardly vary (one iteration of a KL of 1e-9, say) are drawn: XChart's own axis range
 * for such values took minutes to compute (the time-out only stops a hang).
 */
class DegenerateChartTest {

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aChartOfAlmostConstantTinyValuesIsDrawn(@TempDir Path dir) throws Exception {
    Path metrics = dir.resolve("metrics.jsonl");
    // the one iteration of a quick-start test run that took 8 minutes to chart: a KL of -3e-9 beside a KL loss of 0
    Files.writeString(metrics, "{\"iteration\": 0, \"success_rate[0]\": 0.625, \"actor/loss\": -2.9427847570302534e-4,"
        + " \"actor/pg_loss\": -1.7516467036033164e-7, \"actor/pg_clipfrac_low\": 0.0, \"actor/pg_clipfrac_high\": 0.0,"
        + " \"actor/pg_clipfrac_dual\": 0.0, \"actor/ppo_kl\": -3.0505565964445776e-9, \"actor/entropy\": 0.294103311032665,"
        + " \"actor/kl_loss\": 0.0}\n");
    List<Path> files = TrainingCharts.write(MetricsHistory.read(metrics), dir.resolve("charts"));
    assertThat(files).anyMatch(p -> p.getFileName().toString().equals("kl.png"));
    for (Path p : files) {
      assertThat(Files.size(p)).as(p.toString()).isPositive();
    }
  }
}
