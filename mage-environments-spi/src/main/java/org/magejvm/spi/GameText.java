package org.magejvm.spi;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

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
 * @param replayNote the reflect prompt's sentence on what the next attempt keeps the same, for example "You will
 *     play again from the same starting board against the same opponent."
 * @param reflectionExample an example reflection for the reflect prompt's answer format, in the game's terms
 */
@Api(status = Api.Status.STABLE)
public record GameText(
    String name,
    String role,
    String rules,
    String goal,
    String actionFormat,
    String compactRules,
    String compactActionFormat,
    String historyNote,
    String stateNoun,
    String replayNote,
    String reflectionExample) {

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
   * @param replayNote what the next attempt keeps the same
   * @param reflectionExample an example reflection
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
    replayNote = replayNote == null || replayNote.isBlank()
        ? "You will play again from the same starting " + stateNoun + "."
        : replayNote;
    reflectionExample = reflectionExample == null || reflectionExample.isBlank()
        ? "I lost because I ignored the threat on the last move; next time I will block it first."
        : reflectionExample;
  }

  /**
   * The sentences of a game with the generic replay note and example reflection.
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
  public GameText(String name, String role, String rules, String goal, String actionFormat, String compactRules,
      String compactActionFormat, String historyNote, String stateNoun) {
    this(name, role, rules, goal, actionFormat, compactRules, compactActionFormat, historyNote, stateNoun, null,
        null);
  }
}
