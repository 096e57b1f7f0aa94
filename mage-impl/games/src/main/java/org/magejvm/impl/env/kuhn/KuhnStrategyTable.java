package org.magejvm.impl.env.kuhn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * An immutable strategy given as a table over the twelve information states (three cards times four decision
 * points), keyed like {@code J}, {@code Qp}, {@code Kb} or {@code Jpb}: the card's letter, then the history.
 */
@Api(status = Api.Status.INTERNAL)
public final class KuhnStrategyTable implements KuhnStrategy {

  /** The twelve information-state keys in table order: card-major, then {@link KuhnRules#DECISION_HISTORIES}. */
  public static final List<String> INFO_STATES = infoStates();

  private final double[] bet;

  private KuhnStrategyTable(double[] bet) {
    this.bet = bet;
  }

  private static List<String> infoStates() {
    List<String> keys = new ArrayList<>();
    for (KuhnCard c : KuhnCard.values()) {
      for (String h : KuhnRules.DECISION_HISTORIES) {
        keys.add(c.letter() + h);
      }
    }
    return Collections.unmodifiableList(keys);
  }

  private static int index(KuhnCard card, String history) {
    int h = KuhnRules.decisionIndex(history);
    if (h < 0) {
      KuhnRules.requireDecision(history);
    }
    return card.ordinal() * KuhnRules.DECISION_HISTORIES.size() + h;
  }

  /**
   * @param card a card
   * @param history a decision point
   * @return the information-state key, for example {@code Qpb}
   */
  public static String key(KuhnCard card, String history) {
    return INFO_STATES.get(index(Objects.requireNonNull(card, "card"), history));
  }

  /**
   * Tabulates any strategy.
   *
   * @param strategy the strategy
   * @return its table
   * @throws IllegalArgumentException naming the information state when a probability is outside [0, 1]
   */
  public static KuhnStrategyTable of(KuhnStrategy strategy) {
    if (strategy instanceof KuhnStrategyTable) {
      return (KuhnStrategyTable) strategy;
    }
    double[] bet = new double[INFO_STATES.size()];
    for (KuhnCard c : KuhnCard.values()) {
      for (String h : KuhnRules.DECISION_HISTORIES) {
        bet[index(c, h)] = checkProbability(strategy.betProbability(c, h), c.letter() + h);
      }
    }
    return new KuhnStrategyTable(bet);
  }

  /**
   * Builds a table from a map of information-state keys to BET probabilities.
   *
   * @param probabilities one entry for each of the twelve keys in {@link #INFO_STATES}
   * @return the table
   * @throws IllegalArgumentException naming the key when one is missing, unknown or outside [0, 1]
   */
  public static KuhnStrategyTable fromMap(Map<String, Double> probabilities) {
    double[] bet = new double[INFO_STATES.size()];
    for (String k : probabilities.keySet()) {
      if (!INFO_STATES.contains(k)) {
        throw new IllegalArgumentException("unknown Kuhn Poker information state '" + k + "'; expected one of "
            + INFO_STATES);
      }
    }
    for (int i = 0; i < bet.length; i++) {
      String k = INFO_STATES.get(i);
      Double p = probabilities.get(k);
      if (p == null) {
        throw new IllegalArgumentException("the strategy table has no BET probability for '" + k + "'");
      }
      bet[i] = checkProbability(p, k);
    }
    return new KuhnStrategyTable(bet);
  }

  /**
   * The Nash equilibria of Kuhn Poker, a family with one parameter: player 0 bluffs the Jack with probability
   * {@code alpha}, bets the King with {@code 3 alpha} and, after checking, calls a bet with the Queen with
   * {@code alpha + 1/3}; player 1 bets the King, bluffs the Jack with 1/3 after a check, and calls a bet with the
   * Queen with 1/3. Player 0's value is -1/18 for every alpha.
   *
   * @param alpha the family parameter, in [0, 1/3]
   * @return the equilibrium strategy (both seats)
   * @throws IllegalArgumentException if alpha is outside [0, 1/3]
   */
  public static KuhnStrategyTable nash(double alpha) {
    if (!(alpha >= 0 && alpha <= 1.0 / 3 + 1e-12)) {
      throw new IllegalArgumentException("the Nash parameter alpha must lie in [0, 1/3], got " + alpha);
    }
    double third = 1.0 / 3;
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("J", alpha);
    m.put("Jp", third);
    m.put("Jb", 0.0);
    m.put("Jpb", 0.0);
    m.put("Q", 0.0);
    m.put("Qp", 0.0);
    m.put("Qb", third);
    m.put("Qpb", Math.min(1.0, alpha + third));
    m.put("K", Math.min(1.0, 3 * alpha));
    m.put("Kp", 1.0);
    m.put("Kb", 1.0);
    m.put("Kpb", 1.0);
    return fromMap(m);
  }

  private static double checkProbability(double p, String key) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException(
          "the BET probability at Kuhn Poker information state '" + key + "' must lie in [0, 1], got " + p);
    }
    return p;
  }

  @Override
  public double betProbability(KuhnCard card, String history) {
    return bet[index(card, history)];
  }

  /**
   * @param key an information-state key such as {@code Qpb}
   * @return its BET probability
   * @throws IllegalArgumentException naming the key when it is unknown
   */
  public double betProbability(String key) {
    int i = INFO_STATES.indexOf(key);
    if (i < 0) {
      throw new IllegalArgumentException("unknown Kuhn Poker information state '" + key + "'; expected one of "
          + INFO_STATES);
    }
    return bet[i];
  }

  /**
   * The deterministic strategy that plays the more likely action of this one at every information state; an exact
   * tie (probability 1/2) goes to PASS, as the reference's {@code argmax} picks the first action.
   *
   * @return the pure strategy
   */
  public KuhnStrategyTable argmax() {
    double[] pure = new double[bet.length];
    for (int i = 0; i < bet.length; i++) {
      pure[i] = bet[i] > 1 - bet[i] ? 1.0 : 0.0;
    }
    return new KuhnStrategyTable(pure);
  }

  /** @return whether every probability is 0 or 1 */
  public boolean isPure() {
    for (double p : bet) {
      if (p != 0 && p != 1) {
        return false;
      }
    }
    return true;
  }

  /** @return the BET probability of every information state, in {@link #INFO_STATES} order */
  public Map<String, Double> toMap() {
    Map<String, Double> m = new LinkedHashMap<>();
    for (int i = 0; i < bet.length; i++) {
      m.put(INFO_STATES.get(i), bet[i]);
    }
    return Collections.unmodifiableMap(m);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KuhnStrategyTable && Arrays.equals(bet, ((KuhnStrategyTable) o).bet);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bet);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("KuhnStrategyTable[");
    for (int i = 0; i < bet.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(INFO_STATES.get(i)).append('=')
          .append(String.format(Locale.ROOT, "%.4f", bet[i]));
    }
    return sb.append(']').toString();
  }
}
