package org.magejvm.examples.plugin;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.PolicyRequest;
import org.magejvm.examples.plugin.RpsEnvironment.Move;
import org.magejvm.examples.plugin.RpsEnvironment.Round;
import org.magejvm.examples.plugin.RpsEnvironment.State;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.policy.ScriptedPolicy;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;

/**
 * Describes the Rock-Paper-Scissors game and creates its environments: the second of the two classes a game needs.
 *
 * <p>The id is {@value #ID}. Third-party ids must not start with {@code mage-}: the registry keeps that prefix for
 * the games built into the library and rejects it from any class outside {@code org.magejvm}. The provider is listed
 * in {@code META-INF/services/org.magejvm.spi.EnvironmentProvider}, so {@code EnvironmentRegistry.discover()} (and
 * {@code mage envs}) find it; a host may instead call {@code EnvironmentRegistry.empty().register(new
 * RpsProvider())}.
 *
 * <p>Opponents: training against {@code always-rock} (weight 0.3), {@code cycle} (0.3), {@code mirror} (0.2) and
 * {@code uniform} (0.2); {@code beat-last} is held out and is the evaluation opponent. Scripted policies: {@value
 * #RANDOM_POLICY} and {@value #COUNTER_POLICY} ({@link CounterPolicy}). The game takes no options. Stateless and
 * thread-safe; {@link java.util.ServiceLoader} needs the public no-argument constructor.
 *
 * <p>This tutorial implements {@link EnvironmentProvider} method by method, so that every part of the contract is in
 * sight. A game of your own can extend {@link org.magejvm.spi.BaseEnvironmentProvider} instead, which answers the
 * descriptive methods from settings given once, rejects unknown options and looks scripted policies up by name; the
 * built-in games do. docs/plugins.md shows this provider written that way (tested as {@code RpsOnTheBaseClass}).
 */
public final class RpsProvider implements EnvironmentProvider {

  /** The provider id. */
  public static final String ID = "rps";
  /** The provider version. */
  public static final String VERSION = "1.0.0";
  /** Name of the scripted policy that picks uniformly among the legal moves. */
  public static final String RANDOM_POLICY = "random";
  /** Name of the scripted policy that predicts the opponent from the rounds seen so far and beats it. */
  public static final String COUNTER_POLICY = "counter";

  /**
   * The training population and the held-out opponent. The three deterministic habits make up 80% of the draws, so
   * most groups face an opponent that can be read and beaten; {@code uniform} (20%) is the control that cannot be
   * exploited, which keeps a policy from assuming that every opponent has a habit.
   */
  private static final OpponentPool POOL = OpponentPool.builder()
      .addOpponent(RpsOpponent.Builtin.ALWAYS_ROCK, 0.3)
      .addOpponent(RpsOpponent.Builtin.CYCLE, 0.3)
      .addOpponent(RpsOpponent.Builtin.MIRROR, 0.2)
      .addOpponent(RpsOpponent.Builtin.UNIFORM, 0.2)
      .addHeldOut(RpsOpponent.Builtin.BEAT_LAST)
      .build();

  /**
   * The settings a training or evaluation config starts from, and why:
   *
   * <ul>
   *   <li>{@code maxTurns = 6}: a match is {@value RpsEnvironment#ROUNDS} valid moves; three spare turns absorb
   *       unreadable answers (an invalid answer plays no round) before the episode is cut off;
   *   <li>{@code episodes = 3}, {@code stepGamma = 0.95}, {@code trajGamma = 0.6}: the reference's values for its
   *       two-player games (Tic-Tac-Toe and Kuhn Poker), which this game resembles: short episodes, reward at the
   *       end, an opponent to identify;
   *   <li>{@code invalidPenalty = 0.5}: every move is always legal, so an invalid turn can only be a formatting
   *       mistake; the reference's Tic-Tac-Toe value is enough to discourage it;
   *   <li>{@code lengthPenalty = 1.0} with {@code maxResponseTokens = 1024}: choosing a move needs little text, a
   *       small budget keeps rollouts cheap on a CPU, and the penalty (which starts at half the budget) discourages
   *       rambling without dominating the +-10 match reward.
   * </ul>
   */
  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(6).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(1024)
      .build();

