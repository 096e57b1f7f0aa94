package org.magejvm.impl.env.kuhn;

import org.magejvm.spi.GameText;
import org.magejvm.spi.StandardPromptRenderer;

/** The sentences of Kuhn Poker prompts, verbose and compact, and the renderer built from them. */
final class KuhnPrompts {

  /** The game's text. */
  public static final GameText GAME_TEXT = new GameText(
      "Kuhn Poker",
      "You are an expert poker player in a hand of Kuhn Poker against one opponent.",
      String.join("\n",
          "- The deck holds three cards, ranked Jack < Queen < King. Each player gets one card and sees only"
              + " their own; the third card stays out of play.",
          "- Before any betting, both players put an ante of 1 chip into the pot.",
          "- Player 0 acts first. The observation says whether you are player 0 or player 1, which card you"
              + " hold, and the betting so far.",
          "- There are two actions:",
          "  - PASS: with no bet made, check (add nothing); facing a bet, fold (give up the pot).",
          "  - BET: with no bet made, bet 1 more chip; facing a bet, call (add 1 chip to match it).",
          "- If player 0 checks, player 1 may check or bet; if player 1 bets, player 0 must call or fold."
              + " If player 0 bets, player 1 must call or fold.",
          "- The hand ends after two checks, a call or a fold. After two checks or a call the cards are shown"
              + " and the higher card takes the pot; after a fold the other player takes it and the cards stay"
              + " hidden.",
          "- The winner gains 1 chip after two checks or a fold, and 2 chips when a bet was called."),
      "Win chips: finish the hand ahead. Every attempt replays the same deal against the same opponent, so"
          + " use what earlier attempts taught you about how this opponent plays.",
      "Write exactly one action, PASS or BET in capital letters, inside <action> </action>, for example"
          + " <action>BET</action>.",
      "Kuhn poker: cards J<Q<K, one each, ante 1. Player 0 acts first. PASS = check/fold, BET = bet 1/call."
          + " Showdown: high card wins. Win chips.",
      "Answer <action>PASS</action> or <action>BET</action>.",
      "Only your own actions are listed; each observation shows the betting after your action and the"
          + " opponent's reply.",
      "hand",
      "You will be dealt the same cards again and face the same opponent.",
      "I bet with the Queen and the opponent called with the King; this opponent only calls with strong"
          + " cards, so next time I will check the Queen and fold if it bets.");

  /** The renderer used by every Kuhn Poker environment (stateless, shared). */
  public static final StandardPromptRenderer RENDERER = new StandardPromptRenderer(GAME_TEXT);

  private KuhnPrompts() {}
}
