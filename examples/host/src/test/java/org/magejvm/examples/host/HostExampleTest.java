package org.magejvm.examples.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/** The example host's whole path with a tiny budget, and what it leaves behind. */
class HostExampleTest {

  @Test
  void trainsSavesReloadsAndEvaluatesItsOwnGame(@TempDir Path work) {
    long t0 = System.nanoTime();
    HostExample.Result r = HostExample.run(work, new HostExample.Budget(40, 2, 2, 8));
    System.out.printf("host example, tiny budget: %.1f s%n", (System.nanoTime() - t0) / 1e9);

    assertThat(r.warmStart().steps()).hasSize(40);   // exactly the steps asked for
    assertThat(r.warmStart().lastLoss()).isLessThan(r.warmStart().firstLoss());
    assertThat(r.runDir().resolve("config.json")).isRegularFile();
    assertThat(r.runDir().resolve("metrics.jsonl")).isRegularFile();
    assertThat(r.runDir().resolve("checkpoints/iter-00000002/manifest.json")).isRegularFile();
    assertThat(r.trained().resolve("model.safetensors")).isRegularFile();
    for (EvaluationMetrics m : List.of(r.withHistory(), r.withoutHistory())) {
      assertThat(m.metaEpisodes()).isEqualTo(8);
      assertThat(m.overall().successRate()).hasSize(3).allSatisfy(v -> assertThat(v).isBetween(0.0, 1.0));
      assertThat(m.invalidActionRate()).isBetween(0.0, 1.0);
    }

    // the saved model reloads; a trainer of it refuses to save over it (its base) or over another model, in one line
    EnvironmentRegistry envs = EnvironmentRegistry.discover();
    TrainingConfig config = TrainingPreset.GIGPO.config(envs.require(HiddenDoorProvider.ID)).toBuilder()
        .set("validation.every", 0).set("loss.kl_coefficient", 0.0).build();
    Path tiny = work.resolve("tiny-model");
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(r.trained(), Qwen3Checkpoint.Options.cpu());
        MageTrainer trainer = MageTrainer.create(config, policy, envs)) {
      assertThat(trainer.baseModel()).contains(r.trained().toAbsolutePath());
      assertThatThrownBy(() -> trainer.save(r.trained())).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(r.trained().toString()).hasMessageContaining("loaded from").hasNoCause();
      assertThatThrownBy(() -> trainer.save(tiny)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(tiny.toString()).hasMessageContaining("already holds a model").hasNoCause();
    }
  }
}
