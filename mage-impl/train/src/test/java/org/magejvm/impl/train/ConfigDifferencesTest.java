package org.magejvm.impl.train;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.magejvm.spi.EnvironmentRegistry;

/** What a resumed trainer compares with the checkpoint's config: the dotted keys whose values differ. */
class ConfigDifferencesTest {

  private static final EnvironmentRegistry GAMES = EnvironmentRegistry.discover();

  @Test
  void namesEveryKeyThatDiffersAndNothingElse() {
    TrainingConfig a = TrainingPreset.MAGE.config(GAMES.require("mage-kuhn-poker"));
    assertThat(a.differences(a)).isEmpty();
    TrainingConfig b = a.toBuilder().set("adamw.learning_rate", 1e-5).set("iterations", 7)
        .set("environment.options.reward", "win-loss").build();
    assertThat(a.differences(b)).containsExactly("environment.options", "adamw.learning_rate", "iterations");
    assertThat(b.differences(a)).containsExactly("environment.options", "adamw.learning_rate", "iterations");
    assertThat(MageTrainer.RESUMABLE_KEYS).contains("iterations").doesNotContain("adamw.learning_rate");
  }
}
