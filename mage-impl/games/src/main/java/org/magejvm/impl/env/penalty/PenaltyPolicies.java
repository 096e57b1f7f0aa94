package org.magejvm.impl.env.penalty;

import org.magejvm.impl.env.KeeperLessons;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.magejvm.api.PolicyRequest;
import org.magejvm.impl.env.NumberAnswer;
import org.magejvm.spi.policy.StatePolicy;

/**
 * The scripted keepers of Penalty Shoot-out. Those that plan do it for the game's default 3 attempts against their
 * game's training population, with the spots and scoring of the environment they play.
 */
final class PenaltyPolicies {

  /** The attempts the planning keepers plan for: the game's default. */
  static final int PLANNED_ATTEMPTS = 3;

  private static final Map<String, int[]> BLIND = new ConcurrentHashMap<>();
  private static final Map<String, PenaltyPlanner> PLANNERS = new ConcurrentHashMap<>();

  private PenaltyPolicies() {}

  /** A keeper that reads the environment's state. */
  private abstract static class Keeper extends StatePolicy<PenaltyEnvironment.State> {
    Keeper(String name, long seed, String game) {
      super(name, seed, PenaltyEnvironment.State.class, game, "keepers");
    }
  }

  /**
   * The best history-blind keeper against the training population: a dive sequence fixed in advance, the one with
   * the best Pass@3 ({@link PenaltyCeilings#bestBlindDives}); after the planned attempts it dives to a different spot
   * each attempt.
   */
  static final class Blind extends Keeper {
    private final List<Striker> training;

    Blind(long seed, String game, List<Striker> training) {
      super(PenaltyProvider.BLIND_POLICY, seed, game);
      this.training = training;
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString(dive(training, state(request).spots(), request.episodeIndex()));
    }

    /**
     * @param training the training population
     * @param spots how many spots
     * @param attempt the attempt index
     * @return the attempt's dive
     */
    static int dive(List<Striker> training, int spots, int attempt) {
      int[] dives = BLIND.computeIfAbsent(training + "/" + spots,
          k -> PenaltyCeilings.bestBlindDives(training, spots, PLANNED_ATTEMPTS));
      return attempt < dives.length ? dives[attempt] : NumberAnswer.sweep(spots, attempt);
    }
  }

  /** The keeper that dives where the last shot went (the middle spot first): Goalkeeper's best keeper. */
  static final class Follow extends Keeper {
    Follow(long seed, String game) {
      super(PenaltyProvider.FOLLOW_POLICY, seed, game);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      PenaltyEnvironment.State s = state(request);
      List<PenaltyEnvironment.Penalty> p = s.penalties();
      return Integer.toString(p.isEmpty() ? (s.spots() + 1) / 2 : p.get(p.size() - 1).shot());
    }
  }

  /**
   * A keeper that plays a {@link PenaltyPlanner} optimum against the training population: the first dive uniformly
   * among the optimal ones (every spot, by the ring's symmetry), later ones the planner's preferred dive; where the
   * history fits no training striker, where the last shot went.
   */
  static final class Planned extends Keeper {
    private final List<Striker> training;
    private final PenaltyPlanner.Objective objective;

    private Planned(String name, long seed, String game, List<Striker> training,
        PenaltyPlanner.Objective objective) {
      super(name, seed, game);
      this.training = training;
      this.objective = objective;
    }

    /**
     * @param seed the seed
     * @param game the game's id
     * @param training the training population
     * @return the keeper of the final-attempt (MAGE) optimum, the best adaptive keeper
     */
    static Planned adaptive(long seed, String game, List<Striker> training) {
      return new Planned(PenaltyProvider.ADAPTIVE_POLICY, seed, game, training,
          PenaltyPlanner.Objective.FINAL_ATTEMPT);
    }

    /**
     * @param seed the seed
     * @param game the game's id
     * @param training the training population
     * @return the keeper of the cumulative (LaMer) optimum
     */
    static Planned cumulative(long seed, String game, List<Striker> training) {
      return new Planned(PenaltyProvider.CUMULATIVE_POLICY, seed, game, training,
          PenaltyPlanner.Objective.CUMULATIVE);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      PenaltyEnvironment.State s = state(request);
      PenaltyPlanner planner = planner(training, s.spots(), s.scoring(), objective);
      if (s.penalties().isEmpty()) {
        List<Integer> best = planner.optimalDives(List.of());
        return Integer.toString(best.get(random.nextInt(best.size())));
      }
      return Integer.toString(planner.dive(s.penalties()));
    }
  }

  /**
   * The planner of an objective against a training population, undiscounted, for the planned attempts.
   *
   * @param training the training population
   * @param spots how many spots
   * @param scoring the scoring
   * @param objective the objective
   * @return the planner, computed once per combination
   */
  static PenaltyPlanner planner(List<Striker> training, int spots, Scoring scoring,
      PenaltyPlanner.Objective objective) {
    return PLANNERS.computeIfAbsent(training + "/" + spots + "/" + scoring + "/" + objective,
        k -> PenaltyPlanner.of(training, spots, PLANNED_ATTEMPTS, scoring, objective, 1.0));
  }

  /**
   * A keeper that writes lessons and acts on them, but whose lessons carry nothing about the striker that its own
   * dive does not, as Goalkeeper's {@code random-plan}: after a missed penalty it writes {@code <remark> next shot
   * R</remark>}, R drawn uniformly from the spots other than the one it just dove to, and in the next attempt it dives
   * to R. Its first dive, and any dive with no lesson of its own to act on, is uniform. It teaches the lesson's format
   * and that a lesson is acted on (the provider's format policy).
   */
  static final class RandomPlan extends Keeper {
    private final KeeperLessons lessons = new KeeperLessons();

    RandomPlan(long seed, String game) {
      super(PenaltyProvider.RANDOM_PLAN_POLICY, seed, game);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return lessons.dive(request, state(request).spots(), random);
    }

    @Override
    protected String reflect(PolicyRequest request, Random random) {
      return lessons.reflect(request, state(request).spots(), random);
    }

    /**
     * @param guess the guessed spot of the next shot
     * @return the lesson's text ({@link KeeperLessons#lesson})
     */
    static String lesson(int guess) {
      return KeeperLessons.lesson(guess);
    }
  }
}
