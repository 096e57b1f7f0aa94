package org.magejvm.impl.env.penalty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a perfect learner of the training population reaches on held-out strikers: the range over the training-optimal
 * keepers and the frontier between the two populations, against brute force over every deterministic keeper, and the
 * numbers the class documentation gives for the two games.
 */
class PenaltyTransferTest {

  private static final Striker FIXED = PenaltyStrikers.FIXED;
  private static final Striker STEP_PLUS_1 = PenaltyStrikers.STEP_PLUS_1;
  private static final Striker STEP_MINUS_1 = PenaltyStrikers.STEP_MINUS_1;
  private static final Striker ALTERNATE_PLUS_1 = PenaltyStrikers.ALTERNATE_PLUS_1;
  private static final Striker COPY = PenaltyStrikers.COPY;
  private static final Striker COPY_PLUS_1 = PenaltyStrikers.COPY_PLUS_1;

  /** Small populations on 3 spots, where brute force over every keeper is a few thousand keepers. */
  private static final List<List<List<Striker>>> SMALL = List.of(
      List.of(List.of(FIXED, STEP_PLUS_1, COPY), List.of(STEP_MINUS_1, ALTERNATE_PLUS_1)),
      List.of(List.of(STEP_PLUS_1, ALTERNATE_PLUS_1), List.of(FIXED, COPY_PLUS_1, STEP_MINUS_1)),
      List.of(List.of(COPY, STEP_MINUS_1), List.of(ALTERNATE_PLUS_1)));

  private static double passAt(PenaltyBruteForce.Play p) {
    return p.savedAt() >= 0 ? 1 : 0;
  }

  @Test
  void theHeldOutRangeOfTheTrainingOptimaIsBruteForcesOverEveryOptimalKeeper() {
    for (List<List<Striker>> populations : SMALL) {
      for (Scoring scoring : Scoring.values()) {
        for (PenaltyPlanner.Objective objective : PenaltyPlanner.Objective.values()) {
          for (int attempts = 2; attempts <= 3; attempts++) {
            PenaltyPlanner plan = PenaltyPlanner.of(populations.get(0), 3, attempts, scoring, objective, 1.0);
            List<double[]> pairs = PenaltyBruteForce.pairs(populations.get(0),
                p -> PenaltyBruteForce.firstReturn(p, objective, 1.0), populations.get(1),
                PenaltyTransferTest::passAt, 3, attempts, scoring);
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (double[] pair : pairs) {
              if (pair[0] >= plan.value() - 1e-9) {
                min = Math.min(min, pair[1]);
                max = Math.max(max, pair[1]);
              }
            }
            PenaltyTransfer.Range range = PenaltyTransfer.heldOutPassAt(plan, populations.get(1));
            String what = populations + " " + scoring + " " + objective + " K=" + attempts;
            assertThat(range.min()).as("min, %s", what).isCloseTo(min, within(1e-12));
            assertThat(range.max()).as("max, %s", what).isCloseTo(max, within(1e-12));
          }
        }
      }
    }
  }

  @Test
  void everyFrontierPointIsAKeepersPairThatNoKeeperBeatsOnBoth() {
    for (List<List<Striker>> populations : SMALL) {
      for (int attempts = 2; attempts <= 3; attempts++) {
        List<double[]> pairs = PenaltyBruteForce.pairs(populations.get(0), PenaltyTransferTest::passAt,
            populations.get(1), PenaltyTransferTest::passAt, 3, attempts, Scoring.BINARY);
        List<PenaltyTransfer.Point> frontier = PenaltyTransfer.frontier(populations.get(0), populations.get(1), 3,
            attempts);
        assertThat(frontier).isNotEmpty();
        for (PenaltyTransfer.Point p : frontier) {
          String what = populations + " K=" + attempts + " " + p;
          assertThat(pairs).as("some keeper reaches %s", what).anyMatch(
              q -> Math.abs(q[0] - p.training()) < 1e-12 && Math.abs(q[1] - p.heldOut()) < 1e-12);
          assertThat(pairs).as("no keeper beats %s on both", what).noneMatch(
              q -> q[0] >= p.training() - 1e-12 && q[1] >= p.heldOut() - 1e-12
                  && (q[0] > p.training() + 1e-12 || q[1] > p.heldOut() + 1e-12));
        }
        for (int i = 0; i <= 10; i++) {
          double lambda = i / 10.0;
          double best = pairs.stream().mapToDouble(q -> lambda * q[0] + (1 - lambda) * q[1]).max().orElseThrow();
          double onFrontier = frontier.stream()
              .mapToDouble(p -> lambda * p.training() + (1 - lambda) * p.heldOut()).max().orElseThrow();
          assertThat(onFrontier).as("%s K=%d lambda %s", populations, attempts, lambda)
              .isCloseTo(best, within(1e-12));
        }
        for (int i = 1; i < frontier.size(); i++) {
          assertThat(frontier.get(i).training()).isGreaterThan(frontier.get(i - 1).training());
          assertThat(frontier.get(i).heldOut()).isLessThan(frontier.get(i - 1).heldOut());
        }
      }
    }
  }

