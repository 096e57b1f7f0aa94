package org.magejvm.impl.credit;

import org.magejvm.api.annotation.Api;

/**
 * Which episode score {@code s} a play turn gets: the quantity GiGPO's episode-level advantage compares within a group
 * ({@code A^E = s - mean over the group's turns}). The step return {@code G}, which the step-level advantage compares,
 * is the same in every mode.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum EpisodeScore {

  /**
   * The reference's: the turn's own attempt, {@code r'_n} for differential returns (MAGE) and {@code R_n} otherwise.
   * Under differential returns this judges a first-attempt move by that attempt's chips alone: on Kuhn Poker it
   * favours the move that loses least now over the one the training objective values (docs/results.md).
   */
  ATTEMPT,

  /**
   * The whole meta-episode's outcome, the same for every turn of a meta-episode (reflections included), as upstream
   * GiGPO scores every turn of a trajectory with its total return: {@code sum_n r'_n} (the last played attempt's
   * reward, MAGE's objective) for differential returns, {@code sum_n R_n} for cumulative ones, and {@code R_n} (the
   * turn's own episode) for single-episode returns, whose meta-episodes hold one episode. A reflection is judged by
   * the outcome of the attempts it prepared, as a play turn is, instead of by a constant 0 that the group mean turns
   * into a penalty on writing any reflection at all.
   */
  META_EPISODE
}
