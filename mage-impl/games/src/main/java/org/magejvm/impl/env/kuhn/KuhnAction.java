package org.magejvm.impl.env.kuhn;

import org.magejvm.api.annotation.Api;

/** The two Kuhn Poker actions (OpenSpiel's action 0 and 1). Their meaning depends on whether a bet is open. */
@Api(status = Api.Status.INTERNAL)
public enum KuhnAction {
  /** Check when no bet is open, fold when facing a bet. */
  PASS('p', "checks", "folds"),
  /** Bet one chip when no bet is open, call when facing a bet. */
  BET('b', "bets", "calls");

  private final char symbol;
  private final String openVerb;
  private final String facingBetVerb;

  KuhnAction(char symbol, String openVerb, String facingBetVerb) {
    this.symbol = symbol;
    this.openVerb = openVerb;
    this.facingBetVerb = facingBetVerb;
  }

  /** @return the text the agent writes inside the action tags: {@code PASS} or {@code BET} */
  public String text() {
    return name();
  }

  /** @return the history symbol, {@code p} or {@code b} */
  public char symbol() {
    return symbol;
  }

  /**
   * @param facingBet whether the player acting faces an open bet
   * @return the verb describing this action in that situation: checks, folds, bets or calls
   */
  public String verb(boolean facingBet) {
    return facingBet ? facingBetVerb : openVerb;
  }

  /**
   * @param symbol a history symbol
   * @return the action it stands for
   * @throws IllegalArgumentException naming the symbol when it is neither {@code p} nor {@code b}
   */
  public static KuhnAction fromSymbol(char symbol) {
    if (symbol == 'p') {
      return PASS;
    }
    if (symbol == 'b') {
      return BET;
    }
    throw new IllegalArgumentException("unknown Kuhn Poker history symbol '" + symbol + "': expected p or b");
  }
}
