package org.magejvm.impl.env.tictactoe;

import java.util.List;
import java.util.Map;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;

/**
 * The built-in Tic-Tac-Toe game, id {@code mage-tictactoe}.
 *
 * <p>The training population mirrors what the reference actually trained against (7 of its 16 episode groups
 * faced a real 100-simulation MCTS, 6 the preferred-position players and 3 a random player): {@code mcts-100}
 * weight 7, each of the six preferred-position players weight 1, {@code random} weight 3. Held out for evaluation:
 * {@code mcts-1000} and the perfect {@code minimax}. The reference evaluates against {@code mcts-100} with the agent
 * moving first. The game takes no options.
 */
public final class TicTacToeProvider implements EnvironmentProvider {

  /** The provider id. */
  public static final String ID = "mage-tictactoe";
  /** The provider version. */
  public static final String VERSION = "0.1.0";

  private static final List<String> POLICIES = List.of("random", MinimaxPolicy.NAME);
  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(8).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(0.5).setLengthPenalty(2.0).setMaxResponseTokens(3072)
      .build();
  private static final OpponentPool POOL = buildPool();

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public TicTacToeProvider() {}

  private static OpponentPool buildPool() {
    OpponentPool.Builder b = OpponentPool.builder().addOpponent(new MctsOpponent(100), 7);
    for (PreferredPositionOpponent p : PreferredPositionOpponent.builtIns()) {
      b.addOpponent(p, 1);
    }
    return b.addOpponent(new RandomOpponent(), 3)
        .addHeldOut(new MctsOpponent(1000))
        .addHeldOut(new MinimaxOpponent())
        .build();
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public String description() {
    return "Tic-Tac-Toe on a 3x3 board; the agent plays X against MCTS, preferred-position, random and minimax"
        + " opponents";
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException naming the first option given: Tic-Tac-Toe has none
   */
  @Override
  public Environment create(Map<String, String> options) {
    if (options != null && !options.isEmpty()) {
      String name = options.keySet().iterator().next();
      throw new IllegalArgumentException("unknown option '" + name + "' for environment " + ID
          + ": Tic-Tac-Toe takes no options (got " + options.keySet() + ")");
    }
    return new TicTacToeEnvironment();
  }

  @Override
  public Map<String, String> options() {
    return Map.of();
  }

  @Override
  public EnvironmentDefaults defaults() {
    return DEFAULTS;
  }

  @Override
  public OpponentPool opponents() {
    return POOL;
  }

  @Override
  public String evaluationOpponent() {
    return "mcts-100";
  }

  @Override
  public Seat evaluationSeat() {
    return Seat.FIRST;
  }

  @Override
  public List<String> scriptedPolicies() {
    return POLICIES;
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    if ("random".equals(name)) {
      return new RandomPolicy(seed);
    }
    if (MinimaxPolicy.NAME.equals(name)) {
      return new MinimaxPolicy(seed);
    }
    throw new IllegalArgumentException("unknown scripted policy '" + name + "' for environment " + ID
        + "; known policies: " + String.join(", ", POLICIES));
  }
}
