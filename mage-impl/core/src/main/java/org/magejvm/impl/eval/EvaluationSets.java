package org.magejvm.impl.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.Seat;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.rollout.Seating;

/**
 * The evaluation sets of an {@link EvaluationSuite}: one set per pool opponent, played from the pool's seats, then
 * the held-out opponent (never played in training) from its own seat; a game without opponents is one set, {@link
 * #ALL}.
 *
 * @param pool the pool opponents, one set each, in this order; empty for a game without opponents
 * @param heldOut the held-out opponent ("" for a game without opponents)
 * @param heldOutSeat the agent's seat against the held-out opponent
 * @param poolSeating the agent's seats against the pool
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record EvaluationSets(List<String> pool, String heldOut, Seat heldOutSeat, Seating poolSeating) {

  /** The name of the one evaluation set of a game without opponents. */
  public static final String ALL = "all";

  /**
   * Validates and copies.
   *
   * @param pool pool opponents
   * @param heldOut held-out opponent
   * @param heldOutSeat seat against it
   * @param poolSeating seats against the pool
   */
  public EvaluationSets {
    pool = List.copyOf(pool);
    Objects.requireNonNull(heldOut, "heldOut");
    Objects.requireNonNull(heldOutSeat, "heldOutSeat");
    Objects.requireNonNull(poolSeating, "poolSeating");
  }

  /** @return whether there are opponents (pool sets and a held-out one) */
  public boolean hasOpponents() {
    return !pool.isEmpty();
  }

  /** @return the set names: the pool opponents, then the held-out one; {@link #ALL} without opponents */
  public List<String> names() {
    if (pool.isEmpty()) {
      return List.of(ALL);
    }
    List<String> sets = new ArrayList<>(pool);
    sets.add(heldOut);
    return sets;
  }

  /**
   * @param opponent an opponent of these sets
   * @return the agent's seats against it: the held-out seat against the held-out opponent, the pool's otherwise
   */
  public Seating seating(String opponent) {
    return opponent.equals(heldOut) ? Seating.of(heldOutSeat) : poolSeating;
  }
}
