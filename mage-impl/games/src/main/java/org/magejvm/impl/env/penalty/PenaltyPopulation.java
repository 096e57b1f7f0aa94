package org.magejvm.impl.env.penalty;

import java.util.List;
import org.magejvm.api.OpponentPool;

/**
 * The strikers of a Penalty Shoot-out game: the training population, sampled by the engine one per group with equal
 * weights, and the held-out strikers, never trained on, for evaluation. {@link PenaltyStrikers} defines the two the
 * built-in games use.
 *
 * @param training the training population, at least one striker
 * @param heldOut the held-out strikers, at least one, none of them in the training population
 */
public record PenaltyPopulation(List<Striker> training, List<Striker> heldOut) {

  /**
   * Copies and checks.
   *
   * @param training training strikers
   * @param heldOut held-out strikers
   * @throws IllegalArgumentException if a list is empty, names a striker twice, or the lists share a striker
   */
  public PenaltyPopulation {
    training = PenaltyPlanner.checkPool(training);
    heldOut = PenaltyPlanner.checkPool(heldOut);
    for (Striker s : heldOut) {
      if (training.contains(s)) {
        throw new IllegalArgumentException("striker '" + s.id() + "' is both trained on and held out");
      }
    }
  }

  /** @return the opponent pool: the training strikers with weight 1 each, then the held-out ones */
  public OpponentPool pool() {
    OpponentPool.Builder b = OpponentPool.builder();
    for (Striker s : training) {
      b.addOpponent(s, 1.0);
    }
    for (Striker s : heldOut) {
      b.addHeldOut(s);
    }
    return b.build();
  }
}
