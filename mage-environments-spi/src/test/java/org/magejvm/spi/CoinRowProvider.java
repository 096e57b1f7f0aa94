package org.magejvm.spi;

import java.util.Map;
import org.magejvm.api.OpponentPool;

/**
 * A test environment provider, declared in {@code src/test/resources/META-INF/services}. The registry never
 * creates environments or policies, so {@link #newEnvironment} and the {@code random} policy only reject their input.
 */
public class CoinRowProvider extends BaseEnvironmentProvider<Environment> {

  /** The provider found through the services file: id {@code coin-row}, no opponents. */
  public CoinRowProvider() {
    this("coin-row", OpponentPool.builder().build());
  }

  /**
   * @param id the id to report
   * @param opponents the opponents to report
   */
  public CoinRowProvider(String id, OpponentPool opponents) {
    super(settings(id, "0.0.1")
        .optDescription("take coins from either end of a row")
        .setDefaults(EnvironmentDefaults.builder()
            .setMaxTurns(5).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
            .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(64)
            .build())
        .optOpponents(opponents)
        .addScriptedPolicy("random", seed -> {
          throw new IllegalArgumentException("the registry tests create no policies");
        }));
  }

  @Override
  protected Environment newEnvironment(Map<String, String> options) {
    throw new IllegalArgumentException("the registry tests create no environments, got options " + options);
  }
}
