package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class OptimizerConfigTest {

  @Test
  void defaultsAreTheReferenceValues() {
    OptimizerConfig c = OptimizerConfig.defaults();
    assertThat(c.normalization()).isEqualTo(NormalizationMode.MEAN_NORM);
    assertThat(c.stepWeight()).isEqualTo(1.0);
    assertThat(c.grouping()).isEqualTo(Grouping.OPPONENT_STATIONARY);
    assertThat(c.anchorScope()).isEqualTo(AnchorScope.GLOBAL);
    assertThat(c.epsilon()).isEqualTo(1e-6);
    assertThat(c.clipRatioLow()).isEqualTo(0.2);
    assertThat(c.clipRatioHigh()).isEqualTo(0.2);
    assertThat(c.dualClip()).isEqualTo(3.0);
    assertThat(c.entropyCoefficient()).isEqualTo(0.001);
    assertThat(c.klCoefficient()).isEqualTo(0.1);
    assertThat(c.lossAggregation()).isEqualTo(LossAggregation.TOKEN_MEAN);
    assertThat(OptimizerConfig.builder().build()).isEqualTo(c);
  }

  private static OptimizerConfig custom() {
    return OptimizerConfig.builder()
        .optNormalization(NormalizationMode.MEAN_STD_NORM)
        .optStepWeight(0.5)
        .optGrouping(Grouping.MIXED)
        .optAnchorScope(AnchorScope.PER_EPISODE)
        .optEpsilon(1e-4)
        .optClipRatioLow(0.1)
        .optClipRatioHigh(0.28)
        .optDualClip(5)
        .optEntropyCoefficient(0)
        .optKlCoefficient(0)
        .build();
  }

  @Test
  void toBuilderRoundTrip() {
    OptimizerConfig c = custom();
    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThat(c).isEqualTo(new OptimizerConfig(NormalizationMode.MEAN_STD_NORM, 0.5, Grouping.MIXED,
        AnchorScope.PER_EPISODE, 1e-4, 0.1, 0.28, 5, 0, 0, LossAggregation.TOKEN_MEAN));
    assertThat(OptimizerConfig.defaults().toBuilder().build()).isEqualTo(OptimizerConfig.defaults());
    OptimizerConfig changed = c.toBuilder().optDualClip(2).build();
    assertThat(changed.dualClip()).isEqualTo(2);
    assertThat(changed.toBuilder().optDualClip(5).build()).isEqualTo(c);
  }

  @Test
  void lossAggregationIsASettingThatRoundTrips() {
    OptimizerConfig seq = OptimizerConfig.builder().optLossAggregation(LossAggregation.SEQ_MEAN_TOKEN_MEAN).build();
    assertThat(seq.lossAggregation()).isEqualTo(LossAggregation.SEQ_MEAN_TOKEN_MEAN);
    assertThat(seq.toBuilder().build()).isEqualTo(seq);
    assertThat(seq).isNotEqualTo(OptimizerConfig.defaults());
    assertThat(seq.toBuilder().optLossAggregation(LossAggregation.TOKEN_MEAN).build())
        .isEqualTo(OptimizerConfig.defaults());
    // the builder's default is token-mean
    assertThat(custom().lossAggregation()).isEqualTo(LossAggregation.TOKEN_MEAN);
  }

  private static void assertRejected(UnaryOperator<OptimizerConfig.Builder> change, String message) {
    assertThatThrownBy(() -> change.apply(OptimizerConfig.builder()).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void rejectsNegativeOrNonFiniteValues() {
    Map<String, BiFunction<OptimizerConfig.Builder, Double, OptimizerConfig.Builder>> setters =
        new LinkedHashMap<>();
    setters.put("stepWeight", OptimizerConfig.Builder::optStepWeight);
    setters.put("epsilon", OptimizerConfig.Builder::optEpsilon);
    setters.put("clipRatioLow", OptimizerConfig.Builder::optClipRatioLow);
    setters.put("clipRatioHigh", OptimizerConfig.Builder::optClipRatioHigh);
    setters.put("entropyCoefficient", OptimizerConfig.Builder::optEntropyCoefficient);
    setters.put("klCoefficient", OptimizerConfig.Builder::optKlCoefficient);
    for (var e : setters.entrySet()) {
      for (double bad : new double[] {-1e-9, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
        assertRejected(b -> e.getValue().apply(b, bad), e.getKey() + " must be finite and >= 0, got " + bad);
      }
      // zero is allowed everywhere except where a later rule forbids it
      assertThat(e.getValue().apply(OptimizerConfig.builder(), 0.0).build()).isNotNull();
    }
  }

  @Test
  void rejectsDualClipAtOrBelowOne() {
    assertRejected(b -> b.optDualClip(1.0), "dualClip must be > 1, got 1.0");
    assertRejected(b -> b.optDualClip(0.5), "dualClip must be > 1, got 0.5");
    assertRejected(b -> b.optDualClip(Double.NaN), "dualClip must be > 1, got NaN");
    assertThat(OptimizerConfig.builder().optDualClip(1.0001).build().dualClip()).isEqualTo(1.0001);
  }

  @Test
  void rejectsClipRatioLowOfOneOrMore() {
    assertRejected(b -> b.optClipRatioLow(1.0), "clipRatioLow must be < 1, got 1.0");
    assertRejected(b -> b.optClipRatioLow(2.0), "clipRatioLow must be < 1, got 2.0");
    // the upper clip has no such bound
    assertThat(OptimizerConfig.builder().optClipRatioHigh(2.0).build().clipRatioHigh()).isEqualTo(2.0);
  }

  @Test
  void rejectsNullEnums() {
    assertThatThrownBy(() -> OptimizerConfig.builder().optNormalization(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("normalization");
    assertThatThrownBy(() -> OptimizerConfig.builder().optGrouping(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("grouping");
    assertThatThrownBy(() -> OptimizerConfig.builder().optAnchorScope(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("anchorScope");
    assertThatThrownBy(() -> OptimizerConfig.builder().optLossAggregation(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("lossAggregation");
  }
}
