package org.magejvm.impl.env.guess;

import org.magejvm.api.annotation.Api;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.small.HiddenNumberProvider;

/**
 * Guess the Number ({@code mage-guess-number}), the meta-learning sanity game: a hidden whole number from 1 to {@code
 * max} (option, default 7) stays the same in every attempt of a meta-episode; one guess per attempt; a wrong guess is
 * answered "too low" or "too high". It exists because success rates can show learning within the meta-episode here
 * and cannot on the games' pools: the best player that ignores its earlier attempts finds the number within 3 attempts
 * with probability 3/7 = 0.429, the best one that reads them (binary search) always does ({@link
 * GuessNumberCeilings}).
 *
 * <p>Scripted players: {@code random} (a uniform guess each attempt: 1 - (6/7)^3 = 0.370), {@code middle} (always the
 * middle of the range: 1/7), {@code sweep} (a different number each attempt, the best history-blind player) and
 * {@code bisect} (binary search over the clues of the earlier attempts, the best adaptive player).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class GuessNumberProvider extends HiddenNumberProvider<GuessNumberEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-guess-number";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The option that sets the range. */
  public static final String MAX_OPTION = "max";
  /** The default range: 1 to 7, which binary search covers in 3 guesses. */
  public static final int DEFAULT_MAX = 7;
  /** The largest range the option accepts. */
  public static final int LARGEST_MAX = 64;
  /** The uniform history-blind player. */
  public static final String RANDOM_POLICY = "random";
  /** The deterministic history-blind player. */
  public static final String MIDDLE_POLICY = "middle";
  /** The best history-blind player: a different number in each attempt. */
  public static final String SWEEP_POLICY = "sweep";
  /** The binary-search player. */
  public static final String BISECT_POLICY = "bisect";

  /** One guess per attempt, 3 attempts, the games' discounts and penalties, short answers. */
  private static final EnvironmentDefaults DEFAULTS = smallGameDefaults().build();

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public GuessNumberProvider() {
    super(settings(ID, VERSION)
        .optDescription("Guess the Number: a hidden number stays the same in every attempt; each wrong guess is"
            + " answered too low or too high (the meta-learning sanity game)")
        .setDefaults(DEFAULTS)
        .addScriptedPolicy(RANDOM_POLICY, RandomPolicy::new)
        .addScriptedPolicy(MIDDLE_POLICY, GuessNumberPolicies.Middle::new)
        .addScriptedPolicy(SWEEP_POLICY, GuessNumberPolicies.Sweep::new)
        .addScriptedPolicy(BISECT_POLICY, GuessNumberPolicies.Bisect::new),
        new SizeOption(MAX_OPTION, "the largest number", DEFAULT_MAX, 2, LARGEST_MAX));
  }

  @Override
  protected GuessNumberEnvironment newEnvironment(int max) {
    return new GuessNumberEnvironment(max);
  }
}
