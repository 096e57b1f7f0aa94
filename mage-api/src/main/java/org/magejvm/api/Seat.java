package org.magejvm.api;

import java.util.Locale;
import org.magejvm.api.annotation.Api;

/** Which side of a two-player game the agent plays. Single-player environments ignore the seat. */
@Api(status = Api.Status.STABLE)
public enum Seat {
  /** The agent moves first (Tic-Tac-Toe: the agent opens; Kuhn Poker: the agent is player 0). */
  FIRST,
  /** The opponent moves first (its opening move happens during reset and is frozen for restarts). */
  SECOND;

  /**
   * Parses {@code first} or {@code second}, case-insensitively.
   *
   * @param text the seat name
   * @return the seat
   * @throws IllegalArgumentException naming the accepted values when the text is neither
   */
  public static Seat parse(String text) {
    if (text != null) {
      switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "first":
          return FIRST;
        case "second":
          return SECOND;
        default:
          break;
      }
    }
    throw new IllegalArgumentException("unknown seat '" + text + "': expected 'first' or 'second'");
  }

  /** @return the lower-case name used on the command line and in metrics, {@code first} or {@code second} */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
