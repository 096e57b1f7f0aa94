package org.magejvm.impl.env.kuhn;

import java.util.Objects;
import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.ScriptedPolicy;

/**
 * A scripted policy that plays a {@link KuhnStrategy} from the {@link KuhnState} in each play request. Mixed
 * choices are drawn from the policy's own seeded generator; pure ones draw nothing.
 */
@Api(status = Api.Status.INTERNAL)
public final class KuhnStrategyPolicy extends ScriptedPolicy {

  private final KuhnStrategy strategy;

  /**
   * @param name the policy's name
   * @param strategy the strategy it plays
   * @param seed the seed of its generator
   */
  public KuhnStrategyPolicy(String name, KuhnStrategy strategy, long seed) {
    super(name, seed);
    this.strategy = Objects.requireNonNull(strategy, "strategy");
  }

  /**
   * The equilibrium player with alpha = 0 (it never bluffs as player 0).
   *
   * @param seed the seed of its generator
   * @return the policy, named {@code nash}
   */
  public static KuhnStrategyPolicy nash(long seed) {
    return nash(0, seed);
  }

  /**
   * An equilibrium player of the alpha family ({@link KuhnStrategyTable#nash(double)}).
   *
   * @param alpha the family parameter, in [0, 1/3]
   * @param seed the seed of its generator
   * @return the policy, named {@code nash}
   */
  public static KuhnStrategyPolicy nash(double alpha, long seed) {
    return new KuhnStrategyPolicy("nash", KuhnStrategyTable.nash(alpha), seed);
  }

  /** @return the strategy this policy plays */
  public KuhnStrategy strategy() {
    return strategy;
  }

  @Override
  protected String chooseAction(PolicyRequest request, Random random) {
    KuhnState state = KuhnState.of(request, name());
    if (state.done()) {
      throw new IllegalArgumentException("the Kuhn Poker policy '" + name() + "' was asked to act after the hand"
          + " ended (history '" + state.history() + "', worker '" + request.workerKey() + "')");
    }
    double p = strategy.betProbability(state.agentCard(), state.history());
    boolean bet = p >= 1 || (p > 0 && random.nextDouble() < p);
    return bet ? KuhnAction.BET.text() : KuhnAction.PASS.text();
  }

  @Override
  protected String reflect(PolicyRequest request, Random random) {
    return "I follow a fixed strategy for each card and betting line; I will keep playing it.";
  }
}
