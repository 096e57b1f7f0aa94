package org.magejvm.api;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * One prompt for a {@link LanguagePolicy}, with the structured context a scripted policy may use.
 *
 * <p>A neural policy reads only {@link #prompt()}. Scripted policies (used to exercise the pipeline without a
 * model) may also read the legal actions, the environment's state object and the episodes already played.
 *
 * @param prompt the prompt text (a single user message)
 * @param phase whether an action or a reflection is asked for
 * @param workerKey a stable key of the meta-episode this request belongs to (group id and index)
 * @param episodeIndex the 0-based episode the request belongs to
 * @param turnIndex the 0-based turn inside the episode
 * @param legalActions the canonical texts of the actions legal now; empty for reflections
 * @param state the environment's state object ({@code Environment.state()}), or null when not available
 * @param pastEpisodes the episodes of this meta-episode already finished
 */
@Api(status = Api.Status.STABLE)
public record PolicyRequest(
    String prompt,
    Phase phase,
    String workerKey,
    int episodeIndex,
    int turnIndex,
    List<String> legalActions,
    Object state,
    List<Episode> pastEpisodes) {

  /**
   * Validates and copies.
   *
   * @param prompt prompt
   * @param phase phase
   * @param workerKey worker key
   * @param episodeIndex episode index
   * @param turnIndex turn index
   * @param legalActions legal actions
   * @param state state object
   * @param pastEpisodes finished episodes
   */
  public PolicyRequest {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(workerKey, "workerKey");
    legalActions = legalActions == null ? ImmutableList.of() : ImmutableList.copyOf(legalActions);
    pastEpisodes = pastEpisodes == null ? ImmutableList.of() : ImmutableList.copyOf(pastEpisodes);
  }

  /**
   * A plain play request with no structured context.
   *
   * @param prompt the prompt text
   * @return the request
   */
  public static PolicyRequest of(String prompt) {
    return new PolicyRequest(prompt, Phase.PLAY, "", 0, 0, List.of(), null, List.of());
  }
}
