package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Advantages;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;

/** The one-turn group rules, groups without spread, and bad input. */
class SingletonAndValidationTest {

  private static final Offset<Double> TOL = within(1e-9);
  private static final OptimizerConfig MEAN = OptimizerConfig.defaults();
  private static final OptimizerConfig STD =
      OptimizerConfig.builder().optNormalization(NormalizationMode.MEAN_STD_NORM).build();

  private static ScoredTurn turn(String group, String state, double g, double s) {
    return GoldenBatch.play("t", group, "mcts", Seat.FIRST, 0, 0, state, g, s, true);
  }

  @Test
  void singleTurnBatchKeepsItsScoreAndHasNoStepTerm() {
    List<ScoredTurn> one = List.of(turn("g", "S0", 4.0, -3.0));

    // one-turn episode group: mean 0, std 1 -> A^E = s = -3; one-turn step group: A^S = 0
    Advantages mean = new GigpoAdvantageNormalizer(MEAN).compute(one);
    assertThat(mean.episodeTerm()).containsExactly(-3.0);
    assertThat(mean.stepTerm()).containsExactly(0.0);
    assertThat(mean.values()).containsExactly(-3.0);
    assertThat(mean.stepGroupCount()).isEqualTo(1);
    assertThat(mean.meanStepGroupSize()).isEqualTo(1.0);

    // std mode: A^E = (s - 0) / (1 + 1e-6)
    Advantages std = new GigpoAdvantageNormalizer(STD).compute(one);
    assertThat(std.episodeTerm()[0]).isCloseTo(-3.0 / 1.000001, TOL);
    assertThat(std.stepTerm()).containsExactly(0.0);

    // GRPO follows the same rule
    assertThat(new GrpoAdvantageNormalizer(MEAN).compute(one).values()).containsExactly(-3.0);
    assertThat(new GrpoAdvantageNormalizer(STD).compute(one).values()[0]).isCloseTo(-3.0 / 1.000001, TOL);
  }

  @Test
  void singletonStepGroupInsideALargerEpisodeGroupGivesZero() {
    // episode group of three; S0 twice, S9 once
    List<ScoredTurn> turns = List.of(turn("g", "S0", 1, 3), turn("g", "S0", 3, 6), turn("g", "S9", 100, 0));
    for (OptimizerConfig c : List.of(MEAN, STD)) {
      Advantages a = new GigpoAdvantageNormalizer(c).compute(turns);
      // the lone S9 turn has A^S = 0 however far its G is from the others
      assertThat(a.stepTerm()[2]).isEqualTo(0.0);
      assertThat(a.values()[2]).isEqualTo(a.episodeTerm()[2]);
    }
    Advantages a = new GigpoAdvantageNormalizer(MEAN).compute(turns);
    // s mean (3 + 6 + 0)/3 = 3 -> 0 3 -3; S0 G mean 2 -> -1 1
    assertThat(a.episodeTerm()).containsExactly(new double[] {0, 3, -3}, TOL);
    assertThat(a.stepTerm()).containsExactly(new double[] {-1, 1, 0}, TOL);
    assertThat(a.stepGroupCount()).isEqualTo(2);
    assertThat(a.meanStepGroupSize()).isEqualTo(1.5);
  }

  @Test
  void groupsWithoutSpreadGiveExactlyZeroEvenWithoutEpsilon() {
    // 0.1 is not a binary fraction: 3 * 0.1 does not divide back to 0.1 exactly, the clamp to [min, max] does
    List<ScoredTurn> turns = List.of(turn("g", "S0", 0.1, 0.1), turn("g", "S0", 0.1, 0.1), turn("g", "S0", 0.1, 0.1));
    OptimizerConfig noEps = STD.toBuilder().optEpsilon(0).build();
    for (OptimizerConfig c : List.of(MEAN, STD, noEps)) {
      Advantages a = new GigpoAdvantageNormalizer(c).compute(turns);
      assertThat(a.episodeTerm()).containsExactly(0.0, 0.0, 0.0);
      assertThat(a.stepTerm()).containsExactly(0.0, 0.0, 0.0);
      assertThat(a.values()).containsExactly(0.0, 0.0, 0.0);
      assertThat(new GrpoAdvantageNormalizer(c).compute(turns).values()).containsExactly(0.0, 0.0, 0.0);
    }
  }

