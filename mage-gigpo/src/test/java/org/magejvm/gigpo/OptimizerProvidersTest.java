package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.magejvm.api.Advantages;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.plugin.PluginException;
import org.magejvm.api.plugin.ProviderInfo;
import org.magejvm.api.plugin.ProviderRegistry;

/** Both providers are found through ServiceLoader and create working optimizers. */
class OptimizerProvidersTest {

  @Test
  void serviceLoaderFindsGigpoAndGrpo() {
    ProviderRegistry<PolicyOptimizerProvider> registry = ProviderRegistry.discover(PolicyOptimizerProvider.class);

    PolicyOptimizerProvider gigpo = registry.require("gigpo");
    PolicyOptimizerProvider grpo = registry.require("grpo");
    assertThat(gigpo).isInstanceOf(GigpoOptimizerProvider.class);
    assertThat(grpo).isInstanceOf(GrpoOptimizerProvider.class);
    assertThat(gigpo.version()).isEqualTo("0.1.0");
    assertThat(grpo.version()).isEqualTo("0.1.0");
    assertThat(gigpo.description()).contains("GiGPO");
    assertThat(grpo.description()).contains("GRPO");
    assertThat(registry.describe()).extracting(ProviderInfo::id).contains("gigpo", "grpo");
  }

  @Test
  void providersCreateOptimizersWithTheirNormalizer() {
    OptimizerConfig config = OptimizerConfig.builder().optNormalization(NormalizationMode.MEAN_STD_NORM).build();

    PolicyOptimizer gigpo = new GigpoOptimizerProvider().create(config);
    assertThat(gigpo.id()).isEqualTo("gigpo");
    assertThat(gigpo.config()).isSameAs(config);
    assertThat(gigpo.advantageNormalizer()).isInstanceOf(GigpoAdvantageNormalizer.class);

    PolicyOptimizer grpo = new GrpoOptimizerProvider().create(config);
    assertThat(grpo.id()).isEqualTo("grpo");
    assertThat(grpo.config()).isSameAs(config);
    assertThat(grpo.advantageNormalizer()).isInstanceOf(GrpoAdvantageNormalizer.class);

    // the optimizer's normalizer uses the config it was created with
    Advantages viaProvider = gigpo.advantageNormalizer().compute(GoldenBatch.turns());
    Advantages direct = new GigpoAdvantageNormalizer(config).compute(GoldenBatch.turns());
    assertThat(viaProvider.values()).containsExactly(direct.values());
    assertThat(grpo.advantageNormalizer().compute(GoldenBatch.turns()).stepTerm()).containsOnly(0.0);
  }

  @Test
  void nullConfigIsRejected() {
    assertThatThrownBy(() -> new GigpoOptimizerProvider().create(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new GrpoOptimizerProvider().create(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void registeringASecondGigpoIsRejected() {
    ProviderRegistry<PolicyOptimizerProvider> registry = ProviderRegistry.discover(PolicyOptimizerProvider.class);
    assertThatThrownBy(() -> registry.register(new GigpoOptimizerProvider()))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("'gigpo'");
  }
}
