package org.magejvm.impl.env.sokoban;

import org.magejvm.spi.GameText;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StandardPromptRenderer;

/**
 * Sokoban prompts: the shared prompt structure filled with Sokoban's rules, and histories in Sokoban's own style,
 * {@code Action 2: up, left} followed, when the state is shown, by {@code Observation 2:} and the room. Compact
 * prompts keep the shared compact layout.
 */
final class SokobanPromptRenderer extends StandardPromptRenderer {

  /** @param config the environment settings (the moves per turn appear in the rules) */
  public SokobanPromptRenderer(SokobanConfig config) {
    super(gameText(config));
  }

  /**
   * The Sokoban sentences for a configuration.
   *
   * @param config the environment settings
   * @return the game text
   */
  public static GameText gameText(SokobanConfig config) {
    int n = config.movesPerTurn();
    String example = example(n);
    String rules = String.join("\n",
        "The room is drawn one row per line. Each line starts with the row number (0 is the top row) and a colon,"
            + " then shows one symbol per square from left to right:",
        "# wall (nothing can enter it)",
        "_ empty floor",
        "O target square, empty",
        "X box that is not on a target",
        "√ box standing on a target",
        "P you, on an ordinary floor square",
        "S you, standing on a target",
        "",
        "Each move takes you one square up, down, left or right. Walking into a box pushes it one square further"
            + " in the same direction, but only when that square is floor or an empty target: a box never moves"
            + " into a wall or into another box, you can push only one box at a time, and you can never pull a box."
            + " A blocked move leaves everything where it was but still counts as a move; the word \"still\""
            + " spends a move standing in place.",
        "A box pushed into a corner, or along a wall with no target, can usually never be brought back. When the"
            + " puzzle can no longer be solved, the attempt ends at once.",
        "Each turn you give up to " + n + (n == 1 ? " move" : " moves") + "; they are carried out in order.");
    String goal = "Push every box onto a target, so that no X is left in the room, using as few moves as possible."
        + " An attempt allows at most " + SokobanConfig.MOVE_CAP + " moves in total.";
    String actionFormat = "Write your " + (n == 1 ? "move" : "moves") + " inside <action> </action>"
        + (n == 1 ? ": one of the words up, down, left, right, for example <action>" + example + "</action>."
            : ": up to " + n + " of the words up, down, left, right, separated by commas, for example <action>"
                + example + "</action>. Only the first " + n + " moves are used.");
    String compactRules = "Sokoban. Rows are numbered from 0 at the top. # wall, _ floor, O target, X box,"
        + " √ box on target, P you, S you on a target. Move up/down/left/right; walking into a box pushes it if"
        + " the square behind it is free; you cannot pull. Put every box on a target.";
    String compactActionFormat = "Reply <action>" + example + "</action> with at most " + n
        + (n == 1 ? " move." : " moves.");
    String historyNote = "Each action line is one turn of up to " + n + (n == 1 ? " move." : " moves.");
    return new GameText("Sokoban",
        "You are an expert Sokoban player. You steer a warehouse worker through a small walled room and push"
            + " boxes onto the marked target squares.",
        rules, goal, actionFormat, compactRules, compactActionFormat, historyNote, "room",
        "The next attempt starts from the same room.",
        "I pushed the left box into the corner, where it can never reach a target; next time I will push the"
            + " right box first and keep the left one away from the walls.");
  }

  private static String example(int n) {
    String[] words = {"up", "up", "left", "down", "right"};
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(n, 3); i++) {
      sb.append(i == 0 ? "" : ", ").append(words[i]);
    }
    return sb.toString();
  }

  /**
   * Verbose lines read {@code Action {i}: {moves}}, plus {@code Observation {i}:} and the room on the following
   * lines when the state is shown; compact lines keep the shared format.
   */
  @Override
  protected String formatStep(HistoryStep step, PromptStyle style) {
    if (style == PromptStyle.COMPACT) {
      return super.formatStep(step, style);
    }
    StringBuilder sb = new StringBuilder();
    sb.append("Action ").append(step.number()).append(": ").append(formatAction(step));
    if (step.observation() != null) {
      sb.append("\nObservation ").append(step.number()).append(":\n").append(step.observation().strip());
    }
    return sb.toString();
  }
}
