package org.magejvm.spi;

import java.util.List;
import java.util.Map;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.api.plugin.Provider;

/**
 * Describes a game and creates its {@link Environment}s. Found through {@link java.util.ServiceLoader} (list the
 * class in {@code META-INF/services/org.magejvm.spi.EnvironmentProvider}) or registered with {@link
 * EnvironmentRegistry#register(EnvironmentProvider)}.
 */
@Api(status = Api.Status.STABLE)
public interface EnvironmentProvider extends Provider {

  /**
   * Creates an environment.
   *
   * @param options game options as text (for example {@code boxes=3}); empty for the defaults
   * @return a new environment, not yet reset
   * @throws IllegalArgumentException naming the option when one is unknown or malformed
   */
  Environment create(Map<String, String> options);

  /** @return the options {@link #create} accepts, each with a one-line description and its default */
  default Map<String, String> options() {
    return Map.of();
  }

  /** @return the reference settings for this game */
  EnvironmentDefaults defaults();

  /**
   * The built-in opponents: the training population (weighted) and every other named opponent as held out.
   * Single-player games return an empty pool.
   *
   * @return the opponent pool
   */
  OpponentPool opponents();

  /** @return whether the game has an opponent */
  default boolean twoPlayer() {
    return !opponents().isEmpty() || !opponents().heldOut().isEmpty();
  }

  /** @return the id of the opponent the reference evaluates against, or the empty string */
  default String evaluationOpponent() {
    return "";
  }

  /**
   * The held-out opponents a trainer validates against, besides its training population, each in {@link
   * #evaluationSeat()}: the {@linkplain #evaluationOpponent() evaluation opponent} first, then any others the game
   * names (Tic-Tac-Toe adds {@code mcts-1000}). Every id is one of {@link #opponents()}' ids or held-out ids.
   *
   * @return the ids; by default the evaluation opponent alone, or none when there is none
   */
  default List<String> validationOpponents() {
    String id = evaluationOpponent();
    return id == null || id.isEmpty() ? List.of() : List.of(id);
  }

  /** @return the seat the reference evaluates in */
  default Seat evaluationSeat() {
    return Seat.FIRST;
  }

  /** @return the names of the scripted policies this game offers (always including {@code random}) */
  List<String> scriptedPolicies();

  /**
   * The scripted policy whose answers are in this game's format and carry nothing in particular, reflections
   * included: answers a trained model should keep able to give, such as the anchors of an update check (the {@code
   * mage} preset's {@code checks.anchor_policy}). A game whose prompts quote its earlier reflections offers one that
   * writes reflections in the format its prompts ask for (Goalkeeper's {@code random-plan}), so that the anchors'
   * later prompts look like training's.
   *
   * @return one of {@link #scriptedPolicies()}; by default {@code random}
   */
  default String formatPolicy() {
    return "random";
  }

  /**
   * Creates a scripted policy: it answers prompts of this game with action text, so the whole pipeline runs
   * without a neural model.
   *
   * @param name one of {@link #scriptedPolicies()}
   * @param seed the policy's random seed
   * @return the policy
   * @throws IllegalArgumentException naming the known policies when the name is unknown
   */
  LanguagePolicy scriptedPolicy(String name, long seed);
}
