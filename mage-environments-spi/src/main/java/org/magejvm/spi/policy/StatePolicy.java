package org.magejvm.spi.policy;

import java.util.Objects;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.annotation.Api;

/**
 * A scripted policy that reads the environment's structured state ({@link PolicyRequest#state()}), of one type: {@link
 * #state(PolicyRequest)} hands it over, or says which game's state is missing.
 *
 * @param <S> the state type of the game's environment
 */
@Api(status = Api.Status.EXPERIMENTAL)
public abstract class StatePolicy<S> extends ScriptedPolicy {

  private final Class<S> stateType;
  private final String game;
  private final String players;

  /**
   * @param name the policy's name
   * @param seed the seed of its random generator
   * @param stateType the state type it reads
   * @param game the game's id, for the message when the state is missing
   * @param players what the game's scripted players are called in that message ({@code players})
   */
  protected StatePolicy(String name, long seed, Class<S> stateType, String game, String players) {
    super(name, seed);
    this.stateType = Objects.requireNonNull(stateType, "stateType");
    this.game = Objects.requireNonNull(game, "game");
    this.players = Objects.requireNonNull(players, "players");
  }

  /**
   * @param request a request
   * @return its state
   * @throws IllegalArgumentException if the request carries no state of the type, naming the game
   */
  protected final S state(PolicyRequest request) {
    if (!stateType.isInstance(request.state())) {
      throw new IllegalArgumentException("the request carries no " + game + " state (got "
          + (request.state() == null ? "null" : request.state().getClass().getName()) + "); scripted " + game + " "
          + players + " need the environment's state");
    }
    return stateType.cast(request.state());
  }
}
