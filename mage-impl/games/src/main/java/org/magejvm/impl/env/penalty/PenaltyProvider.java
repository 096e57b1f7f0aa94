package org.magejvm.impl.env.penalty;

import java.util.List;
import java.util.Map;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.small.HiddenNumberProvider;

/**
 * Penalty Shoot-out ({@code mage-penalty}), the multi-agent showcase: the agent, in goal, faces a striker drawn from
 * a population of habits ({@link PenaltyStrikers#POPULATION}: the engine samples one per group), must tell which one
 * from the meta-episode's earlier attempts (the prompt lists each dive and where the shot went) and dive where it
 * shoots next. The first shot goes to a spot drawn from the task seed; later shots follow the striker's habit. A save
 * wins the attempt; 3 attempts, 5 spots by default ({@code spots}, 3 to 9), binary scoring by default ({@code
 * scoring=graded}: a near miss scores half).
 *
 * <p>It exists because the paper's population claims are measurable here: the best keeper that ignores its earlier
 * attempts saves within 3 attempts with probability 0.633 against the training population and 0.6 against the
 * held-out strikers (never trained on: the training strikers' mirror images), the best one that reads them always
 * does ({@link PenaltyCeilings}). The evaluation opponent is the held-out {@code step-1}; the other held-out strikers
 * are validation opponents. The sister game {@code mage-penalty-graded} ({@link GradedPenaltyProvider}) is where the
 * optima of MAGE's and LaMer's objectives differ.
 *
 * <p>Scripted keepers: {@code random} (a uniform dive), {@code blind} (the best history-blind keeper against the
 * training population), {@code follow} (where the last shot went), {@code adaptive} (the optimum of the final-attempt
 * objective against the training population: the best adaptive keeper, Pass@3 1), {@code cumulative} (the optimum of
 * the cumulative objective; the same rates as {@code adaptive} with binary scoring) and {@code random-plan} (lessons
 * in the right format that guess the next shot at random, and dives there: the format policy).
 */
