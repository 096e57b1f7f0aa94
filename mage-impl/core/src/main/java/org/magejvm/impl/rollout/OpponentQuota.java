package org.magejvm.impl.rollout;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.annotation.Api;

/**
 * Fixed opponent quotas ({@link OpponentSampling#QUOTA}): how many of a rollout's episode groups face each training
 * opponent, computed from the pool's weights exactly as the reference computes them from its pool's ratios
 * ({@code kuhnpoker/envs.py::generate_opponent_list}):
 *
 * <ol>
 *   <li>opponent i with weight w_i of the total W gets {@code round(w_i / W * groups)} groups, rounded half to even
 *       (Python's {@code round});
 *   <li>the groups are laid out in the pool's order, each opponent's in one contiguous block;
 *   <li>when the rounded counts fall short of the group count, the last training opponent takes the rest (the
 *       reference fills with {@code "intermediate"}, the last entry of its Kuhn Poker pool); when they exceed it,
 *       the list is cut at the group count (the last blocks lose groups).
 * </ol>
 *
 * <p>For the built-in pools and the reference's 16 groups this gives the reference's assignments: Kuhn Poker
 * conservative / aggressive / intermediate 5 / 5 / 6 (weights 0.3 / 0.3 / 0.4), Tic-Tac-Toe {@code mcts-100} 7,
 * each preferred-position player 1 and {@code random} 3 (weights 7, 1 each, 3), which are the groups the reference's
 * Tic-Tac-Toe list ({@code envs_single.py::_build_opponent_policies}: one group per pool entry, MCTS-100 for the
 * rest) produces. At other group counts the Tic-Tac-Toe list has no weighted form (it cuts the list, so the first
 * entries win); this rule then keeps the weights' proportions instead.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class OpponentQuota {

  private OpponentQuota() {}

  /**
   * The number of groups of each weight.
   *
   * @param weights the training opponents' weights, in pool order, each positive and finite
   * @param groups the number of episode groups, at least 0
   * @return the groups per weight, in the same order, adding up to {@code groups}
   * @throws IllegalArgumentException if there is no weight, a weight is not positive and finite, or {@code groups}
   *     is negative
   */
  public static int[] counts(double[] weights, int groups) {
    Objects.requireNonNull(weights, "weights");
    if (weights.length == 0) {
      throw new IllegalArgumentException("no training opponent to assign");
    }
    if (groups < 0) {
      throw new IllegalArgumentException("groups must be >= 0, got " + groups);
    }
    double total = 0;
    for (double w : weights) {
      if (!(w > 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("weights must be positive and finite, got " + w);
      }
      total += w;
    }
    int[] counts = new int[weights.length];
    int left = groups;
    for (int i = 0; i < weights.length; i++) {
      // Math.rint rounds half to even, as Python's round does
      int c = (int) Math.min(Integer.MAX_VALUE, Math.rint(weights[i] / total * groups));
      counts[i] = Math.min(c, left); // past the group count the list is cut
      left -= counts[i];
    }
    counts[weights.length - 1] += left; // a shortfall goes to the last opponent
    return counts;
  }

  /**
   * The opponent of every group.
   *
   * @param pool the pool (its training opponents and their weights)
   * @param groups the number of episode groups
   * @return one opponent per group, group 0 first: each training opponent's {@link #counts} in one block, in pool
   *     order
   * @throws IllegalStateException if the pool has no training opponents
   */
  public static List<Opponent> assign(OpponentPool pool, int groups) {
    List<OpponentPool.Entry> training = pool.training();
    if (training.isEmpty()) {
      throw new IllegalStateException("the opponent pool has no training opponents to assign");
    }
    double[] weights = new double[training.size()];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = training.get(i).weight();
    }
    int[] counts = counts(weights, groups);
    List<Opponent> out = new ArrayList<>(groups);
    for (int i = 0; i < counts.length; i++) {
      for (int k = 0; k < counts[i]; k++) {
        out.add(training.get(i).opponent());
      }
    }
    return out;
  }
}
