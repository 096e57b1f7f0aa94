package org.magejvm.impl.train.listen;

import java.nio.file.Path;
import java.util.Map;
import org.magejvm.api.annotation.Api;

/**
 * Hooks into {@link org.magejvm.impl.train.MageTrainer}'s loop, in the spirit of DJL's {@code TrainingListener}.
 * Every method has an empty default, so a listener overrides only what it needs. Listeners run on the training thread,
 * in the order they were added; an exception thrown by a listener stops the run.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public interface TrainingListener {

  /**
   * Before an iteration's rollouts.
   *
   * @param iteration the iteration about to run (0-based)
   * @param total the iteration the current {@code fit} call stops at, or -1 for a single {@code step}
   */
  default void onIterationStart(int iteration, int total) {}

  /**
   * After an iteration, with everything it measured (training metrics, loss diagnostics, timings and, when it
   * validated, the {@code val/} metrics).
   *
   * @param iteration the iteration that finished (0-based)
   * @param metrics the metrics, insertion-ordered, as written to {@code metrics.jsonl}
   */
  default void onIterationEnd(int iteration, Map<String, Object> metrics) {}

  /**
   * After a validation.
   *
   * @param iteration the iteration it followed (-1 before training)
   * @param metrics the {@code val/} metrics
   */
  default void onValidation(int iteration, Map<String, Number> metrics) {}

  /**
   * After a checkpoint was written.
   *
   * @param iteration the number of iterations it holds
   * @param directory the checkpoint directory
   */
  default void onCheckpoint(int iteration, Path directory) {}

  /**
   * When an optimizer step was skipped because the loss or a gradient was not finite.
   *
   * @param iteration the iteration
   * @param skippedSteps how many of its steps were skipped
   */
  default void onSkippedSteps(int iteration, int skippedSteps) {}

  /**
   * At the end of a {@code fit} call that ran at least one iteration, after its last checkpoint.
   *
   * @param iterations the number of iterations done
   */
  default void onFitEnd(int iterations) {}
}
