package com.example.test;

import java.util.List;
import java.util.Map;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.examples.plugin.RpsProvider;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;

/**
 * A third-party provider outside {@code org.magejvm} that plays the example game under an id of its choosing, for
 * the registry's id checks.
 */
abstract class DelegatingRpsProvider implements EnvironmentProvider {

  private final RpsProvider game = new RpsProvider();

  @Override
  public String version() {
    return "0.0.1";
  }

  @Override
  public Environment create(Map<String, String> options) {
    return game.create(options);
  }

  @Override
  public EnvironmentDefaults defaults() {
    return game.defaults();
  }

  @Override
  public OpponentPool opponents() {
    return game.opponents();
  }

  @Override
  public List<String> scriptedPolicies() {
    return game.scriptedPolicies();
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    return game.scriptedPolicy(name, seed);
  }
}
