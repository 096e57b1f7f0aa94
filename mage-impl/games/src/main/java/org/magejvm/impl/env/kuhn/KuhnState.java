package org.magejvm.impl.env.kuhn;

import java.util.Objects;
import java.util.Optional;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.Seat;

/**
 * An immutable snapshot of a Kuhn Poker hand from the agent's side, for scripted policies. It holds only what the
 * agent may know: the opponent's card appears only after a showdown.
 *
 * @param agentCard the agent's card
 * @param agentPlayer the agent's player index: 0 (acts first) or 1
 * @param history the betting so far in {@code p}/{@code b} symbols, for example {@code pb}
 * @param done whether the hand is over
 * @param revealedOpponentCard the opponent's card if it was shown at a showdown, otherwise null
 * @param agentChips the chips the agent won (negative: lost) when the hand is over, 0 while playing
 */
@Api(status = Api.Status.INTERNAL)
public record KuhnState(
    KuhnCard agentCard, int agentPlayer, String history, boolean done, KuhnCard revealedOpponentCard,
    int agentChips) {

  /**
   * Validates.
   *
   * @param agentCard agent card
   * @param agentPlayer agent player index
   * @param history history
   * @param done done
   * @param revealedOpponentCard opponent card or null
   * @param agentChips chips won
   */
  public KuhnState {
    Objects.requireNonNull(agentCard, "agentCard");
    Objects.requireNonNull(history, "history");
    if (agentPlayer != 0 && agentPlayer != 1) {
      throw new IllegalArgumentException("agentPlayer must be 0 or 1, got " + agentPlayer);
    }
    if (done != KuhnRules.isTerminal(history)) {
      throw new IllegalArgumentException("history '" + history + "' does not match done=" + done);
    }
    if (revealedOpponentCard != null && !(done && KuhnRules.isShowdown(history))) {
      throw new IllegalArgumentException("the opponent's card is shown only at a showdown, history '" + history
          + "'");
    }
  }

  /** @return the agent's seat */
  public Seat seat() {
    return agentPlayer == 0 ? Seat.FIRST : Seat.SECOND;
  }

  /** @return the opponent's card, present only after a showdown */
  public Optional<KuhnCard> opponentCard() {
    return Optional.ofNullable(revealedOpponentCard);
  }

  /** @return whether the agent must act (the hand is not over); true for every state a play request carries */
  public boolean agentToAct() {
    return !done;
  }

  /** @return whether a bet is open, so that PASS folds and BET calls */
  public boolean facingBet() {
    return KuhnRules.facingBet(history);
  }

  /**
   * The Kuhn Poker state of a scripted policy's request.
   *
   * @param request the request
   * @param policy the asking policy's name, for the message
   * @return the request's state
   * @throws IllegalArgumentException naming the policy, the worker and what the request held instead
   */
  static KuhnState of(PolicyRequest request, String policy) {
    Object s = request.state();
    if (!(s instanceof KuhnState)) {
      throw new IllegalArgumentException("the Kuhn Poker policy '" + policy + "' needs a "
          + KuhnState.class.getSimpleName() + " in the request for worker '" + request.workerKey() + "', got "
          + (s == null ? "null" : s.getClass().getName()));
    }
    return (KuhnState) s;
  }
}
