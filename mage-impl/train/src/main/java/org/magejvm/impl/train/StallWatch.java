package org.magejvm.impl.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Notices when training cannot move and says what to do: every update undone by the update check, every answer
 * invalid, or every reflection invalid, for {@value #STREAK} iterations in a row. An invalid answer scores the same as
 * any other invalid answer, so a policy that never answers in the environment's format gives the update nothing to
 * prefer; an update the anchor check undoes changes nothing. Each warning is given when its streak reaches {@value
 * #STREAK} iterations and again every {@value #REPEAT} iterations while it lasts. {@link MageTrainer} logs them.
 */
final class StallWatch {

  /** Iterations in a row before the first warning. */
  static final int STREAK = 3;
  /** Iterations between repeated warnings of one streak. */
  static final int REPEAT = 10;

  private int undone;
  private int invalidAnswers;
  private int invalidReflections;

  /**
   * Takes one iteration's outcome.
   *
   * @param iteration the iteration (0-based, as the metrics number it)
   * @param updateUndone whether the update check undid the iteration's update
   * @param playTurns the iteration's play turns
   * @param invalidActionRate the share of them that were invalid
   * @param reflectionTurns the iteration's reflection turns
   * @param reflectionInvalidRate the share of them without a {@code <remark>}
   * @return the warnings for this iteration, each one line with what to do; usually none
   */
  List<String> observe(int iteration, boolean updateUndone, int playTurns, double invalidActionRate,
      int reflectionTurns, double reflectionInvalidRate) {
    List<String> out = new ArrayList<>(1);
    undone = updateUndone ? undone + 1 : 0;
    invalidAnswers = playTurns > 0 && invalidActionRate >= 1 ? invalidAnswers + 1 : 0;
    invalidReflections = reflectionTurns > 0 && reflectionInvalidRate >= 1 ? invalidReflections + 1 : 0;
    if (due(undone)) {
      out.add(String.format(Locale.ROOT, "iteration %d: the update check undid the update of the last %d iterations,"
          + " so training is not moving; lower adamw.learning_rate, or warm-start the model on answers in the"
          + " environment's format (mage sft, SupervisedTrainer) so that ordinary updates keep them (checks.* sets the"
          + " check itself)", iteration, undone));
    }
    if (due(invalidAnswers)) {
      out.add(String.format(Locale.ROOT, "iteration %d: every answer of the last %d iterations was invalid, so no"
          + " answer scores better than another and training cannot move; warm-start the model on transcripts in the"
          + " environment's answer format (mage transcripts, then mage sft or SupervisedTrainer), or check"
          + " sampling.max_new_tokens and the prompt style", iteration, invalidAnswers));
    }
    if (due(invalidReflections)) {
      out.add(String.format(Locale.ROOT, "iteration %d: every reflection of the last %d iterations was invalid (no"
          + " <remark>), so no reflection carries anything to the next attempt; warm-start the model on reflections in"
          + " the format the prompts ask for (a scripted player that writes them, such as the environment's"
          + " formatPolicy()), or train without them (rollout.context_mode history_only)", iteration,
          invalidReflections));
    }
    return out;
  }

  private static boolean due(int streak) {
    return streak == STREAK || (streak > STREAK && (streak - STREAK) % REPEAT == 0);
  }
}
