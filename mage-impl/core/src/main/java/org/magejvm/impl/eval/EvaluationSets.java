package org.magejvm.impl.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.Seat;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.rollout.Seating;

/**
 * The evaluation sets of an {@link EvaluationSuite}: one set per pool opponent, played from the pool's seats, then
 * one per held-out opponent (never played in training) from their own seat; a game without opponents is one set,
 * {@link #ALL}.
 *
 * @param pool the pool opponents, one set each, in this order; empty for a game without opponents
 * @param heldOut the held-out opponents, one set each, in this order (empty for a game without opponents)
 * @param heldOutSeat the agent's seat against the held-out opponent
 * @param poolSeating the agent's seats against the pool
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record EvaluationSets(List<String> pool, List<String> heldOut, Seat heldOutSeat, Seating poolSeating) {

  /** The name of the one evaluation set of a game without opponents. */
  public static final String ALL = "all";

  /**
   * Validates and copies.
   *
   * @param pool pool opponents
   * @param heldOut held-out opponents
   * @param heldOutSeat seat against them
   * @param poolSeating seats against the pool
   * @throws IllegalArgumentException when an opponent is named twice
   */
  public EvaluationSets {
    pool = List.copyOf(pool);
    heldOut = List.copyOf(heldOut);
    Objects.requireNonNull(heldOutSeat, "heldOutSeat");
    Objects.requireNonNull(poolSeating, "poolSeating");
    List<String> all = new ArrayList<>(pool);
    all.addAll(heldOut);
    if (new java.util.HashSet<>(all).size() != all.size()) {
      throw new IllegalArgumentException("an opponent is named twice among the evaluation sets " + all);
    }
  }

  /**
   * Sets with one held-out opponent.
   *
   * @param pool pool opponents
   * @param heldOut the held-out opponent ("" for none: a game without opponents)
   * @param heldOutSeat seat against it
   * @param poolSeating seats against the pool
   */
  public EvaluationSets(List<String> pool, String heldOut, Seat heldOutSeat, Seating poolSeating) {
    this(pool, heldOut.isEmpty() ? List.of() : List.of(heldOut), heldOutSeat, poolSeating);
  }

  /** @return whether there are opponents (pool sets and a held-out one) */
  public boolean hasOpponents() {
    return !pool.isEmpty();
  }

  /** @return the set names: the pool opponents, then the held-out ones; {@link #ALL} without opponents */
  public List<String> names() {
    if (pool.isEmpty()) {
      return List.of(ALL);
    }
    List<String> sets = new ArrayList<>(pool);
    sets.addAll(heldOut);
    return sets;
  }

  /**
   * @param opponent an opponent of these sets
   * @return the agent's seats against it: the held-out seat against a held-out opponent, the pool's otherwise
   */
  public Seating seating(String opponent) {
    return heldOut.contains(opponent) ? Seating.of(heldOutSeat) : poolSeating;
  }
}
