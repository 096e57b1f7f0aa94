package org.magejvm.impl.env.kuhn;

import java.util.List;
import java.util.Map;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;

/**
 * The built-in Kuhn Poker environment, id {@code mage-kuhn-poker}, with the reference's settings: training against
 * {@code conservative} (weight 0.3), {@code aggressive} (0.3) and {@code intermediate} (0.4); {@code cfr} and
 * {@code cfr-mixed} held out; evaluation against {@code cfr} with the agent as player 1. It takes no options.
 */
public final class KuhnPokerProvider implements EnvironmentProvider {

  /** The provider id. */
  public static final String ID = "mage-kuhn-poker";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** Name of the scripted policy choosing uniformly between PASS and BET. */
  public static final String RANDOM_POLICY = "random";
  /** Name of the scripted equilibrium policy (alpha = 0). */
  public static final String NASH_POLICY = "nash";
  /** Name of the scripted player that switches to an untried line after a lost attempt. */
  public static final String ADAPTIVE_POLICY = "adaptive";
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
  public KuhnPokerProvider() {}

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
    return "Kuhn Poker (OpenSpiel rules): three cards, one betting round, rule-based and CFR opponents";
  }

  @Override
  public KuhnPokerEnvironment create(Map<String, String> options) {
    if (options != null && !options.isEmpty()) {
      throw new IllegalArgumentException(ID + " takes no options, but got " + options.keySet());
    }
    return new KuhnPokerEnvironment();
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
    return KuhnOpponents.CFR;
  }

  @Override
  public Seat evaluationSeat() {
    return Seat.SECOND;
  }

  @Override
  public List<String> scriptedPolicies() {
    return List.of(RANDOM_POLICY, NASH_POLICY, ADAPTIVE_POLICY, FIXED_LINE_POLICY);
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    if (RANDOM_POLICY.equals(name)) {
      return new RandomPolicy(seed);
    }
    if (NASH_POLICY.equals(name)) {
      return KuhnStrategyPolicy.nash(seed);
    }
    if (ADAPTIVE_POLICY.equals(name)) {
      return KuhnLinePolicy.adaptive(seed);
    }
    if (FIXED_LINE_POLICY.equals(name)) {
      return KuhnLinePolicy.fixed(seed);
    }
    throw new IllegalArgumentException("unknown " + ID + " scripted policy '" + name + "'; known policies: "
        + scriptedPolicies());
  }
}
