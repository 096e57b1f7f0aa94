package org.magejvm.impl.env.kuhn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Seat;

/**
 * Exact game analysis of Kuhn Poker by enumerating the six deals and every betting line. Values are in chips per
 * hand from the agent's point of view (the environment's reward is 5 times that); the agent is player 0 in seat
 * {@link Seat#FIRST} and player 1 in seat {@link Seat#SECOND}.
 *
 * <ul>
 *   <li>{@link #expectedValue}: any agent strategy against any opponent strategy.
 *   <li>{@link #bestResponse}: the best strategy of an agent who sees only its own card, and its value.
 *   <li>{@link #fullInformationValue} and {@link #oracleAction}: what an agent who also knew the opponent's card
 *       could expect on a deal, and how to get it.
 *   <li>{@link #winProbability}, {@link #winnableDeals} and {@link #winningAction}: the deals on which some line of
 *       play ends with a positive payoff, and how to play for the win.
 *   <li>{@link #nashConv} and {@link #exploitability}: the distance of a strategy pair from equilibrium.
 * </ul>
 *
 * <p>Ties between the two actions are broken towards PASS.
 */
@Api(status = Api.Status.INTERNAL)
public final class KuhnAnalysis {

  private static final double TIE = 1e-12;

  private KuhnAnalysis() {}

  /**
   * A best response and its value.
   *
   * @param seat the agent's seat
   * @param policy the best response: pure at the agent's four decision points; the other player's entries are 0
   *     and meaningless
   * @param value its expected chips per hand against the opponent
   */
  public record BestResponse(Seat seat, KuhnStrategyTable policy, double value) {

    /**
     * Validates.
     *
     * @param seat seat
     * @param policy policy
     * @param value value
     */
    public BestResponse {
      Objects.requireNonNull(seat, "seat");
      Objects.requireNonNull(policy, "policy");
    }
  }

  /**
   * @param seat a seat
   * @return the agent's player index there: 0 for FIRST, 1 for SECOND
   */
  public static int playerOf(Seat seat) {
    return Objects.requireNonNull(seat, "seat") == Seat.FIRST ? 0 : 1;
  }

  /**
   * Player 0's expected chips when both players follow the given strategies, over the six equally likely deals.
   *
   * @param player0 player 0's strategy
   * @param player1 player 1's strategy
   * @return player 0's value (player 1's is its negative)
   */
  public static double value(KuhnStrategy player0, KuhnStrategy player1) {
    double sum = 0;
    for (KuhnDeal d : KuhnDeal.ALL) {
      sum += value(player0, player1, d);
    }
    return sum / KuhnDeal.ALL.size();
  }

  /**
   * @param player0 player 0's strategy
   * @param player1 player 1's strategy
   * @param deal the cards
   * @return player 0's expected chips on that deal
   */
  public static double value(KuhnStrategy player0, KuhnStrategy player1, KuhnDeal deal) {
    return lineValue(player0, player1, deal, "");
  }

  private static double lineValue(KuhnStrategy p0, KuhnStrategy p1, KuhnDeal deal, String h) {
    if (KuhnRules.isTerminal(h)) {
      return KuhnRules.payoffForPlayer0(deal, h);
    }
    int player = KuhnRules.playerToAct(h);
    double bet = probability(player == 0 ? p0 : p1, deal.card(player), h);
    double v = 0;
    if (bet < 1) {
      v += (1 - bet) * lineValue(p0, p1, deal, h + 'p');
    }
    if (bet > 0) {
      v += bet * lineValue(p0, p1, deal, h + 'b');
    }
    return v;
  }

  /**
   * The agent's expected chips per hand, over the six deals.
   *
   * @param agent the agent's strategy
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @return the agent's value
   */
  public static double expectedValue(KuhnStrategy agent, KuhnStrategy opponent, Seat seat) {
    return playerOf(seat) == 0 ? value(agent, opponent) : -value(opponent, agent);
  }

  /**
   * @param agent the agent's strategy
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @param deal the cards (player 0's first)
   * @return the agent's expected chips on that deal
   */
  public static double expectedValue(KuhnStrategy agent, KuhnStrategy opponent, Seat seat, KuhnDeal deal) {
    return playerOf(seat) == 0 ? value(agent, opponent, deal) : -value(opponent, agent, deal);
  }

