package org.magejvm.impl.env.kuhn;

import java.util.Arrays;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * Counterfactual regret minimisation for Kuhn Poker, replicating OpenSpiel's Python {@code CFRSolver} (vanilla CFR
 * with alternating updates, regret matching and uniform averaging).
 *
 * <p>One {@link #iterate()} walks the full game tree once per player, player 0 first. The walk for player {@code i}
 * uses the current policy, adds {@code counterfactual reach * (action value - state value)} to the cumulative
 * regrets of player {@code i}'s information states and {@code own reach * action probability} to their cumulative
 * policy; branches that neither player can reach are skipped. After each walk the current policy of every
 * information state becomes the regret-matching policy (positive regrets normalised; uniform when none is
 * positive). The average policy normalises the cumulative policy (uniform where it is all zero). As in OpenSpiel,
 * the first policy is uniform.
 *
 * <p>Not thread-safe; {@link #referenceAveragePolicy()} gives the cached 1000-iteration result safely.
 */
@Api(status = Api.Status.INTERNAL)
public final class KuhnCfrSolver {

  /** The iterations of the reference's {@code cfr} opponent. */
  public static final int REFERENCE_ITERATIONS = 1000;

  private static final int STATES = KuhnStrategyTable.INFO_STATES.size();
  private static final int HISTORIES = KuhnRules.DECISION_HISTORIES.size();

  // the game tree, nodes numbered once so the walk does no string work
  private static final String[] NODES = {"", "p", "b", "pp", "pb", "bp", "bb", "pbp", "pbb"};
  private static final int ROOT = 0;
  private static final int[] PASS_CHILD = new int[NODES.length];
  private static final int[] BET_CHILD = new int[NODES.length];
  private static final int[] NODE_DECISION = new int[NODES.length];
  private static final int[] NODE_PLAYER = new int[NODES.length];
  // deals in chance order: player 0's card J, Q, K, then player 1's card among the other two
  private static final KuhnDeal[] DEALS = KuhnDeal.ALL.toArray(new KuhnDeal[0]);
  private static final double[][] PAYOFF = new double[DEALS.length][NODES.length];

  static {
    List<String> nodes = Arrays.asList(NODES);
    for (int n = 0; n < NODES.length; n++) {
      String h = NODES[n];
      NODE_DECISION[n] = KuhnRules.decisionIndex(h);
      NODE_PLAYER[n] = h.length() % 2;
      PASS_CHILD[n] = nodes.indexOf(h + 'p');
      BET_CHILD[n] = nodes.indexOf(h + 'b');
      for (int d = 0; d < DEALS.length; d++) {
        PAYOFF[d][n] = KuhnRules.isTerminal(h) ? KuhnRules.payoffForPlayer0(DEALS[d], h) : 0;
      }
    }
  }

  // per information state (card * 4 + history index), per action (0 = PASS, 1 = BET)
  private final double[][] cumulativeRegret = new double[STATES][2];
  private final double[][] cumulativePolicy = new double[STATES][2];
  private final double[] currentBet = new double[STATES];
  private int iterations;

  /** A solver at iteration 0, with the uniform policy. */
  public KuhnCfrSolver() {
    Arrays.fill(currentBet, 0.5);
  }

  /**
   * Runs a number of iterations.
   *
   * @param count the iterations to run, at least 0
   * @return this solver
   * @throws IllegalArgumentException if the count is negative
   */
  public KuhnCfrSolver iterate(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("the number of CFR iterations must be >= 0, got " + count);
    }
    for (int i = 0; i < count; i++) {
      iterate();
    }
    return this;
  }

  /** Runs one iteration: a regret-update walk for player 0, then one for player 1. */
  public void iterate() {
    iterations++;
    for (int player = 0; player < 2; player++) {
      walkChance(player);
      updateCurrentPolicy();
    }
  }

  /** @return the number of iterations run so far */
  public int iterations() {
    return iterations;
  }

  /** @return the current (regret-matching) policy */
  public KuhnStrategyTable currentPolicy() {
    return KuhnStrategyTable.of((card, history) -> currentBet[index(card, history)]);
  }

  /** @return the average policy, the strategy CFR converges to */
  public KuhnStrategyTable averagePolicy() {
    return KuhnStrategyTable.of((card, history) -> {
      double[] c = cumulativePolicy[index(card, history)];
      double sum = c[0] + c[1];
      return sum > 0 ? c[1] / sum : 0.5;
    });
  }

  /**
   * The average policy after {@link #REFERENCE_ITERATIONS} iterations, solved once on first use and cached.
   *
   * @return the policy
   */
  public static KuhnStrategyTable referenceAveragePolicy() {
    return Reference.AVERAGE;
  }

  /**
   * The most likely action of {@link #referenceAveragePolicy()} at each information state (ties to PASS): what the
   * reference's {@code cfr} opponent plays.
   *
   * @return the pure policy
   */
  public static KuhnStrategyTable referenceArgmaxPolicy() {
    return Reference.ARGMAX;
  }

  /** Lazy holder: the class initialiser runs once, on first use, and the JVM makes it thread-safe. */
  private static final class Reference {
    static final KuhnStrategyTable AVERAGE = new KuhnCfrSolver().iterate(REFERENCE_ITERATIONS).averagePolicy();
    static final KuhnStrategyTable ARGMAX = AVERAGE.argmax();
  }

  private static int index(KuhnCard card, String history) {
    return card.ordinal() * HISTORIES + KuhnRules.decisionIndex(history);
  }

  /** The two chance nodes: player 0's card (1/3 each), then player 1's card (1/2 each of the other two). */
  private void walkChance(int updatingPlayer) {
    for (int d = 0; d < DEALS.length; d++) {
      walk(d, ROOT, 1.0, 1.0, 1.0 / 6, updatingPlayer);
    }
  }

  /**
   * Returns player 0's expected payoff below a node under the current policy, updating the updating player's
   * cumulative values on the way back.
   */
  private double walk(int deal, int node, double reach0, double reach1, double chanceReach, int updatingPlayer) {
    if (NODE_DECISION[node] < 0) {
      return PAYOFF[deal][node];
    }
    if (reach0 == 0 && reach1 == 0) {
      return 0; // no update can happen below; the parent weighs this value by zero
    }
    int player = NODE_PLAYER[node];
    int s = DEALS[deal].card(player).ordinal() * HISTORIES + NODE_DECISION[node];
    double bet = currentBet[s];
    double pass = 1 - bet;
    double passValue = player == 0
        ? walk(deal, PASS_CHILD[node], reach0 * pass, reach1, chanceReach, updatingPlayer)
        : walk(deal, PASS_CHILD[node], reach0, reach1 * pass, chanceReach, updatingPlayer);
    double betValue = player == 0
        ? walk(deal, BET_CHILD[node], reach0 * bet, reach1, chanceReach, updatingPlayer)
        : walk(deal, BET_CHILD[node], reach0, reach1 * bet, chanceReach, updatingPlayer);
    double value = pass * passValue + bet * betValue;
    if (player != updatingPlayer) {
      return value;
    }
    double sign = player == 0 ? 1 : -1;
    double ownReach = player == 0 ? reach0 : reach1;
    double counterfactualReach = (player == 0 ? reach1 : reach0) * chanceReach;
    double[] regret = cumulativeRegret[s];
    regret[0] += counterfactualReach * sign * (passValue - value);
    regret[1] += counterfactualReach * sign * (betValue - value);
    double[] policy = cumulativePolicy[s];
    policy[0] += ownReach * pass;
    policy[1] += ownReach * bet;
    return value;
  }

  private void updateCurrentPolicy() {
    for (int s = 0; s < STATES; s++) {
      double positivePass = Math.max(0, cumulativeRegret[s][0]);
      double positiveBet = Math.max(0, cumulativeRegret[s][1]);
      double sum = positivePass + positiveBet;
      currentBet[s] = sum > 0 ? positiveBet / sum : 0.5;
    }
  }
}