public final class PenaltyProvider extends BaseEnvironmentProvider<PenaltyEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-penalty";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The option that sets the number of spots. */
  public static final String SPOTS_OPTION = "spots";
  /** The option that sets the scoring: {@code binary} or {@code graded}. */
  public static final String SCORING_OPTION = "scoring";
  /** The default number of spots. */
  public static final int DEFAULT_SPOTS = 5;
  /** The fewest spots the option accepts. */
  public static final int SMALLEST_SPOTS = 3;
  /** The most spots the option accepts. */
  public static final int LARGEST_SPOTS = 9;
  /** The uniform keeper. */
  public static final String RANDOM_POLICY = "random";
  /** The best history-blind keeper against the training population. */
  public static final String BLIND_POLICY = "blind";
  /** The keeper that dives where the last shot went. */
  public static final String FOLLOW_POLICY = "follow";
  /** The optimum of the final-attempt (MAGE) objective against the training population: the best adaptive keeper. */
  public static final String ADAPTIVE_POLICY = "adaptive";
  /** The optimum of the cumulative (LaMer) objective against the training population. */
  public static final String CUMULATIVE_POLICY = "cumulative";
  /** The keeper that writes lessons with a random guess of the next shot and dives there (the format policy). */
  public static final String RANDOM_PLAN_POLICY = "random-plan";

  private static final HiddenNumberProvider.SizeOption SPOTS = spotsOption(DEFAULT_SPOTS, SMALLEST_SPOTS);

  /** One dive per attempt, 3 attempts, the small games' discounts and penalties, short answers. */
  private static final EnvironmentDefaults DEFAULTS = HiddenNumberProvider.smallGameDefaults().build();

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public PenaltyProvider() {
    super(settings(ID, VERSION, PenaltyStrikers.POPULATION, Scoring.BINARY,
        "Penalty Shoot-out: a striker drawn from a population of habits (fixed, stepping, alternating, aiming by the"
            + " keeper's last dive) shoots one penalty per attempt; the keeper sees where each shot went and must tell"
            + " the habit (held-out habits, the mirror images, for evaluation)"));
  }

  /**
   * The settings both Penalty Shoot-out games share: the population, its evaluation and validation opponents (the
   * held-out strikers, the first one evaluated), the options, defaults and scripted keepers.
   *
   * @param id the game's id
   * @param version its version
   * @param population its strikers
   * @param scoring the scoring without the option
   * @param description its description
   * @return the settings
   */
  static Settings settings(String id, String version, PenaltyPopulation population, Scoring scoring,
      String description) {
    return settings(id, version, population, scoring, description, SPOTS);
  }

  /**
   * The option of the number of spots.
   *
   * @param defaultSpots its default
   * @param smallest the fewest spots it accepts
   * @return the option
   */
  static HiddenNumberProvider.SizeOption spotsOption(int defaultSpots, int smallest) {
    return new HiddenNumberProvider.SizeOption(SPOTS_OPTION, "the number of spots", defaultSpots, smallest,
        LARGEST_SPOTS);
  }

  /**
   * The settings of a Penalty Shoot-out game with its own option of the number of spots.
   *
   * @param id the game's id
   * @param version its version
   * @param population its strikers
   * @param scoring the scoring without the option
   * @param description its description
   * @param spots the option of the number of spots
   * @return the settings
   */
  static Settings settings(String id, String version, PenaltyPopulation population, Scoring scoring,
      String description, HiddenNumberProvider.SizeOption spots) {
    Settings s = settings(id, version)
        .optDescription(description)
        .setDefaults(DEFAULTS)
        .optOpponents(population.pool())
        .optEvaluationOpponent(population.heldOut().get(0).id());
    for (Striker v : population.heldOut().subList(1, population.heldOut().size())) {
      s.addValidationOpponent(v.id());
    }
    List<Striker> training = population.training();
    return s.addOption(spots.name(), spots.description())
        .addOption(SCORING_OPTION, "binary (a save scores 1, a miss 0) or graded (a near miss, one spot beside the"
            + " shot, scores 0.5) (default " + scoring.id() + ")")
        .addScriptedPolicy(RANDOM_POLICY, RandomPolicy::new)
        .addScriptedPolicy(BLIND_POLICY, seed -> new PenaltyPolicies.Blind(seed, id, training))
        .addScriptedPolicy(FOLLOW_POLICY, seed -> new PenaltyPolicies.Follow(seed, id))
        .addScriptedPolicy(ADAPTIVE_POLICY, seed -> PenaltyPolicies.Planned.adaptive(seed, id, training))
        .addScriptedPolicy(CUMULATIVE_POLICY, seed -> PenaltyPolicies.Planned.cumulative(seed, id, training))
        .addScriptedPolicy(RANDOM_PLAN_POLICY, seed -> new PenaltyPolicies.RandomPlan(seed, id))
        .optFormatPolicy(RANDOM_PLAN_POLICY);
  }

  /**
   * Creates an environment of a Penalty Shoot-out game from its options.
   *
   * @param id the game's id
   * @param options the options
   * @param scoring the scoring without the option
   * @return the environment
   * @throws IllegalArgumentException naming the option when {@code spots} is not a whole number from 3 to 9 or {@code
   *     scoring} is neither {@code binary} nor {@code graded}
   */
  static PenaltyEnvironment create(String id, Map<String, String> options, Scoring scoring) {
    return create(id, options, scoring, SPOTS);
  }

  /**
   * Creates an environment of a Penalty Shoot-out game with its own option of the number of spots.
   *
   * @param id the game's id
   * @param options the options
   * @param scoring the scoring without the option
   * @param spots the option of the number of spots
   * @return the environment
   * @throws IllegalArgumentException naming the option when {@code spots} is out of the option's range or {@code
   *     scoring} is neither {@code binary} nor {@code graded}
   */
  static PenaltyEnvironment create(String id, Map<String, String> options, Scoring scoring,
      HiddenNumberProvider.SizeOption spots) {
    return new PenaltyEnvironment(id, spots.read(options),
        options.containsKey(SCORING_OPTION) ? Scoring.parse(options.get(SCORING_OPTION)) : scoring);
  }

  /**
   * @throws IllegalArgumentException naming the option when {@code spots} is not a whole number from 3 to 9 or {@code
   *     scoring} is neither {@code binary} nor {@code graded}
   */
  @Override
  protected PenaltyEnvironment newEnvironment(Map<String, String> options) {
    return create(ID, options, Scoring.BINARY);
  }
}
