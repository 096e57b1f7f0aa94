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

/** GRPO is GiGPO's episode term alone (on {@link GoldenBatch}). */
class GrpoAdvantageNormalizerTest {

  private static final Offset<Double> TOL = within(1e-9);
  private static final List<ScoredTurn> BATCH = GoldenBatch.turns();

  @Test
  void meanNormIsTheEpisodeTermOnly() {
    Advantages a = new GrpoAdvantageNormalizer(OptimizerConfig.defaults()).compute(BATCH);
    // E1 mean 18/9 = 2, E2 mean 20/4 = 5, E3 and E4 single turns (mean 0)
    double[] expected = {-12, -13, -2, 8, 8, -2, -3, 8, 8, 5, -15, -5, 15, -5, 7};
    assertThat(a.values()).containsExactly(expected, TOL);
    assertThat(a.episodeTerm()).containsExactly(expected, TOL);
    assertThat(a.stepTerm()).containsOnly(0.0).hasSize(15);
    assertThat(a.stepGroupCount()).isZero();
    assertThat(a.meanStepGroupSize()).isZero();
  }

  @Test
  void equalsGigpoEpisodeTermInEveryMode() {
    for (NormalizationMode mode : NormalizationMode.values()) {
      for (Grouping grouping : Grouping.values()) {
        OptimizerConfig c = OptimizerConfig.builder().optNormalization(mode).optGrouping(grouping).build();
        Advantages grpo = new GrpoAdvantageNormalizer(c).compute(BATCH);
        Advantages gigpo = new GigpoAdvantageNormalizer(c).compute(BATCH);
        assertThat(grpo.values()).as("%s %s", mode, grouping).containsExactly(gigpo.episodeTerm());
        assertThat(grpo.episodeTerm()).containsExactly(gigpo.episodeTerm());
      }
    }
  }

  @Test
  void mixedGroupingAndStdNormByHand() {
    // MIXED: g1 = 13 turns, s sum 38 -> mean 38/13; g2 = {H1 -5, K1 7} -> mean 1
    double m = 38.0 / 13;
    Advantages mixed =
        new GrpoAdvantageNormalizer(OptimizerConfig.builder().optGrouping(Grouping.MIXED).build()).compute(BATCH);
    assertThat(mixed.values()).containsExactly(new double[] {
      -10 - m, -11 - m, -m, 10 - m, 10 - m, -m, -1 - m, 10 - m, 10 - m, 10 - m, -10 - m, -m, 20 - m, -6, 6
    }, TOL);

    // MEAN_STD_NORM, stationary: E2 deviations 5 -15 -5 15, var = (25+225+25+225)/3 = 500/3
    Advantages std = new GrpoAdvantageNormalizer(
        OptimizerConfig.builder().optNormalization(NormalizationMode.MEAN_STD_NORM).build()).compute(BATCH);
    double e2 = Math.sqrt(500.0 / 3) + 1e-6;
    assertThat(std.values()[10]).isCloseTo(-15 / e2, TOL);
    assertThat(std.values()[12]).isCloseTo(15 / e2, TOL);
    // g2/mixed pair H1 K1: deviations -6 6, var = 72 -> (-6)/(sqrt(72)+eps)
    Advantages mixedStd = new GrpoAdvantageNormalizer(OptimizerConfig.builder()
        .optNormalization(NormalizationMode.MEAN_STD_NORM).optGrouping(Grouping.MIXED).build()).compute(BATCH);
    assertThat(mixedStd.values()[13]).isCloseTo(-6 / (Math.sqrt(72) + 1e-6), TOL);
  }

  @Test
  void ignoresStepWeightAndAnchorScope() {
    Advantages base = new GrpoAdvantageNormalizer(OptimizerConfig.defaults()).compute(BATCH);
    Advantages other = new GrpoAdvantageNormalizer(OptimizerConfig.builder()
        .optStepWeight(3).optAnchorScope(AnchorScope.PER_EPISODE).build()).compute(BATCH);
    assertThat(other.values()).containsExactly(base.values());
  }
}
