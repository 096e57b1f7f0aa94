package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Advantages;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.Grouping;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.ScoredTurn;

/**
 * GiGPO advantages of {@link GoldenBatch}, every value computed by hand below (index order A1 A2 A3 A4 B1 C1 C2 C3
 * C4 | D1 F1 F2 F3 | H1 | K1).
 */
class GigpoGoldenTest {

  private static final Offset<Double> TOL = within(1e-9);
  private static final double EPS = 1e-6;
  private static final List<ScoredTurn> BATCH = GoldenBatch.turns();

  // ---- episode terms, OPPONENT_STATIONARY, MEAN_NORM ----
  // E1 s = -10 -11 0 10 10 0 -1 10 10 -> sum 18, mean 18/9 = 2 -> s - 2
  // E2 s = 10 -10 0 20 -> sum 20, mean 5 -> s - 5
  // E3 = {H1}, E4 = {K1}: one turn each -> mean 0 -> A^E = s
  private static final double[] EPISODE_OS_MEAN = {
    -12, -13, -2, 8, 8, -2, -3, 8, 8,
    5, -15, -5, 15,
    -5,
    7
  };

  // ---- step terms, OPPONENT_STATIONARY, GLOBAL anchors, MEAN_NORM ----
  // E1/S0/mcts = {A1 A4 B1 C1 C3}: G 1 6 5 2 6 -> sum 20, mean 4 -> -3 2 1 -2 2
  // E1/S1/mcts = {A2 C4}: G 2 4 -> mean 3 -> -1 1
  // E1/reflection/mcts = {A3 C2}: G 6 4 -> mean 5 -> 1 -1
  // E2/S0/random = {D1 F1 F3}: G 9 6 9 -> sum 24, mean 8 -> 1 -2 1
  // E2/reflection/random = {F2}: singleton -> 0
  // H1 and K1 share the anchor S0/mcts with E1 but sit in other episode groups: singletons -> 0
  private static final double[] STEP_OS_GLOBAL_MEAN = {
    -3, -1, 1, 2, 1, -2, -1, 2, 1,
    1, -2, 0, 1,
    0,
    0
  };

  private static Advantages compute(OptimizerConfig config) {
    return new GigpoAdvantageNormalizer(config).compute(BATCH);
  }

  @Test
  void meanNormOpponentStationaryGlobalAnchors() {
    Advantages a = compute(OptimizerConfig.defaults());

    assertThat(a.episodeTerm()).containsExactly(EPISODE_OS_MEAN, TOL);
    assertThat(a.stepTerm()).containsExactly(STEP_OS_GLOBAL_MEAN, TOL);
    // A = A^E + 1.0 * A^S
    assertThat(a.values()).containsExactly(new double[] {
      -12 - 3, -13 - 1, -2 + 1, 8 + 2, 8 + 1, -2 - 2, -3 - 1, 8 + 2, 8 + 1,
      5 + 1, -15 - 2, -5 + 0, 15 + 1,
      -5,
      7
    }, TOL);
    // step groups: E1 {S0, S1, reflection}, E2 {S0, reflection}, E3 {S0}, E4 {S0} -> 7; 15 turns / 7 groups
    assertThat(a.stepGroupCount()).isEqualTo(7);
    assertThat(a.meanStepGroupSize()).isCloseTo(15.0 / 7, TOL);
  }

  @Test
  void meanStdNormOpponentStationaryGlobalAnchors() {
    Advantages a = compute(OptimizerConfig.builder().optNormalization(NormalizationMode.MEAN_STD_NORM).build());

    // E1 deviations -12 -13 -2 8 8 -2 -3 8 8; squares 144+169+4+64+64+4+9+64+64 = 586; var = 586/8 = 73.25
    double e1 = Math.sqrt(73.25) + EPS;
    // E2 deviations 5 -15 -5 15; squares 25+225+25+225 = 500; var = 500/3
    double e2 = Math.sqrt(500.0 / 3) + EPS;
    // E3, E4: one turn -> mean 0, std 1 -> s / (1 + eps)
    assertThat(a.episodeTerm()).containsExactly(new double[] {
      -12 / e1, -13 / e1, -2 / e1, 8 / e1, 8 / e1, -2 / e1, -3 / e1, 8 / e1, 8 / e1,
      5 / e2, -15 / e2, -5 / e2, 15 / e2,
      -5 / (1 + EPS),
      7 / (1 + EPS)
    }, TOL);

    // E1/S0 deviations -3 2 1 -2 2: squares 9+4+1+4+4 = 22, var = 22/4 = 5.5
    double s0 = Math.sqrt(5.5) + EPS;
    // E1/S1 and E1/reflection deviations -1 1 (resp. 1 -1): var = 2/1 = 2
    double pair = Math.sqrt(2) + EPS;
    // E2/S0 deviations 1 -2 1: squares 1+4+1 = 6, var = 6/2 = 3
    double s0r = Math.sqrt(3) + EPS;
    double[] step = {
      -3 / s0, -1 / pair, 1 / pair, 2 / s0, 1 / s0, -2 / s0, -1 / pair, 2 / s0, 1 / pair,
      1 / s0r, -2 / s0r, 0, 1 / s0r,
      0,
      0
    };
    assertThat(a.stepTerm()).containsExactly(step, TOL);
    double[] values = new double[step.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = a.episodeTerm()[i] + step[i];
    }
    assertThat(a.values()).containsExactly(values, TOL);
    // spot check of the sums: A1 = -12/(8.5586...+1e-6) - 3/(2.3452...+1e-6)
    assertThat(a.values()[0]).isCloseTo(-1.402095 - 1.279204, within(1e-6));
    assertThat(a.stepGroupCount()).isEqualTo(7);
  }

