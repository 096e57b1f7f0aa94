package org.magejvm.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Advantages;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * The embedding example of README.md, with a tiny checkpoint, a smaller batch and compact prompts. Keep the two in
 * step. Compact prompts check the same path (discovery, loading, play, reflect, play, credit, advantages, metrics) at
 * a third of the prompt length: the tiny tokenizer spends about one token per character, so verbose Kuhn prompts
 * (2,800 tokens by the third attempt) made this test take half a minute on two cores.
 */
class ReadmeExampleTest {

  @Test
  void theReadmeExampleRuns(@TempDir Path dir) {
    Path checkpoint = dir.resolve("Qwen3-tiny");
    TinyCheckpoint.write(checkpoint, TinyCheckpoint.Spec.small("PASS BET <action>BET</action>", 1));

    EnvironmentRegistry envs = EnvironmentRegistry.discover(); // built-in games + plugins on the class path
    try (LanguagePolicy policy = Qwen3Checkpoint.loadPolicy(checkpoint, Qwen3Checkpoint.Options.cpu())) {
      RolloutConfig config = RolloutConfig.builder().setEnvironmentId("mage-kuhn-poker")
          .optTasks(2).optGroupSize(2).optSampling(SamplingConfig.training(8)).optSeed(42)
          .optPromptStyle(PromptStyle.COMPACT).build();
      RolloutResult batch = new MetaEpisodeRunner(envs).run(config, policy); // play, reflect, play, ...
      CreditConfig credit = CreditConfig.forEnvironment(envs.require("mage-kuhn-poker").defaults()).build();
      List<ScoredTurn> scored = new CreditAssigner(credit).assign(batch.metaEpisodes()); // differential returns
      PolicyOptimizer gigpo = ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo")
          .create(OptimizerConfig.defaults());
      Advantages advantages = gigpo.advantageNormalizer().compute(scored); // opponent-stationary groups
      System.out.println(EvaluationMetrics.of(batch.metaEpisodes(), batch.episodes()).toMap());

      assertThat(batch.metaEpisodes()).hasSize(4);
      assertThat(batch.metaEpisodes()).allSatisfy(m -> assertThat(m.episodes()).isNotEmpty());
      assertThat(batch.metaEpisodes().get(0).turns()).anySatisfy(t -> assertThat(t.isReflection()).isTrue());
      assertThat(advantages.size()).isEqualTo(scored.size()).isPositive();
    }
  }
}
