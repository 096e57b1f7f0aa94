package org.magejvm.examples.host;

import java.nio.file.Path;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The shortest host program: the {@code mage} preset trained on the host's own game ({@link HiddenDoorProvider},
 * found as a plugin) into a run directory that holds what {@code mage train --out} writes ({@code config.json},
 * {@code metrics.jsonl}, {@code charts/}, {@code checkpoints/}). The model is a tiny random one, so nothing is
 * learnt here; {@link HostExample} adds the warm start and the evaluation that make it learn.
 */
public final class MinimalHost {

  private MinimalHost() {}

  /**
   * Trains into {@code work/run}.
   *
   * @param work the work directory (a tiny model goes to {@code work/model})
   * @param iterations training iterations
   * @return the run directory
   */
  public static Path train(Path work, int iterations) {
    EnvironmentRegistry envs = EnvironmentRegistry.discover();
    TrainingConfig config = TrainingPreset.MAGE.config(envs.require(HiddenDoorProvider.ID)).toBuilder()
        .set("iterations", iterations).set("rollout.tasks", 2).set("rollout.group_size", 2).build();
    TinyCheckpoint.write(work.resolve("model"), TinyCheckpoint.Spec.small("door 1 2 3 4 5 6 7 8 open shut", 1));
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(work.resolve("model"), Qwen3Checkpoint.Options.cpu());
        MageTrainer trainer = MageTrainer.builder(config, policy, envs).optRunDirectory(work.resolve("run")).build()) {
      trainer.fit();
    }
    return work.resolve("run");
  }
}
