package org.magejvm.impl.train;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.magejvm.api.MetaReturn;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.spi.EnvironmentRegistry;

/** A section written typed is the same config as the same values written by their string keys. */
class TypedWritesTest {

  @Test
  void typedSectionsEqualTheirStringKeys() {
    TrainingConfig base = TrainingPreset.MAGE_REFERENCE.config(
        EnvironmentRegistry.discover().require("mage-kuhn-poker"));
    TrainingConfig typed = base.toBuilder()
        .credit(base.credit().toBuilder().optMetaReturn(MetaReturn.CUMULATIVE).optGammaTraj(0.9).build())
        .adamw(AdamWConfig.builder().optLearningRate(3e-5).optWarmupSteps(4).build())
        .iterations(12).seed(-5).build();
    TrainingConfig keyed = base.toBuilder()
        .set("credit.meta_return", "cumulative").set("credit.gamma_traj", 0.9)
        .set("adamw.learning_rate", 3e-5).set("adamw.warmup_steps", 4)
        .set("iterations", 12).set("seed", -5L).build();
    assertThat(typed).isEqualTo(keyed);
    assertThat(typed.toJson()).isEqualTo(keyed.toJson());
  }
}
