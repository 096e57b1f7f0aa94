package org.magejvm.spi;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * One agent step as shown in a prompt's history.
 *
 * @param number the 1-based step number inside its episode
 * @param action the action as the environment rendered it
 * @param valid whether the action was valid (an invalid one is shown as such)
 * @param observation the state after the step, or null when the prompt does not show it
 */
@Api(status = Api.Status.STABLE)
public record HistoryStep(int number, String action, boolean valid, String observation) {

  /**
   * Validates.
   *
   * @param number step number
   * @param action action text
   * @param valid validity
   * @param observation observation or null
   */
  public HistoryStep {
    Objects.requireNonNull(action, "action");
    if (number < 1) {
      throw new IllegalArgumentException("step numbers start at 1, got " + number);
    }
  }

  /** @return a copy without the observation */
  public HistoryStep withoutObservation() {
    return observation == null ? this : new HistoryStep(number, action, valid, null);
  }
}
