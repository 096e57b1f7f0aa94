package org.magejvm.spi;

import java.util.List;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Opponent;
import org.magejvm.api.Seat;

/**
 * One instance of a game, played by one meta-episode. Not thread-safe; the rollout engine creates one per
 * meta-episode through {@link EnvironmentProvider#create(java.util.Map)}.
 *
 * <p>Lifecycle: {@link #reset(long, Opponent, Seat)} sets up a task (board, deal or room) from a seed and, if the
 * opponent moves first, plays its opening; {@link #restart()} returns to exactly that state for the next episode of
 * the meta-episode; {@link #step(String)} applies the action written in a policy response.
 */
@Api(status = Api.Status.STABLE)
public interface Environment extends AutoCloseable {

  /** @return the id of the provider that created this environment */
  String id();

  /**
   * Starts a new task. All randomness (the deal, the room, the opponent's choices) comes from the seed, so the same
   * seed, opponent, seat and agent actions reproduce the same game.
   *
   * @param seed the task seed
   * @param opponent the opponent, or null for single-player environments
   * @param seat the agent's seat (ignored by single-player environments)
   * @return the initial observation, after the opponent's opening move when the agent sits second
   * @throws IllegalArgumentException if the opponent belongs to another game, naming both
   */
  String reset(long seed, Opponent opponent, Seat seat);

  /**
   * Returns to the state right after the last {@link #reset}: same task, same opponent opening.
   *
   * @return the initial observation again
   * @throws IllegalStateException if {@link #reset} was never called
   */
  String restart();

  /**
   * Applies the action found in a policy response. An unreadable or illegal action is a no-op with validity false.
   *
   * @param response the policy's full response text
   * @return what happened
   * @throws IllegalStateException if the episode is already over or the environment was never reset
   */
  StepResult step(String response);

  /** @return the current state as prompt text */
  String observation();

  /** @return the anchor of the current state (state text plus opponent id) */
  AnchorKey anchor();

  /** @return the canonical texts of the actions legal now (what a scripted policy may answer) */
  List<String> legalActions();

  /**
   * The structured state for scripted policies (for example a board array). Must be an immutable snapshot.
   *
   * @return the state object
   */
  Object state();

  /** @return whether the current episode is over */
  boolean isDone();

  /** @return the renderer for this game's prompts */
  PromptRenderer promptRenderer();

  /** Releases resources; the default does nothing. */
  @Override
  default void close() {}
}
