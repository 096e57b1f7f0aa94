package org.magejvm.impl.env.tictactoe;

import org.magejvm.spi.GameText;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;

/** The sentences of Tic-Tac-Toe prompts, filled into the shared {@link StandardPromptRenderer} structure. */
final class TicTacToePrompts {

  /** The game's sentences. */
  public static final GameText TEXT = new GameText(
      "Tic-Tac-Toe",
      "You are a skilled Tic-Tac-Toe player. You place the X marks; a fixed computer opponent places the O marks.",
      String.join("\n",
          "- The board is a 3x3 grid. Rows are numbered 1 to 3 from top to bottom, columns 1 to 3 from left to"
              + " right.",
          "- Each cell shows 'X' (your mark), 'O' (the opponent's mark) or '.' (an empty cell). The board is"
              + " printed one row per line.",
          "- On your turn you put one X in an empty cell. Choosing a cell that is already taken, or a row or"
              + " column outside 1..3, is an invalid move: nothing changes and your turn is spent.",
          "- After every valid move of yours the opponent answers with an O right away, unless the game has"
              + " already ended.",
          "- Whoever first owns three cells in one row, one column or one diagonal wins. When all nine cells are"
              + " filled and nobody has such a line, the game is a draw."),
      "Win by completing a line of three X marks. If a win is not possible, stop the opponent from completing a"
          + " line of three O marks so that the game ends in a draw. You face the same opponent in every attempt,"
          + " so use what the earlier attempts showed about its habits.",
      "Write your move inside <action> </action> as (row, column), both counted from 1, for example"
          + " <action>(2, 3)</action> for the right cell of the middle row.",
      "Tic-Tac-Toe, 3x3. You are X, the opponent is O, '.' is empty. Three in a row, column or diagonal wins.",
      "Reply <action>(row, col)</action> with an empty cell, rows and columns 1-3.",
      "Only your own moves are listed; every board shown after a move already contains the opponent's reply.",
      "board",
      "You will play again from the same starting board against the same opponent.",
      "The opponent always answers a corner with the center and then blocks on the edge; next time I will"
          + " open in the center and take the opposite corner.");

  private static final StandardPromptRenderer RENDERER = new StandardPromptRenderer(TEXT);

  private TicTacToePrompts() {}

  /** @return the shared renderer (stateless) */
  public static PromptRenderer renderer() {
    return RENDERER;
  }
}
