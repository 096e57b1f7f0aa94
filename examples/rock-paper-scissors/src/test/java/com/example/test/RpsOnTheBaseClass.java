package com.example.test;

import java.util.Map;
import org.magejvm.examples.plugin.RpsEnvironment;
import org.magejvm.examples.plugin.RpsOpponent;
import org.magejvm.examples.plugin.RpsProvider;
import org.magejvm.examples.plugin.RpsProvider.CounterPolicy;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * The example's provider written on {@link BaseEnvironmentProvider}, as docs/plugins.md shows it; under its own id so
 * that it can sit next to the real one. {@code RpsProviderTest} checks that the two report the same.
 */
public final class RpsOnTheBaseClass extends BaseEnvironmentProvider<RpsEnvironment> {

  /** For {@link java.util.ServiceLoader}. */
  public RpsOnTheBaseClass() {
    super(settings("rps-on-the-base-class", RpsProvider.VERSION)
        .optDescription("Rock-Paper-Scissors, " + RpsEnvironment.ROUNDS + "-round matches against opponents with"
            + " habits (example plugin)")
        .setDefaults(new RpsProvider().defaults())
        .optOpponents(new RpsProvider().opponents())
        .optEvaluationOpponent(RpsOpponent.Builtin.BEAT_LAST.id())
        .addScriptedPolicy(RpsProvider.RANDOM_POLICY, RandomPolicy::new)
        .addScriptedPolicy(RpsProvider.COUNTER_POLICY, CounterPolicy::new));
  }

  @Override
  protected RpsEnvironment newEnvironment(Map<String, String> options) {
    return new RpsEnvironment();
  }
}
