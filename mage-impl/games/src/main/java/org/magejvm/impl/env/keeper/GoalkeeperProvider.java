package org.magejvm.impl.env.keeper;

import org.magejvm.api.annotation.Api;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.small.HiddenNumberProvider;

/**
 * Goalkeeper ({@code mage-goalkeeper}), the quick start's showcase of adaptation: a striker with a fixed habit shoots
 * every penalty of a meta-episode at the same one of {@code spots} spots (option, default 7), and the agent, in goal,
 * dives to one spot per attempt and sees where the shot went. It exists because success rates show learning within
 * the meta-episode here beyond doubt: the best keeper that ignores its earlier attempts saves within 3 attempts with
 * probability 3/7 = 0.429, the best one that reads them always does ({@link GoalkeeperCeilings}), and the adaptation
 * is one step (dive where the last shot went), small enough for a tiny model to learn by reinforcement on a CPU.
 *
 * <p>Scripted keepers: {@code random} (a uniform dive each attempt: 1 - (6/7)^3 = 0.370), {@code stay} (always the
 * middle spot: 1/7), {@code sweep} (a different spot each attempt, the best history-blind keeper) and {@code follow}
 * (where the last shot went, the best adaptive keeper); {@code random-plan} writes a lesson after each miss guessing the next
 * shot's spot at random among those it has not just tried, and dives there next (0.405): lessons in the right format
 * whose guesses carry nothing the keeper did not know before the shot.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class GoalkeeperProvider extends HiddenNumberProvider<GoalkeeperEnvironment> {

  /** The provider id. */
  public static final String ID = "mage-goalkeeper";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The option that sets the number of spots. */
  public static final String SPOTS_OPTION = "spots";
  /** The default number of spots. */
  public static final int DEFAULT_SPOTS = 7;
  /** The most spots the option accepts. */
  public static final int LARGEST_SPOTS = 64;
  /** The uniform history-blind keeper. */
  public static final String RANDOM_POLICY = "random";
  /** The keeper that always dives to the middle. */
  public static final String STAY_POLICY = "stay";
  /** The best history-blind keeper: a different spot in each attempt. */
  public static final String SWEEP_POLICY = "sweep";
  /**
   * The keeper that writes lessons guessing the next shot's spot at random among those it has not just tried, and
   * dives where its guess says: the reflection format without its content (the quick start's warm start with
   * reflections).
   */
  public static final String RANDOM_PLAN_POLICY = "random-plan";
  /** The best adaptive keeper: where the last shot went. */
  public static final String FOLLOW_POLICY = "follow";

  /** One dive per attempt, 3 attempts, the games' discounts and penalties, short answers. */
  private static final EnvironmentDefaults DEFAULTS = smallGameDefaults().build();

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public GoalkeeperProvider() {
    super(settings(ID, VERSION)
        .optDescription("Goalkeeper: a striker shoots every penalty of a meta-episode at the same spot; after each"
            + " dive the keeper sees where the shot went (the quick start's showcase of adaptation)")
        .setDefaults(DEFAULTS)
        .addScriptedPolicy(RANDOM_POLICY, RandomPolicy::new)
        .addScriptedPolicy(STAY_POLICY, GoalkeeperPolicies.Stay::new)
        .addScriptedPolicy(SWEEP_POLICY, GoalkeeperPolicies.Sweep::new)
        .addScriptedPolicy(FOLLOW_POLICY, GoalkeeperPolicies.Follow::new)
        .addScriptedPolicy(RANDOM_PLAN_POLICY, GoalkeeperPolicies.RandomPlan::new)
        .optFormatPolicy(RANDOM_PLAN_POLICY),
        new SizeOption(SPOTS_OPTION, "the number of spots", DEFAULT_SPOTS, 2, LARGEST_SPOTS));
  }

  @Override
  protected GoalkeeperEnvironment newEnvironment(int spots) {
    return new GoalkeeperEnvironment(spots);
  }
}
