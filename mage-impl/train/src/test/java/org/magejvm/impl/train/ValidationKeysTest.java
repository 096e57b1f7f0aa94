package org.magejvm.impl.train;

import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.rollout.OpponentSampling;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * Validation metric names when a held-out opponent is also in the training pool (as Tic-Tac-Toe's {@code mcts-100}
 * is): the population's {@code val/OPPONENT/KEY} and the held-out set's {@code val/heldout/OPPONENT/KEY} must both be
 * reported, neither overwriting the other.
 */
class ValidationKeysTest {

  private static AdamW adamW(DjlLanguagePolicy policy) {
    MageTrainer.modelOf(policy).weights().requireGradients(true);
    return new AdamW(MageTrainer.modelOf(policy).weights().parameters(), AdamWConfig.defaults());
  }

  @Test
  void aHeldOutOpponentThatIsAlsoInThePoolKeepsItsOwnKeys(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    RolloutConfig base = RolloutConfig.builder()
        .setEnvironmentId(VowelProvider.RIVAL_ID)
        .optEpisodes(1)
        .optContextMode(ContextMode.NONE)
        .optPromptStyle(PromptStyle.COMPACT)
        .optOpponentSampling(OpponentSampling.PER_GROUP)
        .optSampling(SamplingConfig.evaluation(4))
        .build();
    // the population faces the rival in 2 meta-episodes, the held-out set in 3: the counts tell the sets apart
    RolloutConfig population = base.toBuilder().optTasks(2).optGroupSize(1).optGroupPrefix("val").build();
    RolloutConfig heldOut = base.toBuilder().optTasks(3).optGroupSize(1).optFixedOpponent(VowelProvider.RIVAL)
        .optGroupPrefix("eval").build();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model,
            Qwen3Checkpoint.Options.cpu().withThinking(false));
        AdamW adamw = adamW(policy)) {
      TrainerBuilder b = MageTrainer.builder()
          .setRegistry(EnvironmentRegistry.empty().register(VowelProvider.withRival()))
          .setPolicy(policy)
          .setRollout(population)
          .setCredit(CreditConfig.forEnvironment(VowelProvider.DEFAULTS).optMetaReturn(MetaReturn.SINGLE_EPISODE)
              .build())
          .setOptimizer(ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo")
              .create(OptimizerConfig.builder().optKlCoefficient(0).build()))
          .setAdamW(adamw)
          .addValidation(new Validation("", population))
          .addValidation(Validation.heldOut(VowelProvider.RIVAL, heldOut));
      Map<String, Number> val = b.build().validate();

      assertThat(val.get("val/meta_episodes").intValue()).isEqualTo(2);
      assertThat(val.get("val/rival/meta_episodes").intValue()).as("the population's per-opponent count")
          .isEqualTo(2);
      assertThat(val.get("val/heldout/rival/meta_episodes").intValue()).as("the held-out set's count")
          .isEqualTo(3);
      assertThat(val).containsKeys("val/success_rate[0]", "val/rival/success_rate[0]",
          "val/heldout/rival/success_rate[0]", "val/heldout/rival/score[0]", "val/heldout/rival/draw_rate[0]");
      assertThat(val.keySet()).noneMatch(k -> k.startsWith("val/heldout/rival/rival/"));

      // two sets of one name would overwrite each other's metrics
      b.addValidation(Validation.heldOut(VowelProvider.RIVAL, heldOut));
      assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'heldout/rival'");
    }
  }
}