  @Test
  void epsilonIsAddedToTheStandardDeviation() {
    // s = 1, 3: mean 2, unbiased std sqrt(((-1)^2 + 1^2)/1) = sqrt(2)
    List<ScoredTurn> turns = List.of(turn("g", "S0", 0, 1), turn("g", "S1", 0, 3));
    Advantages a = new GigpoAdvantageNormalizer(STD.toBuilder().optEpsilon(0.5).build()).compute(turns);
    assertThat(a.episodeTerm()).containsExactly(
        new double[] {-1 / (Math.sqrt(2) + 0.5), 1 / (Math.sqrt(2) + 0.5)}, TOL);
    Advantages noEps = new GigpoAdvantageNormalizer(STD.toBuilder().optEpsilon(0).build()).compute(turns);
    assertThat(noEps.episodeTerm()).containsExactly(new double[] {-1 / Math.sqrt(2), 1 / Math.sqrt(2)}, TOL);
  }

  @Test
  void emptyInputGivesEmptyAdvantages() {
    for (AdvantageNormalizer n : List.of(new GigpoAdvantageNormalizer(MEAN), new GrpoAdvantageNormalizer(STD))) {
      Advantages a = n.compute(List.of());
      assertThat(a.size()).isZero();
      assertThat(a.values()).isEmpty();
      assertThat(a.episodeTerm()).isEmpty();
      assertThat(a.stepTerm()).isEmpty();
      assertThat(a.stepGroupCount()).isZero();
      assertThat(a.meanStepGroupSize()).isZero();
    }
  }

  @Test
  void nullInputIsRejectedWithItsIndex() {
    List<ScoredTurn> withNull = new ArrayList<>(Arrays.asList(turn("g", "S0", 1, 1), null));
    for (AdvantageNormalizer n : List.of(new GigpoAdvantageNormalizer(MEAN), new GrpoAdvantageNormalizer(MEAN))) {
      assertThatThrownBy(() -> n.compute(null)).isInstanceOf(NullPointerException.class).hasMessage("turns");
      assertThatThrownBy(() -> n.compute(withNull))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("turns[1] is null");
    }
    assertThatThrownBy(() -> new GigpoAdvantageNormalizer(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new GrpoAdvantageNormalizer(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void overflowIsReportedNotSilentlyTurnedIntoZero() {
    // the exact sum 1.7e308 + 1.7e308 - 1e308 overflows the double range
    List<ScoredTurn> huge = List.of(turn("g", "S0", 0, 1.7e308), turn("g", "S1", 0, 1.7e308),
        turn("g", "S2", 0, -1e308));
    assertThatThrownBy(() -> new GigpoAdvantageNormalizer(MEAN).compute(huge))
        .isInstanceOf(ArithmeticException.class)
        .hasMessageContaining("episode term of turns[0]")
        .hasMessageContaining("group 'g'");
    // the mean (0) is fine here, but the squared deviations (1e616) overflow: with std = infinity the term would
    // silently become 0
    List<ScoredTurn> wide = List.of(turn("g", "S0", 0, 1e200), turn("g", "S1", 0, -1e200));
    assertThat(new GigpoAdvantageNormalizer(MEAN).compute(wide).episodeTerm()).containsExactly(1e200, -1e200);
    assertThatThrownBy(() -> new GrpoAdvantageNormalizer(STD).compute(wide))
        .isInstanceOf(ArithmeticException.class)
        .hasMessageContaining("too large");
  }
}
