package org.magejvm.impl.env.kuhn;

import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Opponent;

/**
 * A Kuhn Poker opponent. It is stateless and is described completely by its BET probability at each information
 * state ({@link KuhnStrategy}); {@link #act} turns that into a move, drawing from the environment's generator only
 * when the choice is mixed, so deterministic opponents never consume random numbers.
 */
@Api(status = Api.Status.INTERNAL)
public interface KuhnOpponent extends Opponent, KuhnStrategy {

  /**
   * Chooses a move.
   *
   * @param card the opponent's own card
   * @param player the opponent's player index, 0 or 1
   * @param history the betting so far, a decision point where this player acts
   * @param random the environment's seeded generator
   * @return PASS or BET
   * @throws IllegalArgumentException if the history is not a decision point for this player
   * @throws IllegalStateException if the opponent's BET probability there is outside [0, 1]
   */
  default KuhnAction act(KuhnCard card, int player, String history, Random random) {
    if (KuhnRules.playerToAct(history) != player) {
      throw new IllegalArgumentException("opponent '" + id() + "' was asked to act as player " + player
          + " at history '" + history + "', where player " + KuhnRules.playerToAct(history) + " acts");
    }
    double p = betProbability(card, history);
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalStateException("opponent '" + id() + "' gives BET probability " + p + " at '"
          + card.letter() + history + "'; it must lie in [0, 1]");
    }
    if (p >= 1) {
      return KuhnAction.BET;
    }
    if (p <= 0) {
      return KuhnAction.PASS;
    }
    return random.nextDouble() < p ? KuhnAction.BET : KuhnAction.PASS;
  }
}
