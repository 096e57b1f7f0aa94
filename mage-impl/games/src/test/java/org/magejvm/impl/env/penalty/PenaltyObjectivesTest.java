package org.magejvm.impl.env.penalty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.ScoredTurn;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * MAGE against LaMer on Penalty Shoot-out: the optima of the final-attempt (differential) and the cumulative objective
 * under graded scoring, their pinned outcomes and the predicted order, that ties between optimal dives change none of
 * them, brute force over every keeper, and the trainer's own credit assignment summing to what the objectives say.
 */
class PenaltyObjectivesTest {

  private static final List<Striker> TRAINING = PenaltyStrikers.GRADED_POPULATION.training();
  private static final List<Striker> HELD_OUT = PenaltyStrikers.GRADED_POPULATION.heldOut();

  private static void assertOutcome(PenaltyCeilings.Outcome o, double finalScore, double cumulativeScore,
      double... passAt) {
    assertThat(o.passAt()).hasSize(passAt.length);
    for (int k = 0; k < passAt.length; k++) {
      assertThat(o.passAt().get(k)).as("Pass@%d of %s", k + 1, o).isCloseTo(passAt[k], within(1e-12));
    }
    assertThat(o.finalScore()).as("final-attempt score of %s", o).isCloseTo(finalScore, within(1e-12));
    assertThat(o.cumulativeScore()).as("cumulative score of %s", o).isCloseTo(cumulativeScore, within(1e-12));
  }

  /** The numbers the class documentation and docs/environments.md give, and the order they predict. */
  @Test
  void theGradedGamesOptimaAndThePredictedOrder() {
    PenaltyObjectives.Comparison train = PenaltyObjectives.compare(TRAINING, 5, 3, Scoring.GRADED, 1.0);
    assertOutcome(train.finalAttempt(), 1.0, 1.25, 0.2, 0.65, 1.0);
    assertOutcome(train.cumulative(), 0.875, 1.4, 0.2, 0.25, 0.75);
    PenaltyObjectives.Comparison heldOut = PenaltyObjectives.compare(HELD_OUT, 5, 3, Scoring.GRADED, 1.0);
    assertOutcome(heldOut.finalAttempt(), 1.0, 1.25, 0.2, 0.65, 1.0);
    assertOutcome(heldOut.cumulative(), 0.9, 1.4, 0.2, 0.25, 0.8);
    for (PenaltyObjectives.Comparison c : List.of(train, heldOut)) {
      // MAGE's optimum ahead on what MAGE optimizes and on the success rates, LaMer's on what LaMer optimizes
      assertThat(c.finalAttempt().finalScore()).isGreaterThan(c.cumulative().finalScore() + 0.09);
      assertThat(c.finalAttempt().passAt().get(1)).isGreaterThan(c.cumulative().passAt().get(1) + 0.39);
      assertThat(c.finalAttempt().passAt().get(2)).isGreaterThan(c.cumulative().passAt().get(2) + 0.19);
      assertThat(c.cumulative().cumulativeScore()).isGreaterThan(c.finalAttempt().cumulativeScore() + 0.14);
      assertThat(c.cumulative().passAt().get(0)).isEqualTo(c.finalAttempt().passAt().get(0));
    }
    // striker by striker on the training population: the cumulative optimum gives up the pair step+2 / alternate+2
    assertOutcome(play(TRAINING, PenaltyPlanner.Objective.FINAL_ATTEMPT, PenaltyStrikers.STEP_PLUS_2), 1.0, 1.2,
        0.2, 1.0, 1.0);
    assertOutcome(play(TRAINING, PenaltyPlanner.Objective.CUMULATIVE, PenaltyStrikers.STEP_PLUS_2), 0.9, 1.5,
        0.2, 0.2, 0.8);
    assertOutcome(play(TRAINING, PenaltyPlanner.Objective.CUMULATIVE, PenaltyStrikers.ALTERNATE_PLUS_2), 0.7, 1.3,
        0.2, 0.2, 0.4);
    assertOutcome(play(TRAINING, PenaltyPlanner.Objective.CUMULATIVE, PenaltyStrikers.FIXED), 1.0, 1.6,
        0.2, 0.2, 1.0);
    assertOutcome(play(TRAINING, PenaltyPlanner.Objective.FINAL_ATTEMPT, PenaltyStrikers.COPY), 1.0, 1.4,
        0.2, 0.4, 1.0);
    assertOutcome(play(TRAINING, PenaltyPlanner.Objective.CUMULATIVE, PenaltyStrikers.COPY), 0.9, 1.2,
        0.2, 0.4, 0.8);
    // the second dive after missing the first shot at 3 with a dive to 1: two right (both of the pair) for MAGE, one
    // right (a near miss against fixed and the pair alike) for LaMer
    List<PenaltyEnvironment.Penalty> missed = List.of(new PenaltyEnvironment.Penalty(1, 3, 0));
    assertThat(PenaltyObjectives.finalAttemptOptimum(TRAINING, 5, 3, Scoring.GRADED, 1.0).optimalDives(missed))
        .containsExactly(5);
    assertThat(PenaltyObjectives.cumulativeOptimum(TRAINING, 5, 3, Scoring.GRADED, 1.0).optimalDives(missed))
        .containsExactly(4);
  }

