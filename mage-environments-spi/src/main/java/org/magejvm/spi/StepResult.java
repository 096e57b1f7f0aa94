package org.magejvm.spi;

import java.util.Objects;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Outcome;

/**
 * What one {@link Environment#step(String)} did.
 *
 * <p>Build one with the two named factories rather than the ten-argument constructor:
 *
 * <pre>{@code
 * // a legal move: the episode goes on (reward and score 0 unless set)
 * return StepResult.valid(observation, anchor, "paper").build();
 * // a legal move that ends the episode
 * return StepResult.valid(observation, anchor, "paper").optReward(10).optScore(1).optOutcome(Outcome.WON).build();
 * // unreadable or illegal text: nothing changes
 * return StepResult.invalid(observation, score, anchor, parsed.text(), parsed.error());
 * }</pre>
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
@Api(status = Api.Status.STABLE)
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
   * Validates. Prefer {@link #valid(String, AnchorKey, String)} and {@link #invalid}, which name what they set.
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

  /**
   * Starts the result of a legal action: reward 0, score 0, the episode goes on, until the builder says otherwise.
   *
   * @param observation the state after the agent's action and the opponent's reply
   * @param anchor the anchor of the state the action was taken in
   * @param action the action as it appears in histories
   * @return a builder
   */
  public static Builder valid(String observation, AnchorKey anchor, String action) {
    return new Builder(observation, anchor, action);
  }

  /** Builds the result of a legal action; see {@link StepResult#valid(String, AnchorKey, String)}. */
  public static final class Builder {
    private final String observation;
    private final AnchorKey anchor;
    private final String action;
    private double reward;
    private double score;
    private Outcome outcome;

    private Builder(String observation, AnchorKey anchor, String action) {
      this.observation = observation;
      this.anchor = anchor;
      this.action = action;
    }

    /**
     * @param v the raw reward of this step (default 0)
     * @return this builder
     */
    public Builder optReward(double v) {
      reward = v;
      return this;
    }

    /**
     * @param v the episode score after this step (default 0)
     * @return this builder
     */
    public Builder optScore(double v) {
      score = v;
      return this;
    }

    /**
     * Ends the episode with this step.
     *
     * @param v how it ended: {@link Outcome#WON}, {@link Outcome#DRAW} or {@link Outcome#LOST} (for a single-player
     *     game, ended unsolved); {@link Outcome#TRUNCATED} is the engine's to decide, not the game's
     * @return this builder
     * @throws IllegalArgumentException for {@link Outcome#TRUNCATED}
     */
    public Builder optOutcome(Outcome v) {
      Objects.requireNonNull(v, "outcome");
      if (v == Outcome.TRUNCATED) {
        throw new IllegalArgumentException("a step cannot truncate the episode: the engine does that at the turn"
            + " limit; end it as WON, DRAW or LOST");
      }
      outcome = v;
      return this;
    }

    /** @return the validated result */
    public StepResult build() {
      return new StepResult(observation, reward, outcome != null, outcome == Outcome.WON, outcome == Outcome.DRAW,
          true, score, anchor, action, "");
    }
  }
}
