package org.magejvm.impl.train.warmstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

class ScriptedWarmStartTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();
  private static final String KUHN = "mage-kuhn-poker";

  private static RolloutConfig rollouts(Map<String, String> options) {
    return RolloutConfig.builder().setEnvironmentId(KUHN).optEnvironmentOptions(options)
        .optContextMode(ContextMode.HISTORY_ONLY).optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16)).build();
  }

  private static ScriptedWarmStart warmStart(Map<String, String> options, WarmStartSettings settings) {
    return new ScriptedWarmStart(REGISTRY, rollouts(options), "fixed-line", "", settings,
        new PrintWriter(Writer.nullWriter()));
  }

  private static WarmStartSettings settings(double repeat) {
    return new WarmStartSettings(64, repeat, 3, WarmStartSettings.DEFAULT_EPOCHS,
        WarmStartSettings.DEFAULT_LEARNING_RATE);
  }

  @Test
  void settingsRejectImpossibleValues() {
    assertThatThrownBy(() -> new WarmStartSettings(0, 0.5, 1, 4, 1e-3)).hasMessageContaining("1 example");
    assertThatThrownBy(() -> new WarmStartSettings(1, 1.5, 1, 4, 1e-3)).hasMessageContaining("repeat share");
    assertThatThrownBy(() -> new WarmStartSettings(1, 0.5, 1, 0, 1e-3)).hasMessageContaining("1 epoch");
    assertThatThrownBy(() -> new WarmStartSettings(1, 0.5, 1, 4, Double.POSITIVE_INFINITY))
        .hasMessageContaining("learning rate");
  }

  @Test
  void theKeyNamesEverySettingTheWarmStartDependsOn() {
    assertThat(warmStart(Map.of(), settings(0.5)).key()).isEqualTo("examples=64 repeat_share=0.5 seed=3 epochs=4"
        + " lr=0.001" + System.lineSeparator());
    assertThat(warmStart(Map.of("reward", "win-loss"), new WarmStartSettings(64, 0.0, 3, 1, 3e-3)).key())
        .isEqualTo("examples=64 repeat_share=0.0 seed=3 options={reward=win-loss}" + System.lineSeparator());
    // no reflective player, or a context without reflections: the warm start learns play turns only
    assertThat(warmStart(Map.of(), settings(0.5)).reflective()).isFalse();
    ScriptedWarmStart noPlayer = new ScriptedWarmStart(REGISTRY, rollouts(Map.of()).toBuilder()
        .optContextMode(ContextMode.REFLECTION_ONLY).build(), "fixed-line", "", settings(0.5),
        new PrintWriter(Writer.nullWriter()));
    assertThat(noPlayer.reflective()).isFalse();
    assertThatThrownBy(noPlayer::reflectiveCorpus).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aCachedWarmStartIsReusedOnlyWithItsOwnSettings(@TempDir Path dir) throws Exception {
    Path warm = Files.createDirectories(dir.resolve("warm-start"));
    Files.writeString(warm.resolve("model.safetensors"), "");
    ScriptedWarmStart same = warmStart(Map.of(), settings(0.5));
    Files.writeString(warm.resolve(ScriptedWarmStart.SETTINGS_FILE), same.key());
    Path transcripts = dir.resolve("turns.jsonl");
    assertThat(same.cachedOrTrained(warm, transcripts, () -> {
      throw new AssertionError("nothing is trained for a cached warm start");
    })).isEqualTo(warm);
    assertThatThrownBy(() -> warmStart(Map.of(), settings(0.0)).cachedOrTrained(warm, transcripts, () -> dir))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("made with examples=64 repeat_share=0.5")
        .hasMessageContaining("not examples=64 repeat_share=0.0");
    assertThat(transcripts).doesNotExist();
  }

  @Test
  void theTranscriptsAreTheScriptedPlayTurnsTheSameOnEveryCall() {
    ScriptedWarmStart w = warmStart(Map.of(), settings(0.5));
    List<Transcript> turns = w.transcripts(40);
    assertThat(turns).hasSize(40).allMatch(t -> t.assistantTurns() == 1);
    assertThat(w.transcripts(40)).isEqualTo(turns);
    assertThat(w.probeMetaEpisodes(6)).hasSize(6);
  }

  @Test
  void theMixedPlayerRepeatsThePreviousAttemptWhenToldTo() {
    RolloutConfig config = rollouts(Map.of()).toBuilder().optTasks(8).optGroupSize(2).optSeed(5).build();
    try (MixedScriptedPolicy always = new MixedScriptedPolicy(REGISTRY.require(KUHN), "fixed-line", 7, 1.0)) {
      assertThat(always.name()).isEqualTo("fixed-line+random");
      int compared = 0;
      for (MetaEpisode m : new org.magejvm.impl.rollout.MetaEpisodeRunner(REGISTRY).run(config, always)
          .metaEpisodes()) {
        for (int k = 1; k < m.episodes().size(); k++) {
          List<String> before = actions(m.episodes().get(k - 1));
          List<String> now = actions(m.episodes().get(k));
          // the first action of a later attempt sees the same betting state as the previous attempt's
          if (!before.isEmpty() && !now.isEmpty()) {
            assertThat(now.get(0)).isEqualTo(before.get(0));
            compared++;
          }
        }
      }
      assertThat(compared).isPositive();
    }
  }

  private static List<String> actions(Episode e) {
    return e.turns().stream().map(Turn::action).toList();
  }

  @Test
  void twoCallersOnOneDirectoryTrainItOnceTheSecondWaitingForTheFirst(@TempDir Path dir) throws Exception {
    Path warm = dir.resolve("warm-start");
    java.util.concurrent.atomic.AtomicInteger baseModels = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.CountDownLatch firstInside = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.function.Supplier<Path> slowBase = () -> {
      baseModels.incrementAndGet();
      firstInside.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return TinyBaseModel.write(dir.resolve("tiny"), "bet check call fold", 5, 32, 1);
    };
    ScriptedWarmStart ws = warmStart(Map.of(), new WarmStartSettings(8, 0.5, 3, 1, 1e-3));
    var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      var first = pool.submit(() -> ws.cachedOrTrained(warm, dir.resolve("a.jsonl"), slowBase));
      firstInside.await();
      var second = pool.submit(() -> ws.cachedOrTrained(warm, dir.resolve("b.jsonl"), slowBase));
      Thread.sleep(200);
      // the second caller waits on the lock while the first trains
      assertThat(second.isDone()).isFalse();
      release.countDown();
      assertThat(first.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(warm);
      assertThat(second.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(warm);
    } finally {
      pool.shutdownNow();
    }
    assertThat(baseModels).hasValue(1);
    assertThat(dir.resolve("b.jsonl")).doesNotExist();
    assertThat(Files.readString(warm.resolve(ScriptedWarmStart.SETTINGS_FILE))).isEqualTo(ws.key());
    assertThat(dir.resolve("warm-start.lock")).as("no trace once made").doesNotExist();
  }
}
