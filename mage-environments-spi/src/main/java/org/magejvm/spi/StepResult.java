package org.magejvm.spi;

import java.util.Objects;
import org.magejvm.api.AnchorKey;

/**
 * What one {@link Environment#step(String)} did.
 *
 * <p>An invalid action is a no-op: the state is unchanged, the opponent does not move, the reward is 0 and {@code
 * done} is false.
 *
 * @param observation the state after the agent's action and the opponent's reply, as prompt text
 * @param reward the raw reward of this step
 * @param done whether the episode is over
 * @param won whether the agent won with this step
 * @param draw whether the episode ended in a draw with this step
 * @param actionValid whether the text held a legal action
 * @param score the episode score so far (Tic-Tac-Toe +1/0/-1 at the end, Kuhn chips, Sokoban 1 when solved)
 * @param anchor the state before the action plus the opponent id, for GiGPO step groups
 * @param action the action as it appears in histories (for an invalid action, what was read, or the empty string)
 * @param message why the action was invalid, or the empty string
 */
public record StepResult(
    String observation,
    double reward,
    boolean done,
    boolean won,
    boolean draw,
    boolean actionValid,
    double score,
    AnchorKey anchor,
    String action,
    String message) {

  /**
   * Validates.
   *
   * @param observation observation
   * @param reward reward
   * @param done done
   * @param won won
   * @param draw draw
   * @param actionValid validity
   * @param score score
   * @param anchor anchor
   * @param action canonical action
   * @param message invalidity message
   */
  public StepResult {
    Objects.requireNonNull(observation, "observation");
    Objects.requireNonNull(anchor, "anchor");
    action = action == null ? "" : action;
    message = message == null ? "" : message;
    if (!Double.isFinite(reward) || !Double.isFinite(score)) {
      throw new IllegalArgumentException("reward and score must be finite, got " + reward + " and " + score);
    }
    if (won && draw) {
      throw new IllegalArgumentException("a step cannot be both a win and a draw");
    }
    if ((won || draw) && !done) {
      throw new IllegalArgumentException("a won or drawn step must end the episode");
    }
    if (!actionValid && (done || reward != 0)) {
      throw new IllegalArgumentException("an invalid action must be a no-op (reward 0, not done)");
    }
  }

  /**
   * The result of an invalid action: nothing changes.
   *
   * @param observation the unchanged observation
   * @param score the unchanged score
   * @param anchor the anchor of the unchanged state
   * @param action what was read from the text
   * @param message why it is invalid
   * @return the result
   */
  public static StepResult invalid(
      String observation, double score, AnchorKey anchor, String action, String message) {
    return new StepResult(observation, 0, false, false, false, false, score, anchor, action, message);
  }
}