  @Test
  void perEpisodeAnchorsSplitWhatGlobalAnchorsPool() {
    Advantages global = compute(OptimizerConfig.defaults());
    Advantages local = compute(OptimizerConfig.builder().optAnchorScope(AnchorScope.PER_EPISODE).build());

    // the episode term does not depend on anchors
    assertThat(local.episodeTerm()).containsExactly(EPISODE_OS_MEAN, TOL);
    // E1/S0/ep0 = {A1 B1 C1}: G 1 5 2 -> mean 8/3 -> 1-8/3 = -5/3, 5-8/3 = 7/3, 2-8/3 = -2/3
    // E1/S0/ep1 = {A4 C3}: G 6 6 -> mean 6 -> 0 0
    // E1/S1/ep0 = {A2}, E1/S1/ep1 = {C4}: singletons -> 0 0 (both are turn 1 of their episode: the reference's
    //   trial prefix, applied to the first turn of a phase only, would still have pooled them)
    // E1/reflection/ep1 = {A3 C2}: G 6 4 -> 1 -1
    // E2/S0/ep0 = {D1 F1}: G 9 6 -> mean 7.5 -> 1.5 -1.5; E2/S0/ep1 = {F3} -> 0; E2/reflection/ep1 = {F2} -> 0
    double[] step = {
      -5.0 / 3, 0, 1, 0, 7.0 / 3, -2.0 / 3, -1, 0, 0,
      1.5, -1.5, 0, 0,
      0,
      0
    };
    assertThat(local.stepTerm()).containsExactly(step, TOL);
    assertThat(local.values()).containsExactly(new double[] {
      -12 - 5.0 / 3, -13, -2 + 1, 8, 8 + 7.0 / 3, -2 - 2.0 / 3, -3 - 1, 8, 8,
      5 + 1.5, -15 - 1.5, -5, 15,
      -5,
      7
    }, TOL);
    // groups: E1 {S0/0, S0/1, S1/0, S1/1, R/1}, E2 {S0/0, S0/1, R/1}, E3, E4 -> 10; 15/10 = 1.5
    assertThat(local.stepGroupCount()).isEqualTo(10);
    assertThat(local.meanStepGroupSize()).isCloseTo(1.5, TOL);

    // where they differ: A1 (-3 vs -5/3), A2 (-1 vs 0), C4 (1 vs 0), D1 (1 vs 1.5), F3 (1 vs 0)
    assertThat(global.stepTerm()[0]).isNotCloseTo(local.stepTerm()[0], TOL);
    assertThat(global.stepTerm()[1]).isNotCloseTo(local.stepTerm()[1], TOL);
    assertThat(global.stepTerm()[8]).isNotCloseTo(local.stepTerm()[8], TOL);
    assertThat(global.stepTerm()[12]).isNotCloseTo(local.stepTerm()[12], TOL);
  }