  /** The provider, as {@link java.util.ServiceLoader} creates it. */
  public RpsProvider() {}

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
    return "Rock-Paper-Scissors, " + RpsEnvironment.ROUNDS + "-round matches against opponents with habits"
        + " (example plugin)";
  }

  @Override
  public RpsEnvironment create(Map<String, String> options) {
    if (options != null && !options.isEmpty()) {
      throw new IllegalArgumentException(ID + " takes no options, but got " + options.keySet());
    }
    return new RpsEnvironment();
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
    return RpsOpponent.Builtin.BEAT_LAST.id();
  }

  @Override
  public List<String> scriptedPolicies() {
    return List.of(RANDOM_POLICY, COUNTER_POLICY);
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    if (RANDOM_POLICY.equals(name)) {
      return new RandomPolicy(seed);
    }
    if (COUNTER_POLICY.equals(name)) {
      return new CounterPolicy(seed);
    }
    throw new IllegalArgumentException(
        "unknown " + ID + " scripted policy '" + name + "'; known policies: " + scriptedPolicies());
  }

  /**
   * A scripted player that reads the opponent from the current match and beats its predicted move.
   *
   * <p>It knows four habits, each predicting the opponent's move from the previous round: repeating its own move,
   * copying the agent's move, stepping to the move that beats its own move (the cycle rock, paper, scissors), and
   * playing what beats the agent's move. Before each round it counts, for every habit, how many of the opponent's
   * moves so far the habit would have predicted, follows the habit with the most hits (ties go to the earlier habit
   * in that list) and plays the move that beats the prediction. In round 1 there is nothing to read and it plays at
   * random.
   *
   * <p>After one round every habit has 0 hits, and after two rounds two habits usually fit equally well, so the
   * order decides a lot. Of the 24 orders, this one does best against the example's opponents: it wins every match
   * against {@code always-rock}, two in three against {@code cycle} (losing none), and two in three against {@code
   * mirror} and {@code beat-last}, where a random player wins about 37%.
   *
   * <p>It looks only at the current match, not at earlier episodes: it shows what adapting within one episode is
   * worth, while an agent that carries what it learned into the next episode can also win the first round.
   */
  public static final class CounterPolicy extends ScriptedPolicy {

    /** The habits the policy tests, in tie-breaking order. */
    public enum Habit {
      /** The opponent repeats its own previous move. */
      REPEAT(r -> r.opponent()),
      /** The opponent plays the agent's previous move. */
      MIRROR(r -> r.agent()),
      /** The opponent plays the move that beats its own previous move. */
      CYCLE(r -> r.opponent().beatenBy()),
      /** The opponent plays the move that beats the agent's previous move. */
      BEAT_LAST(r -> r.agent().beatenBy());

      private final Function<Round, Move> rule;

      Habit(Function<Round, Move> rule) {
        this.rule = rule;
      }

      /**
       * @param previous the previous round
       * @return the opponent's next move if it follows this habit
       */
      public Move predict(Round previous) {
        return rule.apply(previous);
      }

      /**
       * @param state a match
       * @return how many of the opponent's moves after the first this habit predicts correctly
       */
      public int hits(State state) {
        List<Round> played = state.played();
        int hits = 0;
        for (int i = 1; i < played.size(); i++) {
          if (predict(played.get(i - 1)) == played.get(i).opponent()) {
            hits++;
          }
        }
        return hits;
      }

      /**
       * @param state a match with at least one round played
       * @return the habit that predicts the most of the opponent's moves, the earliest one on ties
       */
      public static Habit best(State state) {
        Habit best = REPEAT;
        int bestHits = -1;
        for (Habit h : values()) {
          int hits = h.hits(state);
          if (hits > bestHits) {
            best = h;
            bestHits = hits;
          }
        }
        return best;
      }
    }

    /** @param seed the seed of the generator used for the first round */
    public CounterPolicy(long seed) {
      super(COUNTER_POLICY, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      State state = stateOf(request);
      if (state.played().isEmpty()) {
        return Move.random(random).text();
      }
      Round last = state.lastRound().orElseThrow();
      return Habit.best(state).predict(last).beatenBy().text();
    }

    @Override
    protected String reflect(PolicyRequest request, Random random) {
      if (!(request.state() instanceof State) || ((State) request.state()).played().size() < 2) {
        return "Too few rounds to read the opponent; watch its first picks next time.";
      }
      State state = (State) request.state();
      Habit habit = Habit.best(state);
      return "The opponent's picks fit the habit " + habit.name().toLowerCase(Locale.ROOT) + " in "
          + habit.hits(state) + " of " + (state.played().size() - 1) + " rounds; next time I will expect it"
          + " and play the move that beats it.";
    }

    private static State stateOf(PolicyRequest request) {
      if (!(request.state() instanceof State)) {
        throw new IllegalArgumentException("the " + COUNTER_POLICY + " policy reads the " + ID + " match state, but"
            + " the request for worker '" + request.workerKey() + "' carries "
            + (request.state() == null ? "none" : "a " + request.state().getClass().getName()));
      }
      return (State) request.state();
    }
  }
}
