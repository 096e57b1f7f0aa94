package org.magejvm.impl.env.sokoban;

import java.util.Map;
import org.magejvm.api.annotation.Api;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.EnvironmentDefaults;

/**
 * The built-in Sokoban environment, id {@value #ID}. Options: see {@link SokobanConfig#OPTIONS}. Single-player: the
 * opponent pool is empty. Scripted policies: {@code random} ({@link SokobanRandomPolicy}) and {@code solver}
 * ({@link SokobanSolverPolicy}).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class SokobanProvider extends BaseEnvironmentProvider<SokobanEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-sokoban";
  /** The provider version. */
  public static final String VERSION = "0.1.0";

  /** The reference Sokoban settings: 7 turns, 3 episodes, discounts 0.95 and 0.9, penalties 0.5 and 1.0. */
  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(7).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.9)
      .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(4096)
      .build();

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public SokobanProvider() {
    super(settings(ID, VERSION)
        .optDescription("Sokoban: push every box onto a target in a small generated room, several moves per turn")
        .setDefaults(DEFAULTS)
        .addOptions(SokobanConfig.OPTIONS)
        .addScriptedPolicy("random", SokobanRandomPolicy::new)
        .addScriptedPolicy("solver", SokobanSolverPolicy::new));
  }

  /**
   * @throws IllegalArgumentException naming the option and value when one is not an integer or out of range
   */
  @Override
  protected SokobanEnvironment newEnvironment(Map<String, String> options) {
    return new SokobanEnvironment(ID, SokobanConfig.fromOptions(options));
  }
}
