package org.magejvm.spi;

import java.util.List;
import java.util.Map;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;

/**
 * A test environment provider, declared in {@code src/test/resources/META-INF/services}. The registry never
 * creates environments, so {@link #create} and {@link #scriptedPolicy} only reject their input.
 */
public class CoinRowProvider implements EnvironmentProvider {

  private final String id;
  private final OpponentPool opponents;

  /** The provider found through the services file: id {@code coin-row}, no opponents. */
  public CoinRowProvider() {
    this("coin-row", OpponentPool.builder().build());
  }

  /**
   * @param id the id to report
   * @param opponents the opponents to report
   */
  public CoinRowProvider(String id, OpponentPool opponents) {
    this.id = id;
    this.opponents = opponents;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String version() {
    return "0.0.1";
  }

  @Override
  public String description() {
    return "take coins from either end of a row";
  }

  @Override
  public Environment create(Map<String, String> options) {
    throw new IllegalArgumentException("the registry tests create no environments, got options " + options);
  }

  @Override
  public EnvironmentDefaults defaults() {
    return EnvironmentDefaults.builder()
        .setMaxTurns(5).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
        .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(64)
        .build();
  }

  @Override
  public OpponentPool opponents() {
    return opponents;
  }

  @Override
  public List<String> scriptedPolicies() {
    return List.of("random");
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    throw new IllegalArgumentException("unknown scripted policy '" + name + "'; known: " + scriptedPolicies());
  }
}
