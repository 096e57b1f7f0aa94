package org.magejvm.spi;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Outcome;

/**
 * Everything a {@link PromptRenderer} needs for one prompt. The rollout engine has already applied the context
 * mode and the history window: the renderer shows exactly what it is given.
 *
 * @param style verbose or compact
 * @param initialObservation the state at the start of the episode (after the opponent's opening, if any)
 * @param episodeIndex the 0-based index of the episode being played (for a reflect prompt, the episode just played)
 * @param pastEpisodes the earlier episodes to show in a play prompt, oldest first (empty in a reflect prompt)
 * @param steps the current episode's steps to show (for a reflect prompt, all steps of the finished episode)
 * @param outcome for a reflect prompt, how the finished episode ended; null for play prompts
 */
@Api(status = Api.Status.STABLE)
public record PromptContext(
    PromptStyle style,
    String initialObservation,
    int episodeIndex,
    List<PastEpisode> pastEpisodes,
    List<HistoryStep> steps,
    Outcome outcome) {

  /**
   * Validates and copies.
   *
   * @param style style
   * @param initialObservation initial observation
   * @param episodeIndex episode index
   * @param pastEpisodes earlier episodes
   * @param steps current steps
   * @param outcome outcome of the finished episode, for reflect prompts
   */
  public PromptContext {
    Objects.requireNonNull(style, "style");
    Objects.requireNonNull(initialObservation, "initialObservation");
    if (episodeIndex < 0) {
      throw new IllegalArgumentException("episodeIndex must be >= 0, got " + episodeIndex);
    }
    pastEpisodes = ImmutableList.copyOf(pastEpisodes);
    steps = ImmutableList.copyOf(steps);
  }
}
