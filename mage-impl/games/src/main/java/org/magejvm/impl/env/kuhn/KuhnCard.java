package org.magejvm.impl.env.kuhn;

import org.magejvm.api.annotation.Api;

/** The three cards of the Kuhn Poker deck, in rank order (OpenSpiel's card numbers 0, 1, 2). */
@Api(status = Api.Status.INTERNAL)
public enum KuhnCard {
  /** The lowest card. */
  JACK("Jack", 'J'),
  /** The middle card. */
  QUEEN("Queen", 'Q'),
  /** The highest card. */
  KING("King", 'K');

  private final String displayName;
  private final char letter;

  KuhnCard(String displayName, char letter) {
    this.displayName = displayName;
    this.letter = letter;
  }

  /** @return the card's name as shown in observations, for example {@code Queen} */
  public String displayName() {
    return displayName;
  }

  /** @return the card's letter as used in information-state keys, for example {@code Q} */
  public char letter() {
    return letter;
  }

  /**
   * @param other another card
   * @return whether this card wins a showdown against the other
   */
  public boolean beats(KuhnCard other) {
    return compareTo(other) > 0;
  }

  /**
   * Reads a card letter.
   *
   * @param letter {@code J}, {@code Q} or {@code K}
   * @return the card
   * @throws IllegalArgumentException naming the letter when it is none of these
   */
  public static KuhnCard fromLetter(char letter) {
    for (KuhnCard c : values()) {
      if (c.letter == letter) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown Kuhn Poker card letter '" + letter + "': expected J, Q or K");
  }
}
