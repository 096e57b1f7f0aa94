package org.magejvm.examples.quickstart;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.Seat;
import org.magejvm.impl.eval.EvaluationSets;
import org.magejvm.impl.rollout.Seating;

/**
 * What the recipe ({@link GameRecipe}) needs to know about a game: {@link GameRecipe#GOALKEEPER}, {@link
 * GameRecipe#KUHN}, {@link GameRecipe#TIC_TAC_TOE}, {@link GameRecipe#PENALTY}, {@link GameRecipe#PENALTY_GRADED} or
 * {@link GameRecipe#PENALTY_STEPS}.
 *
 * @param environment the environment id
 * @param pool the pool opponents evaluated one set each (the training population is the environment's own); empty
 *     for a game without opponents, which is evaluated as one set, {@link GameRecipe#ALL_SET}
 * @param heldOut the held-out opponents, never played in training, one evaluation set each (empty for a game without
 *     opponents); the first is the one the methods comparison reports
 * @param heldOutSeat the agent's seat against the held-out opponents
 * @param poolSeating the agent's seats against the pool in evaluation
 * @param fixedPolicy the environment's scripted policy that plays the warm start's fixed line (it must not read
 *     earlier attempts)
 * @param referencePolicy the scripted policy whose rates are printed beside the model's
 * @param referenceLabel what that policy's rates mean
 * @param cacheSuffix appended to the names of the cached tiny model and warm start ("" for Kuhn Poker, which
 *     keeps the names of earlier versions)
 * @param draws whether the game has draws (their rates are then reported beside the success rates)
 * @param reflectivePolicy the environment's scripted policy whose turns, reflections included, are the warm start
 *     of a run that trains with reflections: it must write reflections in the format the game's prompts ask for
 *     while they carry nothing about the task, and act on what they say; "" when the game has none (a run with
 *     reflections then warm-starts on play turns only, and is warned that its model has never seen a reflection)
 */
public record RecipeGame(
    String environment, List<String> pool, List<String> heldOut, Seat heldOutSeat, Seating poolSeating,
    String fixedPolicy, String referencePolicy, String referenceLabel, String cacheSuffix, boolean draws,
    String reflectivePolicy) {

  /**
   * Validates and copies.
   *
   * @param environment environment id
   * @param pool pool sets
   * @param heldOut held-out opponents
   * @param heldOutSeat seat against them
   * @param poolSeating seats against the pool
   * @param fixedPolicy the fixed line
   * @param referencePolicy the reference player
   * @param referenceLabel its label
   * @param cacheSuffix cache name suffix
   * @param draws whether the game has draws
   * @param reflectivePolicy the warm start's reflective player, "" for none
   */
  public RecipeGame {
    Objects.requireNonNull(environment, "environment");
    pool = List.copyOf(pool);
    heldOut = List.copyOf(heldOut);
    if (pool.isEmpty() != heldOut.isEmpty()) {
      throw new IllegalArgumentException(environment + ": a game with opponents has pool and held-out ones, a game"
          + " without has neither");
    }
    Objects.requireNonNull(heldOutSeat, "heldOutSeat");
    Objects.requireNonNull(poolSeating, "poolSeating");
    Objects.requireNonNull(fixedPolicy, "fixedPolicy");
    Objects.requireNonNull(referencePolicy, "referencePolicy");
    Objects.requireNonNull(referenceLabel, "referenceLabel");
    Objects.requireNonNull(cacheSuffix, "cacheSuffix");
    Objects.requireNonNull(reflectivePolicy, "reflectivePolicy");
  }

  /**
   * The game with one held-out opponent.
   *
   * @param environment environment id
   * @param pool pool sets
   * @param heldOut the held-out opponent ("" for a game without opponents)
   * @param heldOutSeat seat against it
   * @param poolSeating seats against the pool
   * @param fixedPolicy the fixed line
   * @param referencePolicy the reference player
   * @param referenceLabel its label
   * @param cacheSuffix cache name suffix
   * @param draws whether the game has draws
   * @param reflectivePolicy the warm start's reflective player, "" for none
   */
  public RecipeGame(String environment, List<String> pool, String heldOut, Seat heldOutSeat, Seating poolSeating,
      String fixedPolicy, String referencePolicy, String referenceLabel, String cacheSuffix, boolean draws,
      String reflectivePolicy) {
    this(environment, pool, heldOut.isEmpty() ? List.of() : List.of(heldOut), heldOutSeat, poolSeating, fixedPolicy,
        referencePolicy, referenceLabel, cacheSuffix, draws, reflectivePolicy);
  }

  /**
   * @return the held-out opponent the methods comparison reports (the first)
   * @throws IllegalStateException for a game without opponents
   */
  public String firstHeldOut() {
    if (heldOut.isEmpty()) {
      throw new IllegalStateException(environment + " has no held-out opponent");
    }
    return heldOut.get(0);
  }

  /**
   * @param sets metrics per evaluation set
   * @param key the metric
   * @return the metric's mean over the pool's sets (the one set of a game without opponents)
   */
  public double poolAverage(Map<String, Map<String, Number>> sets, String key) {
    if (pool.isEmpty()) {
      return sets.get(GameRecipe.ALL_SET).get(key).doubleValue();
    }
    double sum = 0;
    for (String opp : pool) {
      sum += sets.get(opp).get(key).doubleValue();
    }
    return sum / pool.size();
  }

  /** @return the evaluation sets of the game's opponents and seats */
  public EvaluationSets sets() {
    return new EvaluationSets(pool, heldOut, heldOutSeat, poolSeating);
  }

  /** @return whether the game has opponents (pool sets and a held-out one) */
  public boolean hasOpponents() {
    return sets().hasOpponents();
  }

  /**
   * @return the evaluation sets: the pool opponents, then the held-out ones; {@link GameRecipe#ALL_SET} without
   *     opponents
   */
  public List<String> evaluationSets() {
    return sets().names();
  }
}
