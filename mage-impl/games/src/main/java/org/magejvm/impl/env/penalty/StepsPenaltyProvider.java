package org.magejvm.impl.env.penalty;

import java.util.Map;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.small.HiddenNumberProvider;

/**
 * Penalty Shoot-out, steps ({@code mage-penalty-steps}): the game where generalizing to unseen strikers can be told
 * apart from trading training saves for held-out ones. The rules and options are {@code mage-penalty}'s ({@link
 * PenaltyProvider}, binary scoring by default) with 7 spots by default (7 to 9: with fewer, a step of 3 is a training
 * striker's step the other way round) and its own strikers ({@link PenaltyStrikers#STEPS_POPULATION}: training {@code
 * fixed}, {@code step+1}, {@code step-1}, {@code step+2}, {@code step-2}; held out {@code step+3}, {@code step-3}).
 *
 * <p>With the defaults (7 spots, 3 attempts) the best history-blind keeper saves 3/7 = 0.429 within 3 attempts on
 * either set, the best adaptive keeper always does on either set, and one keeper does both (dive as far on from the
 * last shot as the last shot was from the one before): unlike the two other Penalty Shoot-out games, the training
 * population's optimal keepers can save every held-out striker, and what they do there is not fixed by the training
 * population: from 1/7 = 0.143 to 1 ({@link PenaltyTransfer}), because the held-out strikers' second shots land where
 * no training striker's does. A keeper above the held-out blind ceiling has therefore carried the habit (a step, read
 * from two shots) to a step it never saw.
 */
public final class StepsPenaltyProvider extends BaseEnvironmentProvider<PenaltyEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-penalty-steps";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The default number of spots. */
  public static final int DEFAULT_SPOTS = 7;
  /** The fewest spots: with fewer, a held-out step of 3 shoots as a training striker does. */
  public static final int SMALLEST_SPOTS = 7;

  private static final HiddenNumberProvider.SizeOption SPOTS =
      PenaltyProvider.spotsOption(DEFAULT_SPOTS, SMALLEST_SPOTS);

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public StepsPenaltyProvider() {
    super(PenaltyProvider.settings(ID, VERSION, PenaltyStrikers.STEPS_POPULATION, Scoring.BINARY,
        "Penalty Shoot-out, steps: strikers that step 0, 1 or 2 spots either way every penalty to train on, steps of"
            + " 3 held out, 7 spots: a keeper above the held-out blind ceiling has carried the step to one it never"
            + " saw", SPOTS));
  }

  /**
   * @throws IllegalArgumentException naming the option when {@code spots} is not a whole number from 7 to 9 or {@code
   *     scoring} is neither {@code binary} nor {@code graded}
   */
  @Override
  protected PenaltyEnvironment newEnvironment(Map<String, String> options) {
    return PenaltyProvider.create(ID, options, Scoring.BINARY, SPOTS);
  }
}