  @Test
  void mixedGroupingPoolsOpponentsAndSeats() {
    Advantages stationary = compute(OptimizerConfig.defaults());
    Advantages mixed = compute(OptimizerConfig.builder().optGrouping(Grouping.MIXED).build());

    // episode groups by groupId only:
    // g1 = E1 + E2: s sum 18 + 20 = 38 over 13 turns -> mean 38/13 (= 2.923...)
    // g2 = {H1 (SECOND), K1 (FIRST)}: s -5 7 -> mean 1 -> -6 6
    double m = 38.0 / 13;
    double[] episode = {
      -10 - m, -11 - m, 0 - m, 10 - m, 10 - m, 0 - m, -1 - m, 10 - m, 10 - m,
      10 - m, -10 - m, 0 - m, 20 - m,
      -6,
      6
    };
    assertThat(mixed.episodeTerm()).containsExactly(episode, TOL);

    // step groups ignore the anchor's opponent:
    // g1/S0 = {A1 A4 B1 C1 C3 D1 F1 F3}: G 1 6 5 2 6 9 6 9 -> sum 44, mean 5.5
    //   -> -4.5 0.5 -0.5 -3.5 0.5 3.5 0.5 3.5
    // g1/S1 = {A2 C4}: -1 1
    // g1/reflection = {A3 C2 F2} (reflections against mcts and random pool): G 6 4 8 -> mean 6 -> 0 -2 2
    // g2/S0 = {H1 K1}: G 3 5 -> mean 4 -> -1 1
    double[] step = {
      -4.5, -1, 0, 0.5, -0.5, -3.5, -2, 0.5, 1,
      3.5, 0.5, 2, 3.5,
      -1,
      1
    };
    assertThat(mixed.stepTerm()).containsExactly(step, TOL);
    double[] values = new double[step.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = episode[i] + step[i];
    }
    assertThat(mixed.values()).containsExactly(values, TOL);
    // groups: g1 {S0, S1, reflection}, g2 {S0} -> 4; 15/4 = 3.75
    assertThat(mixed.stepGroupCount()).isEqualTo(4);
    assertThat(mixed.meanStepGroupSize()).isCloseTo(3.75, TOL);

    // where they differ: every episode term of g1 (mean 2 or 5 vs 38/13), H1 (-5 vs -6), K1 (7 vs 6), and the
    // reflection F2 (0 as a singleton vs 2)
    assertThat(stationary.episodeTerm()[0]).isCloseTo(-12, TOL);
    assertThat(mixed.episodeTerm()[0]).isNotCloseTo(-12, TOL);
    assertThat(stationary.values()[13]).isCloseTo(-5, TOL);
    assertThat(mixed.values()[13]).isCloseTo(-7, TOL);
    assertThat(stationary.stepTerm()[11]).isEqualTo(0.0);
    assertThat(mixed.stepTerm()[11]).isCloseTo(2, TOL);
  }

  @Test
  void stepWeightScalesOnlyTheStepTerm() {
    for (double omega : new double[] {0.0, 0.5, 2.0}) {
      Advantages a = compute(OptimizerConfig.builder().optStepWeight(omega).build());
      assertThat(a.episodeTerm()).containsExactly(EPISODE_OS_MEAN, TOL);
      assertThat(a.stepTerm()).containsExactly(STEP_OS_GLOBAL_MEAN, TOL);
      assertThat(a.stepGroupCount()).isEqualTo(7);
    }
    // omega = 0.5: A = A^E + 0.5 A^S
    assertThat(compute(OptimizerConfig.builder().optStepWeight(0.5).build()).values()).containsExactly(
        new double[] {
          -12 - 1.5, -13 - 0.5, -2 + 0.5, 8 + 1, 8 + 0.5, -2 - 1, -3 - 0.5, 8 + 1, 8 + 0.5,
          5 + 0.5, -15 - 1, -5, 15 + 0.5,
          -5,
          7
        }, TOL);
    // omega = 0: A = A^E
    assertThat(compute(OptimizerConfig.builder().optStepWeight(0).build()).values())
        .containsExactly(EPISODE_OS_MEAN, TOL);
    // omega = 2: A = A^E + 2 A^S
    assertThat(compute(OptimizerConfig.builder().optStepWeight(2).build()).values()).containsExactly(
        new double[] {
          -12 - 6, -13 - 2, -2 + 2, 8 + 4, 8 + 2, -2 - 4, -3 - 2, 8 + 4, 8 + 2,
          5 + 2, -15 - 4, -5, 15 + 2,
          -5,
          7
        }, TOL);
  }

  @Test
  void invalidTurnsCountOnlyThroughTheirScore() {
    // A2 (invalid move, s = -11) and C2 (invalid reflection, s = -1) are normalised like any other turn: their
    // penalties live in s, so only the episode term sees them; G (and the step term) is untouched.
    Advantages a = compute(OptimizerConfig.defaults());
    assertThat(a.episodeTerm()[1]).isCloseTo(-11 - 2, TOL);
    assertThat(a.episodeTerm()[6]).isCloseTo(-1 - 2, TOL);
    assertThat(a.stepTerm()[1]).isCloseTo(2 - 3, TOL);
    assertThat(a.stepTerm()[6]).isCloseTo(4 - 5, TOL);
  }
}
