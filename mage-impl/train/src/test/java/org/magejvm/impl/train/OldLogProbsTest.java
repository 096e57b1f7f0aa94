package org.magejvm.impl.train;

import org.magejvm.impl.train.update.OldLogProbs;
import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.train.TrainingConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * Where the old log-probabilities come from ({@code update.old_log_probs}): the recorded ones agree with a
 * recomputation where {@link OldLogProbs#AUTO} takes them, AUTO recomputes where they would not be exact, and configs
 * written with the former boolean key still read.
 */
class OldLogProbsTest {

  private static final EnvironmentRegistry VOWELS = EnvironmentRegistry.empty().register(new VowelProvider());

  @Test
  void autoTakesTheRecordedOnesOnlyForALocalFloat32RolloutAtTemperatureOne() {
    assertThat(OldLogProbs.AUTO.recompute(true, true, 1.0)).isFalse();
    assertThat(OldLogProbs.AUTO.recompute(false, true, 1.0)).isTrue();
    assertThat(OldLogProbs.AUTO.recompute(true, false, 1.0)).isTrue();
    assertThat(OldLogProbs.AUTO.recompute(true, true, 0.7)).isTrue();
    assertThat(OldLogProbs.AUTO.recompute(true, true, Double.NaN)).isTrue();
    assertThat(OldLogProbs.RECOMPUTE.recompute(true, true, 1.0)).isTrue();
    assertThat(OldLogProbs.RECORDED.recompute(false, false, 0.7)).isFalse();
  }

  @Test
  void theRecordedLogProbsOfALocalRolloutAtTemperatureOneEqualARecomputationWithinFloatRounding(@TempDir Path dir) {
    Path model = TinyRun.writeModel(dir.resolve("model"));
    float worst = 0;
    int tokens = 0;
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model,
        Qwen3Checkpoint.Options.cpu().withThinking(false).withSeed(3))) {
      RemoteRolloutTest.Capture capture = new RemoteRolloutTest.Capture(policy);
      RolloutConfig rollout = RolloutConfig.builder()
          .setEnvironmentId(VowelProvider.ID)
          .optTasks(4)
          .optGroupSize(4)
          .optEpisodes(1)
          .optContextMode(ContextMode.NONE)
          .optPromptStyle(PromptStyle.COMPACT)
          .optSampling(SamplingConfig.training(6).withSeed(11))
          .optSeed(7)
          .build();
      new MetaEpisodeRunner(VOWELS).run(rollout, capture);
      for (List<Generation> call : capture.calls) {
        for (Generation g : call) {
          float[] again = RemoteRolloutTest.recompute(MageTrainer.modelOf(policy), g);
          for (int j = 0; j < again.length; j++) {
            worst = Math.max(worst, Math.abs(again[j] - g.logProbs()[j]));
            tokens++;
          }
        }
      }
    }
    System.out.printf("%d sampled tokens: largest |recorded - recomputed| log-prob %.3g%n", tokens, worst);
    assertThat(tokens).isGreaterThanOrEqualTo(16);
    assertThat(worst).isLessThanOrEqualTo(1e-5f);
  }

  /** The old log-prob tokens the first update scored, from the trainer's metrics. */
  private static long oldTokens(Path dir, Path model, OldLogProbs source, boolean remote) {
    try (TinyRun run = new TinyRun(dir, model, -1, 0, List.of(), (b, p) -> {
      b.optOldLogProbs(source);
      if (remote) {
        b.optRolloutPolicy(new RemoteRolloutTest.Capture(p));
      }
    })) {
      Map<String, Object> m = run.trainer.step();
      assertThat(((Number) m.get("tokens/update_optimize")).longValue()).isPositive();
      return ((Number) m.get("tokens/update_old")).longValue();
    }
  }

  @Test
  void autoSkipsTheOldScoringPassOnlyWhereTheRecordedOnesAreExact(@TempDir Path dir) {
    Path model = TinyRun.writeModel(dir.resolve("model"));
    assertThat(oldTokens(dir.resolve("auto"), model, OldLogProbs.AUTO, false)).isZero();
    assertThat(oldTokens(dir.resolve("recompute"), model, OldLogProbs.RECOMPUTE, false)).isPositive();
    assertThat(oldTokens(dir.resolve("remote"), model, OldLogProbs.AUTO, true)).isPositive();
    assertThatThrownBy(() -> oldTokens(dir.resolve("recorded-remote"), model, OldLogProbs.RECORDED, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be recomputed locally");
  }

  @Test
  void theFormerBooleanKeyStillReads() {
    String file = "{\"preset\": \"gigpo\", \"environment\": {\"id\": \"" + VowelProvider.ID + "\"},"
        + " \"update\": {\"recompute_old_log_probs\": false}}";
    assertThat(TrainingConfig.fromJson(file, VOWELS).update().oldLogProbs()).isEqualTo(OldLogProbs.RECORDED);
    // the reference presets recompute, as the reference does (mage's AUTO is checked where a game has attempts)
    TrainingConfig base = TrainingPreset.GIGPO.config(VOWELS.require(VowelProvider.ID));
    assertThat(base.update().oldLogProbs()).isEqualTo(OldLogProbs.RECOMPUTE);
    base = base.toBuilder().set("update.old_log_probs", OldLogProbs.AUTO).build();
    assertThat(base.toBuilder().set("update.recompute_old_log_probs=true").build().update().oldLogProbs())
        .isEqualTo(OldLogProbs.RECOMPUTE);
    assertThat(base.toBuilder().set("update.old_log_probs=recorded").build().update().oldLogProbs())
        .isEqualTo(OldLogProbs.RECORDED);
    String both = "{\"preset\": \"gigpo\", \"environment\": {\"id\": \"" + VowelProvider.ID + "\"},"
        + " \"update\": {\"recompute_old_log_probs\": false, \"old_log_probs\": \"auto\"}}";
    assertThatThrownBy(() -> TrainingConfig.fromJson(both, VOWELS)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("keep update.old_log_probs");
    // a complete config written before update.micro_batch_tokens existed (a checkpoint's) reads as it ran
    com.google.gson.JsonObject complete = com.google.gson.JsonParser.parseString(base.toJson()).getAsJsonObject();
    assertThat(complete.getAsJsonObject("update").remove("micro_batch_tokens")).isNotNull();
    assertThat(TrainingConfig.fromJson(complete.toString()).update().microBatchTokens()).isZero();
    assertThat(base.update().microBatchTokens()).isEqualTo(TrainingPreset.DEFAULT_MICRO_BATCH_TOKENS);
    String wrong = "{\"preset\": \"gigpo\", \"environment\": {\"id\": \"" + VowelProvider.ID + "\"},"
        + " \"update\": {\"recompute_old_log_probs\": \"maybe\"}}";
    assertThatThrownBy(() -> TrainingConfig.fromJson(wrong, VOWELS)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("must be true or false");
  }
}