  /**
   * The best response of an agent who sees only its own card: at each of its information states it takes the
   * action with the higher expected value, given the opponent's strategy and the two cards the opponent may hold.
   *
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @return the best-response strategy and its expected chips per hand
   */
  public static BestResponse bestResponse(KuhnStrategy opponent, Seat seat) {
    int agent = playerOf(seat);
    double[] table = new double[KuhnStrategyTable.INFO_STATES.size()];
    double total = 0;
    for (KuhnCard mine : KuhnCard.values()) {
      KuhnDeal[] deals = new KuhnDeal[2];
      int n = 0;
      for (KuhnCard theirs : KuhnCard.values()) {
        if (theirs != mine) {
          deals[n++] = agent == 0 ? new KuhnDeal(mine, theirs) : new KuhnDeal(theirs, mine);
        }
      }
      double[] v = bestResponseValues(opponent, agent, deals, new double[] {0.5, 0.5}, "", table);
      total += 0.5 * (v[0] + v[1]);
    }
    KuhnStrategyTable policy = KuhnStrategyTable.of(
        (card, history) -> table[card.ordinal() * KuhnRules.DECISION_HISTORIES.size()
            + KuhnRules.decisionIndex(history)]);
    return new BestResponse(seat, policy, total / KuhnCard.values().length);
  }

  /**
   * Values, per possible deal, of the subgame below a history when the agent best-responds; {@code reach} holds the
   * probability of each deal (given the agent's card) times the opponent's reach of the history.
   */
  private static double[] bestResponseValues(KuhnStrategy opponent, int agent, KuhnDeal[] deals, double[] reach,
      String h, double[] table) {
    int n = deals.length;
    double[] values = new double[n];
    if (KuhnRules.isTerminal(h)) {
      for (int i = 0; i < n; i++) {
        values[i] = KuhnRules.payoff(deals[i], h, agent);
      }
      return values;
    }
    int player = KuhnRules.playerToAct(h);
    if (player == agent) {
      double[] pass = bestResponseValues(opponent, agent, deals, reach, h + 'p', table);
      double[] bet = bestResponseValues(opponent, agent, deals, reach, h + 'b', table);
      double passSum = 0;
      double betSum = 0;
      for (int i = 0; i < n; i++) {
        passSum += reach[i] * pass[i];
        betSum += reach[i] * bet[i];
      }
      boolean chooseBet = betSum > passSum + TIE;
      KuhnCard mine = deals[0].card(agent);
      table[mine.ordinal() * KuhnRules.DECISION_HISTORIES.size() + KuhnRules.decisionIndex(h)] =
          chooseBet ? 1 : 0;
      return chooseBet ? bet : pass;
    }
    double[] p = new double[n];
    double[] reachPass = new double[n];
    double[] reachBet = new double[n];
    for (int i = 0; i < n; i++) {
      p[i] = probability(opponent, deals[i].card(player), h);
      reachPass[i] = reach[i] * (1 - p[i]);
      reachBet[i] = reach[i] * p[i];
    }
    double[] pass = bestResponseValues(opponent, agent, deals, reachPass, h + 'p', table);
    double[] bet = bestResponseValues(opponent, agent, deals, reachBet, h + 'b', table);
    for (int i = 0; i < n; i++) {
      values[i] = (1 - p[i]) * pass[i] + p[i] * bet[i];
    }
    return values;
  }

  /**
   * The sum over both players of what a best response gains over the strategy pair's value; 0 exactly at a Nash
   * equilibrium.
   *
   * @param player0 player 0's strategy
   * @param player1 player 1's strategy
   * @return NashConv in chips per hand
   */
  public static double nashConv(KuhnStrategy player0, KuhnStrategy player1) {
    // zero-sum: the two players' values of the pair add up to 0
    return bestResponse(player1, Seat.FIRST).value() + bestResponse(player0, Seat.SECOND).value();
  }

  /**
   * @param player0 player 0's strategy
   * @param player1 player 1's strategy
   * @return NashConv / 2, OpenSpiel's {@code exploitability}
   */
  public static double exploitability(KuhnStrategy player0, KuhnStrategy player1) {
    return nashConv(player0, player1) / 2;
  }

  /**
   * The expected chips of an agent who knows both cards and plays the best line against the opponent (an upper
   * bound on what any agent can expect on that deal).
   *
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @param deal the cards (player 0's first)
   * @return the full-information value
   */
  public static double fullInformationValue(KuhnStrategy opponent, Seat seat, KuhnDeal deal) {
    return oracle(opponent, playerOf(seat), deal, "", false);
  }

