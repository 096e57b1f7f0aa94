package org.magejvm.impl.env.sokoban;

import java.util.List;
import java.util.Map;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;

/**
 * The built-in Sokoban environment, id {@value #ID}. Options: see {@link SokobanConfig#OPTIONS}. Single-player: the
 * opponent pool is empty. Scripted policies: {@code random} ({@link SokobanRandomPolicy}) and {@code solver}
 * ({@link SokobanSolverPolicy}).
 */
public final class SokobanProvider implements EnvironmentProvider {

  /** The provider id. */
  public static final String ID = "mage-sokoban";
  /** The provider version. */
  public static final String VERSION = "0.1.0";

  private static final List<String> POLICIES = List.of("random", "solver");
  private static final OpponentPool NO_OPPONENTS = OpponentPool.builder().build();
  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(7).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.9)
      .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(4096)
      .build();

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public SokobanProvider() {}

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
    return "Sokoban: push every box onto a target in a small generated room, several moves per turn";
  }

  /**
   * @throws IllegalArgumentException naming the option and value when one is unknown, not an integer or out of
   *     range
   */
  @Override
  public Environment create(Map<String, String> options) {
    return new SokobanEnvironment(ID, SokobanConfig.fromOptions(options));
  }

  @Override
  public Map<String, String> options() {
    return SokobanConfig.OPTIONS;
  }

  /** @return the reference Sokoban settings: 7 turns, 3 episodes, discounts 0.95 and 0.9, penalties 0.5 and 1.0 */
  @Override
  public EnvironmentDefaults defaults() {
    return DEFAULTS;
  }

  /** @return an empty pool: Sokoban has no opponent */
  @Override
  public OpponentPool opponents() {
    return NO_OPPONENTS;
  }

  @Override
  public boolean twoPlayer() {
    return false;
  }

  @Override
  public List<String> scriptedPolicies() {
    return POLICIES;
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    if ("random".equals(name)) {
      return new SokobanRandomPolicy(seed);
    }
    if ("solver".equals(name)) {
      return new SokobanSolverPolicy(seed);
    }
    throw new IllegalArgumentException(
        "unknown scripted policy '" + name + "' for " + ID + "; known policies: " + POLICIES);
  }
}
