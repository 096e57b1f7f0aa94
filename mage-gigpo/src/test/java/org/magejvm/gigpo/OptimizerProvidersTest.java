package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Advantages;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyLoss;
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
  void bothProvidersExposeThePolicyLossOfTheirConfig() {
    ProviderRegistry<PolicyOptimizerProvider> registry = ProviderRegistry.discover(PolicyOptimizerProvider.class);
    OptimizerConfig config = OptimizerConfig.builder().optEntropyCoefficient(0).optKlCoefficient(0)
        .optLossAggregation(LossAggregation.SEQ_MEAN_TOKEN_MEAN).build();
    for (String id : new String[] {"gigpo", "grpo"}) {
      PolicyOptimizer optimizer = registry.require(id).create(config);
      PolicyLoss loss = optimizer.loss();
      assertThat(loss).as(id).isInstanceOf(PpoLoss.class);
      assertThat(loss.aggregation()).isEqualTo(LossAggregation.SEQ_MEAN_TOKEN_MEAN);
      assertThat(registry.require(id).create(OptimizerConfig.defaults()).loss().aggregation())
          .isEqualTo(LossAggregation.TOKEN_MEAN);
      assertThat(optimizer.toString()).contains("PpoLoss");
      // two sequences of ratio 1: L = -A per token; seq-mean-token-mean = mean(-1, 2) over 2 sequences
      try (NDManager m = NDManager.newBaseManager()) {
        LossInput in = LossInput.builder()
            .setLogProbs(m.create(new double[] {-1, -2, -3, -4}, new Shape(2, 2)))
            .setOldLogProbs(m.create(new double[] {-1, -2, -3, -4}, new Shape(2, 2)))
            .setAdvantages(m.create(new double[] {1, -2}))
            .setMask(m.create(new double[] {1, 1, 1, 0}, new Shape(2, 2)))
            .setNormalizer(2)
            .build();
        try (LossResult r = loss.compute(in)) {
          assertThat(r.loss().getDouble()).as(id).isEqualTo(0.5);
          assertThat(r.diagnostics().tokens()).isEqualTo(3);
        }
      }
    }
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