  @Test
  void withTheGamesDefaultDiscountTheOrderHoldsWithSmallerGaps() {
    PenaltyObjectives.Comparison train = PenaltyObjectives.compare(TRAINING, 5, 3, Scoring.GRADED, 0.6);
    assertOutcome(train.finalAttempt(), 1.0, 1.25, 0.2, 0.65, 1.0);
    assertOutcome(train.cumulative(), 0.9, 1.375, 0.2, 0.35, 0.8);
    assertUnique(PenaltyObjectives.finalAttemptOptimum(TRAINING, 5, 3, Scoring.GRADED, 0.6));
    assertUnique(PenaltyObjectives.cumulativeOptimum(TRAINING, 5, 3, Scoring.GRADED, 0.6));
    // on the held-out strikers the discounted cumulative optimum has ties that matter: a range, not a number
    PenaltyPlanner lamer = PenaltyObjectives.cumulativeOptimum(HELD_OUT, 5, 3, Scoring.GRADED, 0.6);
    assertThat(lamer.range(PenaltyPlanner.Measure.PASS_AT, 2)).containsExactly(new double[] {0.85, 0.9},
        within(1e-12));
    assertThat(lamer.range(PenaltyPlanner.Measure.FINAL_SCORE, 0)).containsExactly(new double[] {0.925, 0.95},
        within(1e-12));
  }

  @Test
  void tiesBetweenOptimalDivesChangeNoneOfTheUndiscountedNumbers() {
    for (List<Striker> pool : List.of(TRAINING, HELD_OUT)) {
      assertUnique(PenaltyObjectives.finalAttemptOptimum(pool, 5, 3, Scoring.GRADED, 1.0));
      assertUnique(PenaltyObjectives.cumulativeOptimum(pool, 5, 3, Scoring.GRADED, 1.0));
    }
    assertThatThrownBy(() -> PenaltyObjectives.cumulativeOptimum(TRAINING, 5, 3, Scoring.GRADED, 1.0)
        .range(PenaltyPlanner.Measure.PASS_AT, 3)).hasMessageContaining("from 0 to 2");
  }

  private static void assertUnique(PenaltyPlanner p) {
    for (int k = 0; k < p.attempts(); k++) {
      double[] r = p.range(PenaltyPlanner.Measure.PASS_AT, k);
      assertThat(r[1] - r[0]).as("Pass@%d of %s", k + 1, p).isCloseTo(0, within(1e-12));
    }
    for (PenaltyPlanner.Measure m : List.of(PenaltyPlanner.Measure.FINAL_SCORE,
        PenaltyPlanner.Measure.CUMULATIVE_SCORE)) {
      double[] r = p.range(m, 0);
      assertThat(r[1] - r[0]).as("%s of %s", m, p).isCloseTo(0, within(1e-12));
    }
  }

  @Test
  void withBinaryScoringTheTwoObjectivesAreOneAndSoAreTheirOptima() {
    for (List<Striker> pool : List.of(TRAINING, HELD_OUT, PenaltyStrikers.POPULATION.training())) {
      PenaltyObjectives.Comparison c = PenaltyObjectives.compare(pool, 5, 3, Scoring.BINARY, 1.0);
      assertThat(c.finalAttempt()).isEqualTo(c.cumulative());
      assertThat(c.finalAttempt().finalScore()).isEqualTo(c.finalAttempt().cumulativeScore());
      assertThat(c.finalAttempt().passAt().get(2)).isCloseTo(1.0, within(1e-12));
    }
  }

  /** On mage-penalty's own population the optima part only a little, and partly by ties. */
  @Test
  void onTheShowcasePopulationTheOptimaDifferLittle() {
    List<Striker> showcase = PenaltyStrikers.POPULATION.training();
    PenaltyObjectives.Comparison c = PenaltyObjectives.compare(showcase, 5, 3, Scoring.GRADED, 1.0);
    assertOutcome(c.finalAttempt(), 1.0, 4 / 3.0, 0.2, 7 / 15.0, 1.0);
    assertOutcome(c.cumulative(), 1.0, 83 / 60.0, 0.2, 11 / 30.0, 1.0);
    PenaltyPlanner mage = PenaltyObjectives.finalAttemptOptimum(showcase, 5, 3, Scoring.GRADED, 1.0);
    PenaltyPlanner lamer = PenaltyObjectives.cumulativeOptimum(showcase, 5, 3, Scoring.GRADED, 1.0);
    assertThat(mage.range(PenaltyPlanner.Measure.PASS_AT, 1)).containsExactly(new double[] {1 / 3.0, 7 / 15.0},
        within(1e-12));
    assertThat(lamer.range(PenaltyPlanner.Measure.PASS_AT, 2)).containsExactly(new double[] {29 / 30.0, 1.0},
        within(1e-12));
    assertThat(lamer.range(PenaltyPlanner.Measure.FINAL_SCORE, 0)).containsExactly(new double[] {59 / 60.0, 1.0},
        within(1e-12));
  }

