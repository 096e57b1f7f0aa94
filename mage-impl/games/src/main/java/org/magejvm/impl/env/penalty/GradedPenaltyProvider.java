package org.magejvm.impl.env.penalty;

import java.util.Map;
import org.magejvm.spi.BaseEnvironmentProvider;

/**
 * Penalty Shoot-out, graded ({@code mage-penalty-graded}): the game where theory separates MAGE from LaMer. The rules
 * and options are {@code mage-penalty}'s ({@link PenaltyProvider}) with graded scoring by default (a near miss, one
 * spot beside the shot, scores half a save and does not win) and its own strikers ({@link
 * PenaltyStrikers#GRADED_POPULATION}: training {@code fixed}, {@code step+2}, {@code alternate+2}, {@code copy}; held
 * out {@code step+1}, {@code step-2}, {@code alternate-2}, {@code copy+1}).
 *
 * <p>MAGE's undiscounted differential return is the last attempt's score, LaMer's cumulative one the sum of the
 * attempts' scores; their optima differ here ({@link PenaltyObjectives}): with 5 spots and 3 attempts the
 * final-attempt optimum reaches Pass@3 1 and a final-attempt score of 1, the cumulative optimum Pass@3 0.75, a
 * final-attempt score of 0.875 and the higher cumulative score (1.4 against 1.25). With {@code scoring=binary} the two
 * objectives coincide. The history-blind keeper saves within 3 attempts with probability 0.65, the adaptive one always
 * ({@link PenaltyCeilings}), on the training and the held-out strikers alike. Its scripted keepers are {@code
 * mage-penalty}'s, planning against this game's training population.
 */
public final class GradedPenaltyProvider extends BaseEnvironmentProvider<PenaltyEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-penalty-graded";
  /** The provider version. */
  public static final String VERSION = "0.1.0";

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public GradedPenaltyProvider() {
    super(PenaltyProvider.settings(ID, VERSION, PenaltyStrikers.GRADED_POPULATION, Scoring.GRADED,
        "Penalty Shoot-out, graded: a near miss scores half a save; strikers whose second shots coincide and third"
            + " ones part, so the optima of MAGE's final-attempt objective and LaMer's cumulative one differ"));
  }

  /**
   * @throws IllegalArgumentException naming the option when {@code spots} is not a whole number from 3 to 9 or {@code
   *     scoring} is neither {@code binary} nor {@code graded}
   */
  @Override
  protected PenaltyEnvironment newEnvironment(Map<String, String> options) {
    return PenaltyProvider.create(ID, options, Scoring.GRADED);
  }
}
