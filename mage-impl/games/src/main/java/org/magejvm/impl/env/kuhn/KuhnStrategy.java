package org.magejvm.impl.env.kuhn;

import org.magejvm.api.annotation.Api;

/**
 * A behaviour strategy for Kuhn Poker: the probability of BET at every information state. The player is implied by
 * the history ({@link KuhnRules#playerToAct(String)}), so one strategy may cover both seats.
 *
 * <p>Because an information state is all a player of Kuhn Poker can know, every stateless player (including any
 * {@link KuhnOpponent}) is fully described by such a function, and {@link KuhnAnalysis} can evaluate it exactly.
 */
@Api(status = Api.Status.INTERNAL)
@FunctionalInterface
public interface KuhnStrategy {

  /**
   * @param card the acting player's own card
   * @param history the betting so far, a decision point: {@code ""}, {@code "p"}, {@code "b"} or {@code "pb"}
   * @return the probability of BET (bet or call), in [0, 1]
   */
  double betProbability(KuhnCard card, String history);
}