  /** Every deterministic keeper, for the sizes brute force can count: the planners' values are the best ones. */
  @Test
  void bruteForceOverEveryKeeperFindsBothOptima() {
    int[][] sizes = {{3, 2}, {3, 3}, {4, 2}, {5, 2}};
    for (List<Striker> pool : List.of(TRAINING, HELD_OUT, PenaltyStrikers.POPULATION.training())) {
      for (int[] size : sizes) {
        for (double gamma : new double[] {1.0, 0.6}) {
          for (PenaltyPlanner.Objective objective : PenaltyPlanner.Objective.values()) {
            double best = PenaltyBruteForce.best(pool, size[0], size[1], Scoring.GRADED,
                p -> PenaltyBruteForce.firstReturn(p, objective, gamma));
            PenaltyPlanner planner = PenaltyPlanner.of(pool, size[0], size[1], Scoring.GRADED, objective, gamma);
            assertThat(best).as("%s %s gamma %s N=%d K=%d", pool, objective, gamma, size[0], size[1])
                .isCloseTo(planner.value(), within(1e-12));
          }
        }
      }
    }
  }

  /**
   * The trainer's credit assignment, on real rollouts of the two optimal keepers: MAGE's differential return with
   * {@code trajGamma = 1} at the first turn is 10 times the last attempt's score, LaMer's cumulative one 10 times the
   * sum of the scores; and the keepers' rates are the optima's.
   */
  @Test
  void theTrainersReturnsSumToTheObjectivesAndTheScriptedOptimaReachTheirNumbers() {
    CreditAssigner mage = new CreditAssigner(CreditConfig.builder().optMetaReturn(MetaReturn.DIFFERENTIAL)
        .optGammaStep(0.95).optGammaTraj(1.0).build());
    CreditAssigner lamer = new CreditAssigner(CreditConfig.builder().optMetaReturn(MetaReturn.CUMULATIVE)
        .optGammaStep(0.95).optGammaTraj(1.0).build());
    List<Long> seeds = HiddenNumberEnvironment.balancedTaskSeeds(11, 5, 40);
    for (String policy : List.of(PenaltyProvider.ADAPTIVE_POLICY, PenaltyProvider.CUMULATIVE_POLICY)) {
      double finalScore = 0;
      double cumulative = 0;
      double saved = 0;
      int count = 0;
      for (Striker s : TRAINING) {
        for (MetaEpisode m : PenaltyCeilingsTest.rollout(GradedPenaltyProvider.ID, policy, s.id(), seeds,
            ContextMode.HISTORY_ONLY)) {
          List<Episode> episodes = m.episodes();
          double last = episodes.get(episodes.size() - 1).score();
          double sum = episodes.stream().mapToDouble(Episode::score).sum();
          ScoredTurn first = mage.assign(m).get(0);
          assertThat(first.turn().episodeIndex()).isZero();
          assertThat(first.stepReturn()).isCloseTo(PenaltyEnvironment.SAVE_REWARD * last, within(1e-9));
          assertThat(lamer.assign(m).get(0).stepReturn()).isCloseTo(PenaltyEnvironment.SAVE_REWARD * sum,
              within(1e-9));
          finalScore += last;
          cumulative += sum;
          saved += m.won() ? 1 : 0;
          count++;
        }
      }
      // 800 meta-episodes; the first dive is random, so the rates are within sampling error of the optima's
      boolean isMage = policy.equals(PenaltyProvider.ADAPTIVE_POLICY);
      assertThat(saved / count).as(policy).isCloseTo(isMage ? 1.0 : 0.75, within(isMage ? 0 : 0.05));
      assertThat(finalScore / count).as(policy).isCloseTo(isMage ? 1.0 : 0.875, within(isMage ? 0 : 0.03));
      assertThat(cumulative / count).as(policy).isCloseTo(isMage ? 1.25 : 1.4, within(0.05));
    }
  }

  private static PenaltyCeilings.Outcome play(List<Striker> optimizedFor, PenaltyPlanner.Objective objective,
      Striker against) {
    PenaltyPlanner p = PenaltyPlanner.of(optimizedFor, 5, 3, Scoring.GRADED, objective, 1.0);
    return PenaltyCeilings.play(List.of(against), 5, 3, Scoring.GRADED, p::dive);
  }
}
