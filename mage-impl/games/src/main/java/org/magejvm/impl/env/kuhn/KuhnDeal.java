package org.magejvm.impl.env.kuhn;

import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.magejvm.api.annotation.Api;

/**
 * The cards of one hand: player 0's and player 1's, always different.
 *
 * @param player0 player 0's card
 * @param player1 player 1's card
 */
@Api(status = Api.Status.INTERNAL)
public record KuhnDeal(KuhnCard player0, KuhnCard player1) {

  /** The six possible deals, each equally likely: JQ, JK, QJ, QK, KJ, KQ (player 0's card first). */
  public static final List<KuhnDeal> ALL = List.of(
      new KuhnDeal(KuhnCard.JACK, KuhnCard.QUEEN),
      new KuhnDeal(KuhnCard.JACK, KuhnCard.KING),
      new KuhnDeal(KuhnCard.QUEEN, KuhnCard.JACK),
      new KuhnDeal(KuhnCard.QUEEN, KuhnCard.KING),
      new KuhnDeal(KuhnCard.KING, KuhnCard.JACK),
      new KuhnDeal(KuhnCard.KING, KuhnCard.QUEEN));

  /**
   * Validates.
   *
   * @param player0 player 0's card
   * @param player1 player 1's card
   */
  public KuhnDeal {
    Objects.requireNonNull(player0, "player0");
    Objects.requireNonNull(player1, "player1");
    if (player0 == player1) {
      throw new IllegalArgumentException("both players cannot hold the " + player0.displayName());
    }
  }

  /**
   * @param player 0 or 1
   * @return that player's card
   * @throws IllegalArgumentException if the player is neither 0 nor 1
   */
  public KuhnCard card(int player) {
    if (player == 0) {
      return player0;
    }
    if (player == 1) {
      return player1;
    }
    throw new IllegalArgumentException("Kuhn Poker players are 0 and 1, got " + player);
  }

  /**
   * Draws a deal uniformly from a generator (one {@code nextInt(6)} call).
   *
   * @param random the generator
   * @return the deal
   */
  public static KuhnDeal draw(Random random) {
    return ALL.get(random.nextInt(ALL.size()));
  }

  /**
   * Reads a two-letter deal such as {@code QK} (player 0's card first).
   *
   * @param text the two letters
   * @return the deal
   * @throws IllegalArgumentException naming the text when it is not two different card letters
   */
  public static KuhnDeal parse(String text) {
    if (text == null || text.length() != 2) {
      throw new IllegalArgumentException("a Kuhn Poker deal is two card letters such as QK, got '" + text + "'");
    }
    return new KuhnDeal(KuhnCard.fromLetter(text.charAt(0)), KuhnCard.fromLetter(text.charAt(1)));
  }

  /** @return the two letters, player 0's card first, for example {@code QK} */
  @Override
  public String toString() {
    return "" + player0.letter() + player1.letter();
  }
}
