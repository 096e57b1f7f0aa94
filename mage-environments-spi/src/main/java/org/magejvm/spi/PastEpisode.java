package org.magejvm.spi;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Outcome;

/**
 * An earlier episode of the meta-episode, as the cross-episode block of a play prompt shows it.
 *
 * @param index the 0-based episode index (shown as trial {@code index + 1})
 * @param steps the steps to show (empty when the context mode hides histories)
 * @param outcome how the episode ended
 * @param reflection the reflection written after it, or the empty string when none is shown
 */
@Api(status = Api.Status.STABLE)
public record PastEpisode(int index, List<HistoryStep> steps, Outcome outcome, String reflection) {

  /**
   * Validates and copies.
   *
   * @param index episode index
   * @param steps steps to show
   * @param outcome outcome
   * @param reflection reflection text
   */
  public PastEpisode {
    if (index < 0) {
      throw new IllegalArgumentException("episode index must be >= 0, got " + index);
    }
    Objects.requireNonNull(outcome, "outcome");
    steps = ImmutableList.copyOf(steps);
    reflection = reflection == null ? "" : reflection;
  }
}
