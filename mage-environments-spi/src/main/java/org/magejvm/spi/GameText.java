package org.magejvm.spi;

import java.util.Objects;

/**
 * The game-specific sentences a {@link StandardPromptRenderer} puts into its prompt structure.
 *
 * @param name the game's name, for example {@code Tic-Tac-Toe}
 * @param role the opening line of a verbose prompt, for example "You are an expert Tic-Tac-Toe player ..."
 * @param rules the rules of the game, verbose (several lines)
 * @param goal what counts as success, verbose
 * @param actionFormat the verbose instruction for writing an action, with an example
 * @param compactRules the rules and goal in one or two short lines
 * @param compactActionFormat the compact instruction, for example {@code Reply <action>(row, col)</action>.}
 * @param historyNote a sentence explaining the history (empty for none)
 * @param stateNoun what the state is called: board, hand, room
 */
public record GameText(
    String name,
    String role,
    String rules,
    String goal,
    String actionFormat,
    String compactRules,
    String compactActionFormat,
    String historyNote,
    String stateNoun) {

  /**
   * Validates.
   *
   * @param name name
   * @param role role line
   * @param rules rules
   * @param goal goal
   * @param actionFormat action instruction
   * @param compactRules compact rules
   * @param compactActionFormat compact action instruction
   * @param historyNote history note
   * @param stateNoun state noun
   */
  public GameText {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(goal, "goal");
    Objects.requireNonNull(actionFormat, "actionFormat");
    Objects.requireNonNull(compactRules, "compactRules");
    Objects.requireNonNull(compactActionFormat, "compactActionFormat");
    historyNote = historyNote == null ? "" : historyNote;
    Objects.requireNonNull(stateNoun, "stateNoun");
  }
}