  /** The numbers of the class documentation: on both games no training-optimal keeper beats the held-out blind one. */
  @Test
  void onBothGamesTheTrainingOptimaStayAtOrBelowTheHeldOutBlindCeiling() {
    PenaltyPopulation graded = PenaltyStrikers.GRADED_POPULATION;
    PenaltyPlanner mage = PenaltyObjectives.finalAttemptOptimum(graded.training(), 5, 3, Scoring.GRADED, 1.0);
    PenaltyTransfer.Range range = PenaltyTransfer.heldOutPassAt(mage, graded.heldOut());
    assertThat(range.min()).isCloseTo(0.30, within(1e-12));
    assertThat(range.max()).isCloseTo(0.65, within(1e-12));
    assertThat(range.max()).isCloseTo(PenaltyCeilings.historyBlind(graded.heldOut(), 5, 3).passAt().get(2),
        within(1e-12));
    assertPoints(PenaltyTransfer.frontier(graded.training(), graded.heldOut(), 5, 3),
        0.65, 1.0, 0.75, 0.95, 0.90, 0.80, 0.95, 0.75, 1.0, 0.65);

    PenaltyPopulation showcase = PenaltyStrikers.POPULATION;
    PenaltyPlanner binary = PenaltyObjectives.finalAttemptOptimum(showcase.training(), 5, 3, Scoring.BINARY, 1.0);
    range = PenaltyTransfer.heldOutPassAt(binary, showcase.heldOut());
    assertThat(range.min()).isCloseTo(0.35, within(1e-12));
    assertThat(range.max()).isCloseTo(0.40, within(1e-12));
    assertThat(PenaltyCeilings.historyBlind(showcase.heldOut(), 5, 3).passAt().get(2)).isCloseTo(0.60, within(1e-12));
    assertPoints(PenaltyTransfer.frontier(showcase.training(), showcase.heldOut(), 5, 3),
        0.60, 1.0, 1.0, 0.40);
  }

  /**
   * On {@code mage-penalty-steps} one keeper saves every striker of both sets by the third attempt, and what a
   * training-optimal keeper does on the held-out strikers is free: from one save in seven to all of them.
   */
  @Test
  void onTheStepsGameNothingIsTradedAndTheHeldOutHistoriesAreNew() {
    PenaltyPopulation steps = PenaltyStrikers.STEPS_POPULATION;
    for (List<Striker> set : List.of(steps.training(), steps.heldOut())) {
      assertThat(PenaltyCeilings.historyBlind(set, 7, 3).passAt().get(2)).isCloseTo(3.0 / 7, within(1e-12));
      assertThat(PenaltyCeilings.adaptive(set, 7, 3).passAt().get(2)).isCloseTo(1.0, within(1e-12));
    }
    PenaltyPlanner mage = PenaltyObjectives.finalAttemptOptimum(steps.training(), 7, 3, Scoring.BINARY, 1.0);
    PenaltyTransfer.Range range = PenaltyTransfer.heldOutPassAt(mage, steps.heldOut());
    assertThat(range.min()).isCloseTo(1.0 / 7, within(1e-12));
    assertThat(range.max()).isCloseTo(1.0, within(1e-12));
    assertPoints(PenaltyTransfer.frontier(steps.training(), steps.heldOut(), 7, 3), 1.0, 1.0);
    // the keeper that continues the last step saves every striker of both sets within 3 attempts
    PenaltyCeilings.Keeper extrapolate = earlier -> earlier.size() < 2 ? 1
        : Striker.wrap(2 * earlier.get(1).shot() - earlier.get(0).shot(), 7);
    for (List<Striker> set : List.of(steps.training(), steps.heldOut())) {
      assertThat(PenaltyCeilings.play(set, 7, 3, Scoring.BINARY, extrapolate).passAt().get(2))
          .isCloseTo(1.0, within(1e-12));
    }
  }

  private static void assertPoints(List<PenaltyTransfer.Point> frontier, double... trainingThenHeldOut) {
    assertThat(frontier).hasSize(trainingThenHeldOut.length / 2);
    for (int i = 0; i < frontier.size(); i++) {
      assertThat(frontier.get(i).training()).as("point %d training", i)
          .isCloseTo(trainingThenHeldOut[2 * i], within(1e-12));
      assertThat(frontier.get(i).heldOut()).as("point %d held out", i)
          .isCloseTo(trainingThenHeldOut[2 * i + 1], within(1e-12));
    }
  }

  @Test
  void badPopulationsAndWeightsAreRefused() {
    assertThatThrownBy(() -> PenaltyTransfer.frontier(List.of(FIXED), List.of(FIXED), 5, 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fixed");
    assertThatThrownBy(() -> PenaltyTransfer.frontier(List.of(FIXED), List.of(COPY), 2, 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spots");
    assertThatThrownBy(() -> PenaltyPlanner.weighted(List.of(FIXED, COPY), List.of(0.0, 0.0), 5, 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight");
    assertThatThrownBy(() -> PenaltyPlanner.weighted(List.of(FIXED, COPY), List.of(1.0), 5, 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight");
  }
}
