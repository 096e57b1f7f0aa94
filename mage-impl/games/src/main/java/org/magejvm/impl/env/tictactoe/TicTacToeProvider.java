package org.magejvm.impl.env.tictactoe;

import java.util.Map;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * The built-in Tic-Tac-Toe game, id {@code mage-tictactoe}.
 *
 * <p>The training population mirrors what the reference actually trained against (7 of its 16 episode groups
 * faced a real 100-simulation MCTS, 6 the preferred-position players and 3 a random player): {@code mcts-100}
 * weight 7, each of the six preferred-position players weight 1, {@code random} weight 3. Held out for evaluation:
 * {@code mcts-1000} and the perfect {@code minimax}. The reference evaluates against {@code mcts-100} with the agent
 * moving first; trainers validate against {@code mcts-100} and {@code mcts-1000}, the agent first. The game takes no
 * options.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class TicTacToeProvider extends BaseEnvironmentProvider<TicTacToeEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-tictactoe";
  /** The provider version. */
  public static final String VERSION = "0.1.0";

  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(8).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(0.5).setLengthPenalty(2.0).setMaxResponseTokens(3072)
      .build();
  private static final OpponentPool POOL = buildPool();

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public TicTacToeProvider() {
    super(settings(ID, VERSION)
        .optDescription("Tic-Tac-Toe on a 3x3 board; the agent plays X against MCTS, preferred-position, random and"
            + " minimax opponents")
        .setDefaults(DEFAULTS)
        .optOpponents(POOL)
        .optEvaluationOpponent("mcts-100")
        .optEvaluationSeat(Seat.FIRST)
        .addValidationOpponent("mcts-1000")
        .addScriptedPolicy("random", RandomPolicy::new)
        .addScriptedPolicy(MinimaxPolicy.NAME, MinimaxPolicy::new));
  }

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
  protected TicTacToeEnvironment newEnvironment(Map<String, String> options) {
    return new TicTacToeEnvironment();
  }
}
