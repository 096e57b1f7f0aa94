package org.magejvm.testkit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.magejvm.api.Episode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.policy.ScriptedPolicy;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.PromptContext;

/**
 * Provider of {@link ToyDuel}. Options: {@code explode_at} (reset, restart, step, renderer), {@code explode_seed},
 * {@code explode_episode}, {@code explode_turn}: the environment whose task seed matches throws there.
 */
public final class ToyDuelProvider extends BaseEnvironmentProvider<ToyDuel> {

  /** The id. */
  public static final String ID = "toy-duel";
  /** The defaults: 4 turns, 3 episodes, 0.95/0.6, invalid 0.5, length 2.0, 16 tokens. */
  public static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(4).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(0.5).setLengthPenalty(2.0).setMaxResponseTokens(16)
      .build();

  private final List<PromptContext> contexts = new CopyOnWriteArrayList<>();
  private final Consumer<PromptContext> sink = contexts::add;
  private final AtomicInteger closed = new AtomicInteger();

  /** @return how many environments of this provider were closed */
  public int closed() {
    return closed.get();
  }

  /** @return every prompt context rendered by environments of this provider, in order */
  public List<PromptContext> contexts() {
    return contexts;
  }

  /** The provider, as {@link java.util.ServiceLoader} creates it. */
  public ToyDuelProvider() {
    super(settings(ID, "1")
        .setDefaults(DEFAULTS)
        .optOpponents(OpponentPool.builder()
            .addOpponent(DuelOpponent.greedy(), 1.0)
            .addOpponent(DuelOpponent.patient(), 1.0)
            .addHeldOut(DuelOpponent.coin())
            .build())
        .optEvaluationOpponent("greedy")
        .optEvaluationSeat(Seat.FIRST)
        .addOption("explode_at", "reset, restart, step or renderer: where the environment of explode_seed throws")
        .addOption("explode_seed", "the task seed whose environment throws")
        .addOption("explode_episode", "the episode in which it throws (step only)")
        .addOption("explode_turn", "the turn at which it throws (step only)")
        .addScriptedPolicy("random", RandomPolicy::new)
        .addScriptedPolicy("learner", Learner::new)
        .addScriptedPolicy("stubborn", seed -> new Fixed("stubborn", "1", seed))
        .addScriptedPolicy("passer", seed -> new Fixed("passer", "pass", seed))
        .addScriptedPolicy("garbage", seed -> new Garbage()));
  }

  @Override
  protected ToyDuel newEnvironment(Map<String, String> options) {
    return new ToyDuel(options, sink, closed::incrementAndGet);
  }

  /** Guesses the smallest number not ruled out now and not guessed wrongly in an earlier episode. */
  public static final class Learner extends ScriptedPolicy {
    /** @param seed unused randomness seed */
    public Learner(long seed) {
      super("learner", seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      ToyDuel.DuelState state = (ToyDuel.DuelState) request.state();
      Set<String> wrong = new HashSet<>();
      for (Episode e : request.pastEpisodes()) {
        for (Turn t : e.turns()) {
          if (t.valid() && !t.won()) {
            wrong.add(t.action());
          }
        }
      }
      for (int n = 1; n <= 3; n++) {
        if (!state.ruledOut().contains(n) && !wrong.contains(Integer.toString(n))) {
          return Integer.toString(n);
        }
      }
      return "pass";
    }
  }

  /** Always answers the same action. */
  public static final class Fixed extends ScriptedPolicy {
    private final String action;

    /**
     * @param name the policy name
     * @param action the action
     * @param seed unused randomness seed
     */
    public Fixed(String name, String action, long seed) {
      super(name, seed);
      this.action = action;
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return action;
    }
  }

  /** Answers text without any tags. */
  public static final class Garbage implements LanguagePolicy {
    @Override
    public String name() {
      return "garbage";
    }

    @Override
    public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
      List<Generation> out = new ArrayList<>();
      for (int i = 0; i < requests.size(); i++) {
        out.add(Generation.ofText("I am not sure what to do."));
      }
      return out;
    }
  }
}
