package org.magejvm.api;

import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * Turns scored turns into advantages by comparing each turn with its groups (no critic).
 *
 * <p>GiGPO compares a turn's episode score with the other turns of its episode group, and its step return with the
 * other turns that saw the same anchor state; GRPO uses the episode term only.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public interface AdvantageNormalizer {

  /**
   * Computes advantages.
   *
   * @param turns the turns of one training batch, in any order
   * @return advantages indexed like {@code turns}
   */
  Advantages compute(List<ScoredTurn> turns);
}
