package org.magejvm.impl.env.tictactoe;

import org.magejvm.api.annotation.Api;

/** What a cell holds: nothing, an X (the agent's mark) or an O (the opponent's mark). */
@Api(status = Api.Status.INTERNAL)
public enum Mark {
  /** An empty cell, shown as {@code .}. */
  EMPTY('.'),
  /** The agent's mark. */
  X('X'),
  /** The opponent's mark. */
  O('O');

  private final char symbol;

  Mark(char symbol) {
    this.symbol = symbol;
  }

  /** @return the character that shows this mark on a rendered board */
  public char symbol() {
    return symbol;
  }

  /**
   * @return the other player's mark
   * @throws IllegalStateException for {@link #EMPTY}, which belongs to no player
   */
  public Mark other() {
    switch (this) {
      case X:
        return O;
      case O:
        return X;
      default:
        throw new IllegalStateException("EMPTY is not a player's mark and has no opponent");
    }
  }

  /**
   * @return this mark
   * @throws IllegalArgumentException for {@link #EMPTY}
   */
  Mark requirePlayer() {
    if (this == EMPTY) {
      throw new IllegalArgumentException("a player's mark must be X or O, got EMPTY");
    }
    return this;
  }
}
