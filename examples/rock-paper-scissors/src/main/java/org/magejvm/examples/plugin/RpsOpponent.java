package org.magejvm.examples.plugin;

import java.util.Random;
import org.magejvm.api.Opponent;
import org.magejvm.examples.plugin.RpsEnvironment.Move;
import org.magejvm.examples.plugin.RpsEnvironment.State;

/**
 * A Rock-Paper-Scissors opponent: the game's sub-interface of {@link Opponent}, adding the method that picks a move.
 *
 * <p>Opponents are stateless. Everything they know comes in as arguments: the rounds of the current match played so
 * far (never the agent's current move) and the environment's seeded generator, which they must use for every random
 * choice so that a seed reproduces a match. One instance can therefore serve any number of environments at once.
 * A host adds its own opponent by implementing this interface and adding it to the provider's pool with {@link
 * org.magejvm.api.OpponentPool#toBuilder()}.
 */
public interface RpsOpponent extends Opponent {

  /**
   * Picks the opponent's move for the next round.
   *
   * @param state the match so far, from the agent's point of view ({@link RpsEnvironment.Round#opponent()} is this
   *     opponent's move)
   * @param random the environment's seeded generator
   * @return the move, never null
   */
  Move play(State state, Random random);

  /** The opponents that come with the example. Each has a habit an agent can discover and exploit. */
  enum Builtin implements RpsOpponent {

    /** Always plays rock. Exploited by paper from the first round on, once recognised. */
    ALWAYS_ROCK("always-rock", "always plays rock") {
      @Override
      public Move play(State state, Random random) {
        return Move.ROCK;
      }
    },

    /** Opens at random, then steps through rock, paper, scissors, rock, ... from its own previous move. */
    CYCLE("cycle", "opens at random, then plays rock -> paper -> scissors -> rock ... from its last move") {
      @Override
      public Move play(State state, Random random) {
        return state.lastRound().map(r -> r.opponent().beatenBy()).orElseGet(() -> Move.random(random));
      }
    },

    /** Opens at random, then repeats the agent's previous move. */
    MIRROR("mirror", "opens at random, then plays the agent's previous move") {
      @Override
      public Move play(State state, Random random) {
        return state.lastRound().map(RpsEnvironment.Round::agent).orElseGet(() -> Move.random(random));
      }
    },

    /** Plays each move with probability 1/3; no strategy beats it on average. */
    UNIFORM("uniform", "plays rock, paper or scissors uniformly at random") {
      @Override
      public Move play(State state, Random random) {
        return Move.random(random);
      }
    },

    /**
     * Opens at random, then plays the move that beats the agent's previous move. Held out of training: a policy
     * that learned to adapt rather than to memorise the training opponents should still exploit it.
     */
    BEAT_LAST("beat-last", "opens at random, then plays what beats the agent's previous move") {
      @Override
      public Move play(State state, Random random) {
        return state.lastRound().map(r -> r.agent().beatenBy()).orElseGet(() -> Move.random(random));
      }
    };

    private final String id;
    private final String description;

    Builtin(String id, String description) {
      this.id = id;
      this.description = description;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String description() {
      return description;
    }
  }
}
