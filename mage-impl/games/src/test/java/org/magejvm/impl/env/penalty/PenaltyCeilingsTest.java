package org.magejvm.impl.env.penalty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * The exact ceilings of both Penalty Shoot-out games: the pinned numbers (pool and striker by striker), Goalkeeper's
 * formulas as a special case, brute force over every dive sequence through the real environment and over every
 * deterministic keeper, and the scripted keepers reaching their ceilings in real rollouts.
 */
class PenaltyCeilingsTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();
  private static final PenaltyPopulation SHOWCASE = PenaltyStrikers.POPULATION;
  private static final PenaltyPopulation GRADED = PenaltyStrikers.GRADED_POPULATION;

  private static void assertRates(List<Double> actual, double... expected) {
    assertThat(actual).hasSize(expected.length);
    for (int i = 0; i < expected.length; i++) {
      assertThat(actual.get(i)).as("k=" + i + " of " + actual).isCloseTo(expected[i], within(1e-12));
    }
  }

  private static PenaltyCeilings.Outcome adaptivePlay(List<Striker> optimizedFor, List<Striker> against) {
    PenaltyPlanner p = PenaltyPlanner.of(optimizedFor, 5, 3, Scoring.BINARY, PenaltyPlanner.Objective.FINAL_ATTEMPT,
        1.0);
    return PenaltyCeilings.play(against, 5, 3, Scoring.BINARY, p::dive);
  }

  @Test
  void theShowcasePopulationsCeilingsArePinnedAndTheGapIsLargeOnBoth() {
    // training: fixed, step+1, step-2, alternate-1, alternate+2, copy-1
    assertRates(PenaltyCeilings.historyBlind(SHOWCASE.training(), 5, 3).passAt(), 0.2, 7 / 15.0, 19 / 30.0);
    assertRates(PenaltyCeilings.adaptive(SHOWCASE.training(), 5, 3).passAt(), 0.2, 7 / 15.0, 1.0);
    // held out, the mirror images: step-1, step+2, alternate+1, alternate-2
    assertRates(PenaltyCeilings.historyBlind(SHOWCASE.heldOut(), 5, 3).passAt(), 0.2, 0.4, 0.6);
    assertRates(PenaltyCeilings.adaptive(SHOWCASE.heldOut(), 5, 3).passAt(), 0.2, 0.4, 1.0);
    // a uniform dive saves 1/5 in every attempt, whatever the striker
    assertRates(PenaltyCeilings.random(SHOWCASE.training(), 5, 3).passAt(), 0.2, 0.36, 0.488);
    assertRates(PenaltyCeilings.random(SHOWCASE.heldOut(), 5, 3).passAt(), 0.2, 0.36, 0.488);
    // the best Pass@3 sequences reach every Pass@k of the blind ceiling at once
    assertThat(PenaltyCeilings.bestBlindDives(SHOWCASE.training(), 5, 3)).containsExactly(1, 5, 4);
    assertRates(PenaltyCeilings.blind(SHOWCASE.training(), 5, new int[] {1, 5, 4}).passAt(), 0.2, 7 / 15.0, 19 / 30.0);
    assertThat(PenaltyCeilings.bestBlindDives(SHOWCASE.heldOut(), 5, 3)).containsExactly(1, 1, 2);
    assertRates(PenaltyCeilings.blind(SHOWCASE.heldOut(), 5, new int[] {1, 1, 2}).passAt(), 0.2, 0.4, 0.6);
    // and so does the planner for horizon 3
    assertRates(adaptivePlay(SHOWCASE.training(), SHOWCASE.training()).passAt(), 0.2, 7 / 15.0, 1.0);
    assertRates(adaptivePlay(SHOWCASE.heldOut(), SHOWCASE.heldOut()).passAt(), 0.2, 0.4, 1.0);
    // what the training optimum reaches against the held-out strikers, which it has never seen: below their blind
    // ceiling, since their histories look like training strikers' that shoot elsewhere next
    assertRates(adaptivePlay(SHOWCASE.training(), SHOWCASE.heldOut()).passAt(), 0.2, 0.35, 0.35);
    assertRates(PenaltyCeilings.blind(SHOWCASE.heldOut(), 5, new int[] {1, 5, 4}).passAt(), 0.2, 0.35, 0.45);
  }

  @Test
  void theShowcaseCeilingsStrikerByStriker() {
    int[] trainingBlind = PenaltyCeilings.bestBlindDives(SHOWCASE.training(), 5, 3);
    int[] heldOutBlind = PenaltyCeilings.bestBlindDives(SHOWCASE.heldOut(), 5, 3);
    Map<String, double[]> blind = new LinkedHashMap<>();
    Map<String, double[]> adaptive = new LinkedHashMap<>();
    for (Striker s : SHOWCASE.training()) {
      blind.put(s.id(), passAt(PenaltyCeilings.blind(List.of(s), 5, trainingBlind)));
      adaptive.put(s.id(), passAt(adaptivePlay(SHOWCASE.training(), List.of(s))));
    }
    for (Striker s : SHOWCASE.heldOut()) {
      blind.put(s.id(), passAt(PenaltyCeilings.blind(List.of(s), 5, heldOutBlind)));
      adaptive.put(s.id(), passAt(adaptivePlay(SHOWCASE.heldOut(), List.of(s))));
    }
    Map<String, double[]> expectedBlind = new LinkedHashMap<>();
    expectedBlind.put("fixed", new double[] {0.2, 0.4, 0.6});
    expectedBlind.put("step+1", new double[] {0.2, 0.4, 0.6});
    expectedBlind.put("step-2", new double[] {0.2, 0.4, 0.6});
    expectedBlind.put("alternate-1", new double[] {0.2, 0.2, 0.4});
    expectedBlind.put("alternate+2", new double[] {0.2, 0.4, 0.6});
    expectedBlind.put("copy-1", new double[] {0.2, 1.0, 1.0});
    expectedBlind.put("step-1", new double[] {0.2, 0.4, 0.6});
    expectedBlind.put("step+2", new double[] {0.2, 0.4, 0.6});
    expectedBlind.put("alternate+1", new double[] {0.2, 0.4, 0.6});
    expectedBlind.put("alternate-2", new double[] {0.2, 0.4, 0.6});
    Map<String, double[]> expectedAdaptive = new LinkedHashMap<>();
    expectedAdaptive.put("fixed", new double[] {0.2, 0.4, 1.0});
    expectedAdaptive.put("step+1", new double[] {0.2, 0.4, 1.0});
    expectedAdaptive.put("step-2", new double[] {0.2, 0.4, 1.0});
    expectedAdaptive.put("alternate-1", new double[] {0.2, 0.2, 1.0});
    expectedAdaptive.put("alternate+2", new double[] {0.2, 0.4, 1.0});
    expectedAdaptive.put("copy-1", new double[] {0.2, 1.0, 1.0});
    expectedAdaptive.put("step-1", new double[] {0.2, 0.4, 1.0});
    expectedAdaptive.put("step+2", new double[] {0.2, 0.4, 1.0});
    expectedAdaptive.put("alternate+1", new double[] {0.2, 0.4, 1.0});
    expectedAdaptive.put("alternate-2", new double[] {0.2, 0.4, 1.0});
    assertThat(blind.keySet()).containsExactlyElementsOf(expectedBlind.keySet());
    for (String id : blind.keySet()) {
      assertThat(blind.get(id)).as("blind " + id).containsExactly(expectedBlind.get(id), within(1e-12));
      assertThat(adaptive.get(id)).as("adaptive " + id).containsExactly(expectedAdaptive.get(id), within(1e-12));
    }
    // knowing the striker: a blind keeper still guesses its first spot (Pass@3 3/5, or 1 against a copier), an
    // adaptive one saves from the second penalty on
    for (Striker s : SHOWCASE.heldOut()) {
      assertRates(PenaltyCeilings.historyBlind(List.of(s), 5, 3).passAt(), 0.2, 0.4, 0.6);
      assertRates(PenaltyCeilings.adaptive(List.of(s), 5, 3).passAt(), 0.2, 1.0, 1.0);
    }
    assertRates(PenaltyCeilings.historyBlind(List.of(PenaltyStrikers.COPY_MINUS_1), 5, 3).passAt(), 0.2, 1.0, 1.0);
  }

  @Test
  void theGradedGamesCeilingsArePinned() {
    for (List<Striker> pool : List.of(GRADED.training(), GRADED.heldOut())) {
      assertRates(PenaltyCeilings.historyBlind(pool, 5, 3).passAt(), 0.2, 0.5, 0.65);
      assertRates(PenaltyCeilings.adaptive(pool, 5, 3).passAt(), 0.2, 0.65, 1.0);
      assertRates(adaptivePlay(pool, pool).passAt(), 0.2, 0.65, 1.0);
    }
    assertThat(PenaltyCeilings.bestBlindDives(GRADED.training(), 5, 3)).containsExactly(1, 1, 2);
    assertRates(PenaltyCeilings.blind(GRADED.training(), 5, new int[] {1, 1, 2}).passAt(), 0.2, 0.5, 0.65);
    // on the held-out strikers no sequence has both the best Pass@3 and the best Pass@2
    assertThat(PenaltyCeilings.bestBlindDives(GRADED.heldOut(), 5, 3)).containsExactly(1, 3, 4);
    assertRates(PenaltyCeilings.blind(GRADED.heldOut(), 5, new int[] {1, 3, 4}).passAt(), 0.2, 0.35, 0.65);
    // striker by striker, the training optima
    int[] dives = {1, 1, 2};
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.FIXED), 5, dives).passAt(), 0.2, 0.2, 0.4);
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.STEP_PLUS_2), 5, dives).passAt(), 0.2, 0.4, 0.6);
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.ALTERNATE_PLUS_2), 5, dives).passAt(), 0.2, 0.4, 0.6);
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.COPY), 5, dives).passAt(), 0.2, 1.0, 1.0);
    assertRates(adaptivePlay(GRADED.training(), List.of(PenaltyStrikers.FIXED)).passAt(), 0.2, 0.2, 1.0);
    assertRates(adaptivePlay(GRADED.training(), List.of(PenaltyStrikers.STEP_PLUS_2)).passAt(), 0.2, 1.0, 1.0);
    assertRates(adaptivePlay(GRADED.training(), List.of(PenaltyStrikers.ALTERNATE_PLUS_2)).passAt(), 0.2, 1.0, 1.0);
    assertRates(adaptivePlay(GRADED.training(), List.of(PenaltyStrikers.COPY)).passAt(), 0.2, 0.4, 1.0);
    // and the held-out optima
    int[] held = {1, 3, 4};
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.STEP_PLUS_1), 5, held).passAt(), 0.2, 0.4, 0.4);
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.STEP_MINUS_2), 5, held).passAt(), 0.2, 0.4, 0.6);
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.ALTERNATE_MINUS_2), 5, held).passAt(), 0.2, 0.4, 0.6);
    assertRates(PenaltyCeilings.blind(List.of(PenaltyStrikers.COPY_PLUS_1), 5, held).passAt(), 0.2, 0.2, 1.0);
    assertRates(adaptivePlay(GRADED.heldOut(), List.of(PenaltyStrikers.STEP_PLUS_1)).passAt(), 0.2, 0.2, 1.0);
    assertRates(adaptivePlay(GRADED.heldOut(), List.of(PenaltyStrikers.STEP_MINUS_2)).passAt(), 0.2, 1.0, 1.0);
    assertRates(adaptivePlay(GRADED.heldOut(), List.of(PenaltyStrikers.ALTERNATE_MINUS_2)).passAt(), 0.2, 1.0, 1.0);
    assertRates(adaptivePlay(GRADED.heldOut(), List.of(PenaltyStrikers.COPY_PLUS_1)).passAt(), 0.2, 0.4, 1.0);
    // the training optimum against the held-out strikers
    assertRates(adaptivePlay(GRADED.training(), GRADED.heldOut()).passAt(), 0.2, 0.25, 0.35);
  }

  @Test
  void withGoalkeepersOneFixedStrikerTheCeilingsAreGoalkeepers() {
    for (int n = 3; n <= 9; n++) {
      for (int k = 1; k <= 3; k++) {
        AttemptCeiling blind = PenaltyCeilings.historyBlind(List.of(PenaltyStrikers.FIXED), n, k);
        AttemptCeiling adaptive = PenaltyCeilings.adaptive(List.of(PenaltyStrikers.FIXED), n, k);
        AttemptCeiling random = PenaltyCeilings.random(PenaltyStrikers.POPULATION.training(), n, k);
        assertThat(blind.passAt().get(k - 1)).as("blind %d %d", n, k)
            .isCloseTo(Math.min(1.0, (double) k / n), within(1e-12));
        assertThat(adaptive.passAt().get(k - 1)).as("adaptive %d %d", n, k)
            .isCloseTo(k == 1 ? 1.0 / n : 1.0, within(1e-12));
        assertThat(random.passAt().get(k - 1)).as("random %d %d", n, k)
            .isCloseTo(1 - Math.pow(1 - 1.0 / n, k), within(1e-12));
      }
    }
  }

  /** Every dive sequence, played through the real environment against every striker and first spot. */
  @Test
  void bruteForceOverEveryDiveSequenceThroughTheEnvironmentFindsTheBlindCeiling() {
    for (PenaltyPopulation population : List.of(SHOWCASE, GRADED)) {
      for (List<Striker> pool : List.of(population.training(), population.heldOut())) {
        for (int n = 3; n <= 6; n++) {
          List<Long> seeds = HiddenNumberEnvironment.balancedTaskSeeds(7, n, 1);
          double[] best = new double[3];
          for (int code = 0; code < n * n * n; code++) {
            int[] dives = {1 + code % n, 1 + code / n % n, 1 + code / (n * n)};
            double[] rates = environmentRates(pool, n, seeds, dives);
            for (int k = 0; k < 3; k++) {
              best[k] = Math.max(best[k], rates[k]);
            }
          }
          for (int k = 1; k <= 3; k++) {
            assertThat(best[k - 1]).as("%s N=%d k=%d", pool, n, k)
                .isCloseTo(PenaltyCeilings.historyBlind(pool, n, k).passAt().get(k - 1), within(1e-12));
          }
        }
      }
    }
  }

  private static double[] environmentRates(List<Striker> pool, int spots, List<Long> seeds, int[] dives) {
    double[] rates = new double[dives.length];
    PenaltyEnvironment env = new PenaltyEnvironment(spots, Scoring.BINARY);
    for (Striker s : pool) {
      for (long seed : seeds) {
        env.reset(seed, s, null);
        for (int k = 0; k < dives.length; k++) {
          if (k > 0) {
            env.restart();
          }
          if (env.step("<action>" + dives[k] + "</action>").won()) {
            for (int j = k; j < dives.length; j++) {
              rates[j] += 1.0 / (pool.size() * seeds.size());
            }
            break;
          }
        }
      }
    }
    return rates;
  }

  /** Every deterministic keeper (a dive for every history it can meet), for the sizes brute force can count. */
  @Test
  void bruteForceOverEveryKeeperFindsTheAdaptiveCeiling() {
    int[][] sizes = {{3, 1}, {3, 2}, {3, 3}, {4, 1}, {4, 2}, {5, 2}};
    for (PenaltyPopulation population : List.of(SHOWCASE, GRADED)) {
      for (List<Striker> pool : List.of(population.training(), population.heldOut())) {
        for (int[] size : sizes) {
          int n = size[0];
          int k = size[1];
          double best = PenaltyBruteForce.best(pool, n, k, Scoring.BINARY, p -> p.savedAt() >= 0 ? 1 : 0);
          assertThat(best).as("%s N=%d K=%d", pool, n, k)
              .isCloseTo(PenaltyCeilings.adaptive(pool, n, k).passAt().get(k - 1), within(1e-12));
        }
      }
    }
  }

  @Test
  void theScriptedKeepersReachTheirCeilingsInRealRollouts() {
    // one task per first spot, 4 times over, against each striker alone
    for (String game : List.of(PenaltyProvider.ID, GradedPenaltyProvider.ID, StepsPenaltyProvider.ID)) {
      PenaltyPopulation population = game.equals(PenaltyProvider.ID) ? SHOWCASE
          : game.equals(GradedPenaltyProvider.ID) ? GRADED : PenaltyStrikers.STEPS_POPULATION;
      int spots = game.equals(StepsPenaltyProvider.ID) ? 7 : 5;
      List<Long> seeds = HiddenNumberEnvironment.balancedTaskSeeds(3, spots, 4);
      int[] dives = PenaltyCeilings.bestBlindDives(population.training(), spots, 3);
      List<Striker> all = new ArrayList<>(population.training());
      all.addAll(population.heldOut());
      for (Striker s : all) {
        Map<String, Number> blind = metrics(game, "blind", s.id(), seeds, ContextMode.NONE);
        double[] expected = passAt(PenaltyCeilings.blind(List.of(s), spots, dives));
        for (int k = 0; k < 3; k++) {
          assertThat(blind.get("success_rate[" + k + "]").doubleValue()).as("%s %s blind k=%d", game, s.id(), k)
              .isCloseTo(expected[k], within(1e-12));
        }
        if (population.training().contains(s)) {
          Map<String, Number> adaptive = metrics(game, "adaptive", s.id(), seeds, ContextMode.HISTORY_ONLY);
          assertThat(adaptive.get("success_rate[2]").doubleValue()).as("%s %s adaptive", game, s.id()).isEqualTo(1.0);
          assertThat(adaptive.get("invalid_action_rate").doubleValue()).isZero();
        }
      }
    }
  }

  static Map<String, Number> metrics(String game, String policy, String opponent, List<Long> seeds,
      ContextMode context) {
    return EvaluationMetrics.of(rollout(game, policy, opponent, seeds, context), 3).toMap();
  }

  static List<MetaEpisode> rollout(String game, String policy, String opponent, List<Long> seeds,
      ContextMode context) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(game).optTaskSeeds(seeds).optGroupSize(1)
        .optFixedOpponent(opponent).optContextMode(context).optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16)).optSeed(5).build();
    try (LanguagePolicy p = REGISTRY.require(game).scriptedPolicy(policy, 9)) {
      return new MetaEpisodeRunner(REGISTRY).run(config, p).metaEpisodes();
    }
  }

  @Test
  void sizesOutOfRangeAreRefused() {
    assertThatThrownBy(() -> PenaltyCeilings.historyBlind(SHOWCASE.training(), 2, 3)).hasMessageContaining("3 to 9");
    assertThatThrownBy(() -> PenaltyCeilings.adaptive(SHOWCASE.training(), 5, 7)).hasMessageContaining("1 to 6");
    assertThatThrownBy(() -> PenaltyCeilings.adaptive(List.of(), 5, 3)).hasMessageContaining("at least one");
    assertThatThrownBy(() -> PenaltyCeilings.play(List.of(PenaltyStrikers.FIXED), 5, 3, Scoring.BINARY, e -> 6))
        .hasMessageContaining("off the goal");
  }

  private static double[] passAt(PenaltyCeilings.Outcome o) {
    return o.passAt().stream().mapToDouble(Double::doubleValue).toArray();
  }

  /**
   * The simplest keeper that reads the history, an offset from the last shot per attempt; the three Pass@3 values
   * were computed beforehand by a separate Python enumeration.
   */
  @Test
  void theBestKeeperReadingOnlyTheLastShot() {
    Object[][] cases = {
        {PenaltyStrikers.POPULATION.training(), 5, 2.0 / 3, 0.95 / 1.5},
        {PenaltyStrikers.GRADED_POPULATION.training(), 5, 0.85, 0.65},
        {PenaltyStrikers.STEPS_POPULATION.training(), 7, 17.0 / 35, 3.0 / 7}};
    for (Object[] c : cases) {
      @SuppressWarnings("unchecked")
      List<Striker> pool = (List<Striker>) c[0];
      int spots = (Integer) c[1];
      int[] plan = PenaltyCeilings.bestLastShotOffsets(pool, spots, 3, Scoring.BINARY);
      assertThat(plan).hasSize(3);
      assertThat(plan[0]).isBetween(1, spots);
      assertThat(plan[1]).isBetween(0, spots - 1);
      assertThat(plan[2]).isBetween(0, spots - 1);
      double passAt3 = PenaltyCeilings.lastShotOffsets(pool, spots, Scoring.BINARY, plan).passAt().get(2);
      assertThat(passAt3).as("%s", pool).isCloseTo((Double) c[2], within(1e-12));
      assertThat(PenaltyCeilings.historyBlind(pool, spots, 3).passAt().get(2)).isCloseTo((Double) c[3],
          within(1e-12));
      // no plan does better: every first dive and pair of offsets, played through the keeper
      for (int d = 1; d <= spots; d++) {
        for (int a = 0; a < spots; a++) {
          for (int b = 0; b < spots; b++) {
            assertThat(PenaltyCeilings.lastShotOffsets(pool, spots, Scoring.BINARY, new int[] {d, a, b}).passAt()
                .get(2)).isLessThanOrEqualTo(passAt3 + 1e-12);
          }
        }
      }
    }
    // the fixed striker alone: dive at the last shot from the second attempt on, Goalkeeper's best keeper
    int[] plan = PenaltyCeilings.bestLastShotOffsets(List.of(PenaltyStrikers.FIXED), 5, 3, Scoring.BINARY);
    assertThat(plan[1]).isZero();
    assertThat(PenaltyCeilings.lastShotOffsets(List.of(PenaltyStrikers.FIXED), 5, Scoring.BINARY, plan).passAt()
        .get(1)).isEqualTo(1.0);
  }
}
