package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SamplingConfigTest {

  @Test
  void builderDefaults() {
    SamplingConfig c = SamplingConfig.builder().build();
    assertThat(c.temperature()).isEqualTo(1.0);
    assertThat(c.topP()).isEqualTo(1.0);
    assertThat(c.topK()).isZero();
    assertThat(c.maxNewTokens()).isEqualTo(256);
    assertThat(c.minNewTokens()).isZero();
    assertThat(c.seed()).isEmpty();
    assertThat(c.greedy()).isFalse();
  }

  @Test
  void trainingPreset() {
    SamplingConfig c = SamplingConfig.training(512);
    assertThat(c).isEqualTo(new SamplingConfig(1.0, 1.0, 0, 512, 0, OptionalLong.empty()));
  }

  @Test
  void evaluationPreset() {
    SamplingConfig c = SamplingConfig.evaluation(1024);
    assertThat(c).isEqualTo(new SamplingConfig(0.7, 0.8, 20, 1024, 5, OptionalLong.empty()));
    // the minimum never exceeds a tiny limit
    assertThat(SamplingConfig.evaluation(3).minNewTokens()).isEqualTo(3);
  }

  @Test
  void withSeedCopiesEverythingElse() {
    SamplingConfig base = SamplingConfig.evaluation(64);
    SamplingConfig seeded = base.withSeed(99L);
    assertThat(seeded.seed()).hasValue(99L);
    assertThat(base.seed()).isEmpty();
    assertThat(seeded).isEqualTo(new SamplingConfig(0.7, 0.8, 20, 64, 5, OptionalLong.of(99L)));
    assertThat(seeded.withSeed(1L).seed()).hasValue(1L);
    assertThat(SamplingConfig.builder().optSeed(-5L).build().seed()).hasValue(-5L);
  }

  @Test
  void nullSeedMeansNone() {
    assertThat(new SamplingConfig(1, 1, 0, 10, 0, null).seed()).isEmpty();
  }

  @Test
  void greedyIsTemperatureZero() {
    assertThat(SamplingConfig.builder().optTemperature(0).build().greedy()).isTrue();
    assertThat(SamplingConfig.builder().optTemperature(1e-9).build().greedy()).isFalse();
  }

  @Test
  void topKOfZeroOrLessDisablesTheFilter() {
    assertThat(SamplingConfig.builder().optTopK(-1).build().topK()).isEqualTo(-1);
  }

  @Test
  void rejectsBadTemperature() {
    for (double t : new double[] {-0.1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> SamplingConfig.builder().optTemperature(t).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("temperature must be finite and >= 0, got " + t);
    }
  }

  @Test
  void rejectsBadTopP() {
    for (double p : new double[] {0, -0.5, 1.0001, Double.NaN}) {
      assertThatThrownBy(() -> SamplingConfig.builder().optTopP(p).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("topP must be in (0, 1], got " + p);
    }
    assertThat(SamplingConfig.builder().optTopP(1e-6).build().topP()).isEqualTo(1e-6);
  }

  @Test
  void rejectsBadTokenCounts() {
    assertThatThrownBy(() -> SamplingConfig.builder().optMaxNewTokens(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxNewTokens must be >= 1, got 0");
    assertThatThrownBy(() -> SamplingConfig.builder().optMinNewTokens(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minNewTokens must be in [0, maxNewTokens=256], got -1");
    assertThatThrownBy(() -> SamplingConfig.builder().optMaxNewTokens(8).optMinNewTokens(9).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minNewTokens must be in [0, maxNewTokens=8], got 9");
    assertThat(SamplingConfig.builder().optMaxNewTokens(8).optMinNewTokens(8).build().minNewTokens()).isEqualTo(8);
    assertThatThrownBy(() -> SamplingConfig.evaluation(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxNewTokens must be >= 1, got 0");
  }
}
