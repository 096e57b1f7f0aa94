package org.magejvm.examples.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.spi.EnvironmentRegistry;

/** The shortest host writes the run directory the library's default listener set writes for {@code mage train}. */
class MinimalHostTest {

  @Test
  void trainsTheMagePresetIntoARunDirectoryLaidOutAsMageTrainWritesIt(@TempDir Path work) throws Exception {
    Path run = MinimalHost.train(work, 2);
    TrainingConfig config = TrainingConfig.read(run.resolve("config.json"), EnvironmentRegistry.discover());
    assertThat(config.preset()).isEqualTo("mage");
    assertThat(config.iterations()).isEqualTo(2);
    List<String> metrics = Files.readAllLines(run.resolve("metrics.jsonl"));
    assertThat(metrics).hasSize(2);
    assertThat(metrics.get(1)).startsWith("{\"iteration\":1,");
    assertThat(run.resolve("charts")).isDirectory();
    try (var charts = Files.list(run.resolve("charts"))) {
      assertThat(charts.map(p -> p.getFileName().toString())).anyMatch(n -> n.endsWith(".png"));
    }
    // the end of fit() checkpoints, and the checkpoint records the config (what `mage train --resume` reads)
    TrainingCheckpoint last = TrainingCheckpoint.open(TrainingCheckpoint.locate(run));
    assertThat(last.iteration()).isEqualTo(2);
    assertThat(TrainingConfig.ofCheckpoint(last)).contains(config);
  }
}