  /**
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @return the full-information value averaged over the six deals
   */
  public static double fullInformationValue(KuhnStrategy opponent, Seat seat) {
    double sum = 0;
    for (KuhnDeal d : KuhnDeal.ALL) {
      sum += fullInformationValue(opponent, seat, d);
    }
    return sum / KuhnDeal.ALL.size();
  }

  /**
   * The highest probability of ending the hand with a positive payoff that an agent who knows both cards can
   * reach on a deal (0 or 1 against a deterministic opponent).
   *
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @param deal the cards (player 0's first)
   * @return the best win probability
   */
  public static double winProbability(KuhnStrategy opponent, Seat seat, KuhnDeal deal) {
    return oracle(opponent, playerOf(seat), deal, "", true);
  }

  /**
   * The deals on which some line of the agent's play wins chips with positive probability: the reference's
   * "winnable" deals. Their fraction is the ceiling of the success rate with a fixed deal and restarts.
   *
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @return the winnable deals, in {@link KuhnDeal#ALL} order
   */
  public static List<KuhnDeal> winnableDeals(KuhnStrategy opponent, Seat seat) {
    List<KuhnDeal> out = new ArrayList<>();
    for (KuhnDeal d : KuhnDeal.ALL) {
      if (winProbability(opponent, seat, d) > 0) {
        out.add(d);
      }
    }
    return Collections.unmodifiableList(out);
  }

  /**
   * The action with the highest expected chips for an agent who knows both cards.
   *
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @param deal the cards (player 0's first)
   * @param history a decision point where the agent acts
   * @return the action (PASS on a tie)
   * @throws IllegalArgumentException if the agent does not act at the history
   */
  public static KuhnAction oracleAction(KuhnStrategy opponent, Seat seat, KuhnDeal deal, String history) {
    return bestAction(opponent, seat, deal, history, false);
  }

  /**
   * The action with the highest probability of winning chips for an agent who knows both cards; among equally
   * likely wins, the one with the higher expected chips.
   *
   * @param opponent the opponent's strategy
   * @param seat the agent's seat
   * @param deal the cards (player 0's first)
   * @param history a decision point where the agent acts
   * @return the action (PASS on a full tie)
   * @throws IllegalArgumentException if the agent does not act at the history
   */
  public static KuhnAction winningAction(KuhnStrategy opponent, Seat seat, KuhnDeal deal, String history) {
    return bestAction(opponent, seat, deal, history, true);
  }

  private static KuhnAction bestAction(KuhnStrategy opponent, Seat seat, KuhnDeal deal, String history,
      boolean win) {
    int agent = playerOf(seat);
    Objects.requireNonNull(deal, "deal");
    if (KuhnRules.playerToAct(history) != agent) {
      throw new IllegalArgumentException("the agent in seat " + seat.label() + " (player " + agent
          + ") does not act at history '" + history + "'");
    }
    double pass = oracle(opponent, agent, deal, history + 'p', win);
    double bet = oracle(opponent, agent, deal, history + 'b', win);
    if (win && Math.abs(bet - pass) <= TIE) {
      pass = oracle(opponent, agent, deal, history + 'p', false);
      bet = oracle(opponent, agent, deal, history + 'b', false);
    }
    return bet > pass + TIE ? KuhnAction.BET : KuhnAction.PASS;
  }

  /** The best expectation of payoff (or of the win indicator) over the agent's lines, knowing the deal. */
  private static double oracle(KuhnStrategy opponent, int agent, KuhnDeal deal, String h, boolean win) {
    if (KuhnRules.isTerminal(h)) {
      int chips = KuhnRules.payoff(deal, h, agent);
      return win ? (chips > 0 ? 1 : 0) : chips;
    }
    int player = KuhnRules.playerToAct(h);
    if (player == agent) {
      return Math.max(oracle(opponent, agent, deal, h + 'p', win), oracle(opponent, agent, deal, h + 'b', win));
    }
    double bet = probability(opponent, deal.card(player), h);
    double v = 0;
    if (bet < 1) {
      v += (1 - bet) * oracle(opponent, agent, deal, h + 'p', win);
    }
    if (bet > 0) {
      v += bet * oracle(opponent, agent, deal, h + 'b', win);
    }
    return v;
  }

  private static double probability(KuhnStrategy strategy, KuhnCard card, String history) {
    double p = strategy.betProbability(card, history);
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("the strategy " + strategy + " gives BET probability " + p + " at '"
          + card.letter() + history + "'; it must lie in [0, 1]");
    }
    return p;
  }
}
