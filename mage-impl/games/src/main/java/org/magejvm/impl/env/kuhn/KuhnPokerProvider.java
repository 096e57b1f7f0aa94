package org.magejvm.impl.env.kuhn;

import java.util.Map;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * The built-in Kuhn Poker environment, id {@code mage-kuhn-poker}, with the reference's settings: training against
 * {@code conservative} (weight 0.3), {@code aggressive} (0.3) and {@code intermediate} (0.4); {@code cfr} and
 * {@code cfr-mixed} held out; evaluation against {@code cfr} with the agent as player 1. One option, {@value
 * #OPT_REWARD}: {@code chips} (the default and the reference's: 5 per chip) or {@code win-loss} (+5 for a won hand, -5
 * for a lost one; see {@link KuhnPokerEnvironment.RewardMode}).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class KuhnPokerProvider extends BaseEnvironmentProvider<KuhnPokerEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-kuhn-poker";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The option choosing the reward: {@code chips} or {@code win-loss}. */
  public static final String OPT_REWARD = "reward";
  /** Name of the scripted policy choosing uniformly between PASS and BET. */
  public static final String RANDOM_POLICY = "random";
  /** Name of the scripted equilibrium policy (alpha = 0). */
  public static final String NASH_POLICY = "nash";
  /** Name of the scripted player that switches to an untried line after a lost attempt. */
  public static final String ADAPTIVE_POLICY = "adaptive";
  /** Name of the scripted player that plays the optimum of MAGE's training objective against the pool. */
  public static final String OPTIMUM_POLICY = "objective-optimum";
  /** Name of the scripted player that repeats its first line in every attempt. */
  public static final String FIXED_LINE_POLICY = "fixed-line";

  private static final OpponentPool POOL = OpponentPool.builder()
      .addOpponent(KuhnOpponents.conservative(), 0.3)
      .addOpponent(KuhnOpponents.aggressive(), 0.3)
      .addOpponent(KuhnOpponents.intermediate(), 0.4)
      .addHeldOut(KuhnOpponents.cfr())
      .addHeldOut(KuhnOpponents.cfrMixed())
      .build();

  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(6).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(2.0).setLengthPenalty(2.0).setMaxResponseTokens(8192)
      .build();

  /** The provider, as {@link java.util.ServiceLoader} creates it. */
  public KuhnPokerProvider() {
    super(settings(ID, VERSION)
        .optDescription("Kuhn Poker (OpenSpiel rules): three cards, one betting round, rule-based and CFR opponents")
        .setDefaults(DEFAULTS)
        .optOpponents(POOL)
        .optEvaluationOpponent(KuhnOpponents.CFR)
        .optEvaluationSeat(Seat.SECOND)
        .addOption(OPT_REWARD, "chips (5 per chip won or lost, the reference's) or win-loss (+5 won, -5 lost)"
            + " (default chips)")
        .addScriptedPolicy(RANDOM_POLICY, RandomPolicy::new)
        .addScriptedPolicy(NASH_POLICY, KuhnStrategyPolicy::nash)
        .addScriptedPolicy(ADAPTIVE_POLICY, KuhnLinePolicy::adaptive)
        .addScriptedPolicy(FIXED_LINE_POLICY, KuhnLinePolicy::fixed)
        .addScriptedPolicy(OPTIMUM_POLICY, KuhnOptimumPolicy::reference));
  }

  @Override
  protected KuhnPokerEnvironment newEnvironment(Map<String, String> options) {
    return new KuhnPokerEnvironment(KuhnPokerEnvironment.RewardMode.parse(options.getOrDefault(OPT_REWARD, "chips")));
  }
}
