package org.magejvm.impl.env.kuhn;

import java.util.List;

/**
 * The betting rules of Kuhn Poker, on histories written with {@code p} (PASS) and {@code b} (BET).
 *
 * <p>Player 0 acts first. The decision points are {@code ""} and {@code "pb"} for player 0 and {@code "p"} and
 * {@code "b"} for player 1. The hand ends after {@code pp} (showdown for 1 chip), {@code bp} (player 1 folds),
 * {@code bb} (showdown for 2 chips), {@code pbp} (player 0 folds) or {@code pbb} (showdown for 2 chips).
 */
final class KuhnRules {

  /** The histories at which a player must act, in the order used by strategy tables. */
  public static final List<String> DECISION_HISTORIES = List.of("", "p", "b", "pb");

  /** The histories that end the hand. */
  public static final List<String> TERMINAL_HISTORIES = List.of("pp", "pbp", "pbb", "bp", "bb");

  /** The chips each player puts into the pot before acting. */
  public static final int ANTE = 1;

  private KuhnRules() {}

  /**
   * @param history a betting history
   * @return the index of the history in {@link #DECISION_HISTORIES}, or -1 when it is not a decision point
   */
  public static int decisionIndex(String history) {
    if (history == null) {
      return -1;
    }
    switch (history) {
      case "":
        return 0;
      case "p":
        return 1;
      case "b":
        return 2;
      case "pb":
        return 3;
      default:
        return -1;
    }
  }

  /**
   * @param history a betting history
   * @return whether a player must act at it
   */
  public static boolean isDecision(String history) {
    return decisionIndex(history) >= 0;
  }

  /**
   * @param history a betting history
   * @return whether it ends the hand
   */
  public static boolean isTerminal(String history) {
    return history != null && TERMINAL_HISTORIES.contains(history);
  }

  /**
   * Checks that a history is a decision point.
   *
   * @param history the history
   * @return the history
   * @throws IllegalArgumentException naming the history when a player cannot act at it
   */
  public static String requireDecision(String history) {
    if (!isDecision(history)) {
      throw new IllegalArgumentException("'" + history + "' is not a Kuhn Poker decision point; expected one of"
          + " \"\", \"p\", \"b\", \"pb\"");
    }
    return history;
  }

  /**
   * @param history a decision point
   * @return the player to act there, 0 or 1
   * @throws IllegalArgumentException if the history is not a decision point
   */
  public static int playerToAct(String history) {
    return requireDecision(history).length() % 2;
  }

  /**
   * @param history a betting history (a prefix of a legal line)
   * @return whether a bet is open, so that PASS folds and BET calls
   */
  public static boolean facingBet(String history) {
    return history.indexOf('b') >= 0;
  }

  /**
   * @param history a terminal history
   * @return whether the cards are shown (no one folded)
   * @throws IllegalArgumentException if the history is not terminal
   */
  public static boolean isShowdown(String history) {
    requireTerminal(history);
    return !history.endsWith("bp");
  }

  /**
   * The chips player 0 wins (negative: loses) at the end of a hand. Player 1 wins the opposite.
   *
   * @param deal the cards
   * @param history a terminal history
   * @return +1 or -1 after a check-check showdown or a fold, +2 or -2 after a called bet
   * @throws IllegalArgumentException if the history is not terminal
   */
  public static int payoffForPlayer0(KuhnDeal deal, String history) {
    requireTerminal(history);
    switch (history) {
      case "bp":
        return ANTE;
      case "pbp":
        return -ANTE;
      case "pp":
        return deal.player0().beats(deal.player1()) ? ANTE : -ANTE;
      default: // "bb", "pbb": a called bet doubles the stake
        return deal.player0().beats(deal.player1()) ? ANTE + 1 : -(ANTE + 1);
    }
  }

  /**
   * @param deal the cards
   * @param history a terminal history
   * @param player 0 or 1
   * @return the chips that player wins (negative: loses)
   */
  public static int payoff(KuhnDeal deal, String history, int player) {
    int p0 = payoffForPlayer0(deal, history);
    if (player == 0) {
      return p0;
    }
    if (player == 1) {
      return -p0;
    }
    throw new IllegalArgumentException("Kuhn Poker players are 0 and 1, got " + player);
  }

  /**
   * Describes a betting history in words, for example {@code player 0 checks, player 1 bets}.
   *
   * @param history a decision or terminal history
   * @return the description, or {@code nothing yet} for the empty history
   */
  public static String describe(String history) {
    if (history.isEmpty()) {
      return "nothing yet";
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < history.length(); i++) {
      KuhnAction a = KuhnAction.fromSymbol(history.charAt(i));
      boolean facing = history.lastIndexOf('b', i - 1) >= 0;
      sb.append(i == 0 ? "" : ", ").append("player ").append(i % 2).append(' ').append(a.verb(facing));
    }
    return sb.toString();
  }

  private static void requireTerminal(String history) {
    if (!isTerminal(history)) {
      throw new IllegalArgumentException("'" + history + "' is not a finished Kuhn Poker hand; expected one of "
          + TERMINAL_HISTORIES);
    }
  }
}
