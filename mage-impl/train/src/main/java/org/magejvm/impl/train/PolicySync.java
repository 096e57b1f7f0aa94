package org.magejvm.impl.train;

import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.api.annotation.Api;

/**
 * Brings a rollout policy that is not the trained one (an inference server, {@link
 * TrainerBuilder#optRolloutPolicy}) up to the trainer's weights. {@link MageTrainer} calls it before the first
 * rollout of a trainer object (so a fresh or resumed run starts the servers on its current weights) and after each
 * iteration's optimizer update, once the iteration is recorded (metrics, listeners and any checkpoint), so the next
 * rollout uses the current policy. A push that throws fails that call of {@link MageTrainer#step} with a {@link
 * TrainingException} but leaves the iteration recorded; the next step pushes again before it rolls out.
 * {@link LoraAdapterSync} is the ready-made sync of LoRA runs.
 */
@Api(status = Api.Status.EXPERIMENTAL)
@FunctionalInterface
public interface PolicySync {

  /**
   * Pushes the trainer's current weights.
   *
   * @param trainer the trainer (its {@link MageTrainer#policy()} and {@link MageTrainer#fineTuning()} hold the
   *     weights)
   * @param version the number of iterations the weights have been trained for ({@link MageTrainer#iteration()})
   * @throws RuntimeException when the push fails
   */
  void push(MageTrainer trainer, int version);
}
