package org.magejvm.impl.env;

import org.magejvm.api.Outcome;
import org.magejvm.api.annotation.Api;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.small.HiddenNumberPromptRenderer;

/**
 * What the keeper games' prompts share (Goalkeeper, Penalty Shoot-out): the answer format (a spot inside {@code
 * <action> </action>}), what an attempt without a valid dive is called, and an earlier attempt's line, which names
 * the dive and the shot ({@code dove 3, shot 5}) when the context shows the history and only the outcome ({@code not
 * saved}, {@code saved}) when it shows reflections alone.
 */
@Api(status = Api.Status.INTERNAL)
public abstract class KeeperPromptRenderer extends HiddenNumberPromptRenderer {

  /** The number of spots. */
  protected final int spots;

  /**
   * @param spots the number of spots
   */
  protected KeeperPromptRenderer(int spots) {
    this.spots = spots;
  }

  @Override
  protected String actionFormat() {
    return "Write the spot you dive to, a number from 1 to " + spots + ", inside <action> </action>, for example"
        + " <action>" + (spots + 1) / 2 + "</action>.";
  }

  @Override
  protected String noAnswer() {
    return "no dive";
  }

  /**
   * What an earlier attempt showed: {@code dove 3, shot 5} when the context shows its history, else only its outcome
   * ({@code not saved}, or {@code saved}), which is what a reflection-only prompt may tell.
   */
  @Override
  protected String earlierAttempt(PastEpisode p) {
    if (p.steps().isEmpty()) {
      return p.outcome() == Outcome.WON ? "saved" : "not saved";
    }
    return super.earlierAttempt(p);
  }
}
