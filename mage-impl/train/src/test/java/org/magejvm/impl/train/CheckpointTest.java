package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.checkpoint.CheckpointWeights;
import org.magejvm.impl.train.checkpoint.FullModelWeights;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Checkpoints of a tiny run: contents, exact in-process resume (with a negative control), refusals of damaged or
 * incompatible checkpoints, a failing write that leaves the earlier checkpoints intact, and retention.
 */
class CheckpointTest {

  @TempDir static Path shared;
  static Path model;
  /** A run of 2 iterations with a checkpoint after each; its metrics by iteration. */
  static Path run;
  static List<Map<String, Object>> runMetrics = new ArrayList<>();

  @BeforeAll
  static void trainTwoIterations() {
    model = TinyRun.writeModel(shared.resolve("model"));
    run = shared.resolve("run");
    TrainingListener collect = new TrainingListener() {
      @Override
      public void onIterationEnd(int iteration, Map<String, Object> metrics) {
        runMetrics.add(metrics);
      }
    };
    try (TinyRun r = new TinyRun(run, model, 1, List.of(collect))) {
      r.trainer.fit(2);
    }
  }

  private static Map<String, Object> withoutTimings(Map<String, Object> m) {
    Map<String, Object> out = new LinkedHashMap<>(m);
    out.keySet().removeIf(k -> k.startsWith("timing/"));
    return out;
  }

  private static Path checkpoint(int iteration) {
    return run.resolve("checkpoints").resolve(TrainingCheckpoint.directoryName(iteration));
  }

  /** A copy of checkpoint 1 to damage. */
  private static Path copyOfCheckpoint(Path tmp) throws IOException {
    Path src = checkpoint(1);
    Path dst = tmp.resolve("copy");
    try (var s = Files.walk(src)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path t = dst.resolve(src.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
    return dst;
  }

  @Test
  void aCheckpointHoldsWeightsOptimizerStateConfigurationProvenanceAndChecksums() {
    TrainingCheckpoint cp = TrainingCheckpoint.open(checkpoint(2));
    assertThat(cp.iteration()).isEqualTo(2);
    assertThat(cp.seed()).isEqualTo(TinyRun.SEED);
    assertThat(cp.environmentId()).isEqualTo(VowelProvider.ID);
    assertThat(cp.environmentVersion()).isEqualTo("1");
    assertThat(cp.weightsKind()).isEqualTo(FullModelWeights.KIND);
    assertThat(cp.weightsDirectory().resolve("model.safetensors")).isRegularFile();
    assertThat(cp.weightsDirectory().resolve("config.json")).isRegularFile();
    assertThat(cp.weightsDirectory().resolve("tokenizer.json")).isRegularFile();
    assertThat(cp.optimizerDirectory().resolve(AdamW.STATE_FILE)).isRegularFile();
    JsonObject config = cp.configuration();
    assertThat(config.keySet()).contains("seed", "environment", "rollout", "credit", "optimizer", "adamw", "update",
        "validations", "validate_every", "checkpoints");
    assertThat(config.getAsJsonObject("optimizer").get("id").getAsString()).isEqualTo("gigpo");
    assertThat(config.getAsJsonObject("rollout").get("tasks").getAsInt()).isEqualTo(2);
    JsonObject prov = cp.provenance();
    assertThat(prov.keySet()).contains("library_version", "java_version", "jvm", "djl_version", "libtorch_version",
        "os", "threads", "timestamp");
    assertThat(prov.get("djl_version").getAsString()).isEqualTo("0.35.1");
    assertThat(prov.get("library_version").getAsString()).doesNotContain("${");
    assertThat(cp.metrics()).containsKeys("iteration", "actor/pg_loss", "val/success_rate[0]");
    long steps = 0;
    for (Map<String, Object> m : runMetrics) {
      steps += ((Number) m.get("optimizer_steps")).longValue() - ((Number) m.get("skipped_steps")).longValue();
    }
    assertThat(steps).isPositive();
    assertThat(cp.state().getAsJsonObject("optimizer").get("step_count").getAsLong()).isEqualTo(steps);
    // the model loads from the checkpoint's weights like any Hugging Face directory
    try (DjlLanguagePolicy p = Qwen3Checkpoint.loadPolicy(cp.weightsDirectory(), Qwen3Checkpoint.Options.cpu())) {
      assertThat(p.tokenizer().vocabSize()).isPositive();
    }
  }

  @Test
  void resumingFromACheckpointRepeatsTheNextIterationExactlyAndNotResumingDoesNot() {
    Map<String, Object> expected = withoutTimings(runMetrics.get(1));
    try (TinyRun resumed = new TinyRun(shared.resolve("resumed"), model, -1, List.of())) {
      resumed.trainer.resume(TrainingCheckpoint.open(checkpoint(1)));
      assertThat(resumed.trainer.iteration()).isEqualTo(1);
      assertThat(withoutTimings(resumed.trainer.step())).isEqualTo(expected);
      // and the weights after it equal the uninterrupted run's
      try (Qwen3Model saved = Qwen3Checkpoint.loadModel(checkpoint(2).resolve("weights"), ai.djl.Device.cpu(),
          ai.djl.ndarray.types.DataType.FLOAT32)) {
        Map<String, NDArray> now = MageTrainer.modelOf(resumed.policy).weights().parameters();
        for (Map.Entry<String, NDArray> e : saved.weights().parameters().entrySet()) {
          assertThat(now.get(e.getKey()).toFloatArray()).as(e.getKey()).isEqualTo(e.getValue().toFloatArray());
        }
      }
    }
    // negative control: the same iteration from the initial weights (no restore) gives other metrics
    try (TinyRun fresh = new TinyRun(shared.resolve("fresh"), model, -1, List.of())) {
      MageTrainer t = MageTrainer.builder().setRegistry(
          org.magejvm.spi.EnvironmentRegistry.empty().register(new VowelProvider()))
          .setPolicy(fresh.policy).setRollout(rolloutOf(fresh)).setCredit(creditOf())
          .setOptimizer(optimizerOf()).setAdamW(fresh.adamw).optReference(fresh.reference)
          .optUpdateSettings(new PolicyUpdater.Settings(4, 4, 1, true, true)).optSeed(TinyRun.SEED)
          .optStartIteration(1).build();
      Map<String, Object> m = withoutTimings(t.step());
      expected.keySet().removeIf(k -> k.startsWith("val/"));
      assertThat(m).isNotEqualTo(expected);
      // a trainer with another seed refuses the checkpoint
      MageTrainer otherSeed = MageTrainer.builder().setRegistry(
          org.magejvm.spi.EnvironmentRegistry.empty().register(new VowelProvider()))
          .setPolicy(fresh.policy).setRollout(rolloutOf(fresh)).setCredit(creditOf())
          .setOptimizer(optimizerOf()).setAdamW(fresh.adamw).optReference(fresh.reference).optSeed(99).build();
      assertThatThrownBy(() -> otherSeed.resume(TrainingCheckpoint.open(checkpoint(1))))
          .isInstanceOf(TrainingException.class).hasMessageContaining(TrainingCheckpoint.STATE_FILE)
          .hasMessageContaining("seed " + TinyRun.SEED);
    }
  }

  /**
   * With the anchor check on, an uninterrupted run takes each update's anchor baseline from the update before; a run
   * resumed from a checkpoint must score the anchors again, and that scoring is not counted, so that its metrics,
   * {@code tokens/update_checks} included, equal the uninterrupted run's.
   */
  @Test
  void aResumedRunWithAnchorsCountsTheSameUpdateCheckTokensAsAnUninterruptedOne(@TempDir Path tmp) {
    java.util.function.BiConsumer<TrainerBuilder, DjlLanguagePolicy> anchored = TinyRun::withAnchors;
    List<Map<String, Object>> whole = new ArrayList<>();
    TrainingListener collect = new TrainingListener() {
      @Override
      public void onIterationEnd(int iteration, Map<String, Object> metrics) {
        whole.add(metrics);
      }
    };
    try (TinyRun r = new TinyRun(tmp.resolve("whole"), model, 1, 0, List.of(collect), anchored)) {
      r.trainer.fit(2);
    }
    assertThat(whole.get(1)).containsKey("anchor_logprob_change");
    Path first = tmp.resolve("whole").resolve("checkpoints").resolve(TrainingCheckpoint.directoryName(1));
    TrainingCheckpoint cp = TrainingCheckpoint.open(first);
    assertThat(cp.anchorScoresHeld()).isTrue();
    assertThat(cp.state().getAsJsonObject("updater").get("anchor_scores_held").getAsBoolean()).isTrue();
    try (TinyRun resumed = new TinyRun(tmp.resolve("resumed"), model, -1, 0, List.of(), anchored)) {
      resumed.trainer.resume(cp);
      Map<String, Object> m = withoutTimings(resumed.trainer.step());
      assertThat(m.get("tokens/update_checks")).isEqualTo(whole.get(1).get("tokens/update_checks"));
      assertThat(m).isEqualTo(withoutTimings(whole.get(1)));
    }
    // the checkpoints of a run without anchors say so
    assertThat(TrainingCheckpoint.open(checkpoint(1)).anchorScoresHeld()).isFalse();
  }

  private static org.magejvm.impl.rollout.RolloutConfig rolloutOf(TinyRun r) {
    return org.magejvm.impl.rollout.RolloutConfig.builder().setEnvironmentId(VowelProvider.ID).optTasks(2)
        .optGroupSize(2).optEpisodes(1).optContextMode(org.magejvm.api.ContextMode.NONE)
        .optPromptStyle(org.magejvm.spi.PromptStyle.COMPACT)
        .optSampling(org.magejvm.api.SamplingConfig.training(6)).build();
  }

  private static org.magejvm.impl.credit.CreditConfig creditOf() {
    return org.magejvm.impl.credit.CreditConfig.forEnvironment(VowelProvider.DEFAULTS)
        .optMetaReturn(org.magejvm.api.MetaReturn.SINGLE_EPISODE).build();
  }

  private static org.magejvm.api.PolicyOptimizer optimizerOf() {
    return org.magejvm.api.plugin.ProviderRegistry.discover(org.magejvm.api.PolicyOptimizerProvider.class)
        .require("gigpo").create(org.magejvm.api.OptimizerConfig.builder().optKlCoefficient(0.1)
            .build());
  }

  @Test
  void aTruncatedFileIsRefusedNamingIt(@TempDir Path tmp) throws IOException {
    Path cp = copyOfCheckpoint(tmp);
    Path f = cp.resolve("weights/model.safetensors");
    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
      raf.setLength(raf.length() / 2);
    }
    assertThatThrownBy(() -> TrainingCheckpoint.open(cp)).isInstanceOf(TrainingException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("truncated");
  }

  @Test
  void aCorruptedFileIsRefusedWithAChecksumMismatch(@TempDir Path tmp) throws IOException {
    Path cp = copyOfCheckpoint(tmp);
    Path f = cp.resolve("optimizer").resolve(AdamW.STATE_FILE);
    String text = Files.readString(f, StandardCharsets.UTF_8);
    Files.writeString(f, text.replace("\"step_count\": 2", "\"step_count\": 3"), StandardCharsets.UTF_8);
    assertThat(Files.readString(f, StandardCharsets.UTF_8)).isNotEqualTo(text);
    assertThatThrownBy(() -> TrainingCheckpoint.open(cp)).isInstanceOf(TrainingException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("checksum mismatch");
  }

  @Test
  void aMissingFileOrManifestIsRefused(@TempDir Path tmp) throws IOException {
    Path cp = copyOfCheckpoint(tmp);
    Path f = cp.resolve(TrainingCheckpoint.STATE_FILE);
    Files.delete(f);
    assertThatThrownBy(() -> TrainingCheckpoint.open(cp)).isInstanceOf(TrainingException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("missing");
    Files.delete(cp.resolve(TrainingCheckpoint.MANIFEST_FILE));
    assertThatThrownBy(() -> TrainingCheckpoint.open(cp)).isInstanceOf(TrainingException.class)
        .hasMessageContaining(TrainingCheckpoint.MANIFEST_FILE).hasMessageContaining("incomplete");
  }

  @Test
  void anotherModelShapeOrEnvironmentIsRefused(@TempDir Path tmp) {
    TrainingCheckpoint cp = TrainingCheckpoint.open(checkpoint(1));
    Path other = tmp.resolve("wide");
    TinyCheckpoint.write(other, new TinyCheckpoint.Spec(48, 1, 2, 1, 16, 48, 48, "abc", 3));
    try (DjlLanguagePolicy p = Qwen3Checkpoint.loadPolicy(other, Qwen3Checkpoint.Options.cpu())) {
      Qwen3Model m = MageTrainer.modelOf(p);
      m.weights().requireGradients(true);
      try (AdamW adamw = new AdamW(m.weights().parameters(), AdamWConfig.defaults())) {
        // the weights are checked before the optimizer state, so the message names the weights file
        assertThatThrownBy(() -> cp.restore(CheckpointWeights.full(m, null), adamw))
            .isInstanceOf(TrainingException.class)
            .hasMessageContaining(cp.weightsDirectory().resolve("model.safetensors").toString())
            .hasMessageContaining("shape");
        assertThat(adamw.stepCount()).isZero();
        assertThatThrownBy(() -> CheckpointWeights.full(m, null).restore(cp.weightsDirectory()))
            .isInstanceOf(TrainingException.class)
            .hasMessageContaining(cp.weightsDirectory().resolve("model.safetensors").toString())
            .hasMessageContaining("another shape");
      }
    }
    assertThatThrownBy(() -> cp.requireEnvironment("mage-kuhn", "1")).isInstanceOf(TrainingException.class)
        .hasMessageContaining(TrainingCheckpoint.STATE_FILE).hasMessageContaining(VowelProvider.ID);
  }

  @Test
  void aFailedWriteLeavesTheEarlierCheckpointsIntact(@TempDir Path tmp) throws IOException {
    Path dir = tmp.resolve("checkpoints");
    try (TinyRun r = new TinyRun(tmp.resolve("run"), model, -1, List.of())) {
      Qwen3Model m = MageTrainer.modelOf(r.policy);
      CheckpointManager good = CheckpointManager.builder().setDirectory(dir)
          .setWeights(CheckpointWeights.full(m, model)).optKeepLast(1).build();
      Path first = good.save(snapshot(r, 1));
      byte[] before = Files.readAllBytes(first.resolve(TrainingCheckpoint.MANIFEST_FILE));
      // a disk that fills up half-way through the weights
      CheckpointWeights full = new CheckpointWeights() {
        @Override
        public String kind() {
          return FullModelWeights.KIND;
        }

        @Override
        public void save(Path d) {
          try {
            Files.createDirectories(d);
            Files.write(d.resolve("model.safetensors"), new byte[1000]);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          throw new java.io.UncheckedIOException(new IOException("No space left on device"));
        }

        @Override
        public void restore(Path d) {}
      };
      CheckpointManager failing = CheckpointManager.builder().setDirectory(dir).setWeights(full).optKeepLast(1)
          .build();
      assertThatThrownBy(() -> failing.save(snapshot(r, 2))).isInstanceOf(TrainingException.class)
          .hasMessageContaining("iter-00000002").hasMessageContaining("No space left on device")
          .hasMessageContaining("untouched");
      // the same iteration again: the existing complete checkpoint must survive a failed rewrite too
      assertThatThrownBy(() -> failing.save(snapshot(r, 1))).isInstanceOf(TrainingException.class);
      try (var s = Files.list(dir)) {
        assertThat(s.map(p -> p.getFileName().toString())).containsExactly("iter-00000001");
      }
      assertThat(Files.readAllBytes(first.resolve(TrainingCheckpoint.MANIFEST_FILE))).isEqualTo(before);
      assertThat(TrainingCheckpoint.open(first).iteration()).isEqualTo(1);
    }
  }

  private static CheckpointManager.Snapshot snapshot(TinyRun r, int iteration) {
    return snapshot(r, iteration, Map.of());
  }

  private static CheckpointManager.Snapshot snapshot(TinyRun r, int iteration, Map<String, Object> metrics) {
    return new CheckpointManager.Snapshot(iteration, TinyRun.SEED, VowelProvider.ID, "1",
        r.trainer.configuration(), metrics, r.adamw);
  }

  @Test
  void keepsTheLastNAndTheBestAndCleansUpInterruptedWrites(@TempDir Path tmp) throws IOException {
    Path dir = tmp.resolve("checkpoints");
    Files.createDirectories(dir.resolve(".tmp-iter-00000009-deadbeef/weights"));
    try (TinyRun r = new TinyRun(tmp.resolve("run"), model, -1, List.of())) {
      CheckpointManager cm = CheckpointManager.builder().setDirectory(dir)
          .setWeights(CheckpointWeights.full(MageTrainer.modelOf(r.policy), model)).optKeepLast(2)
          .optBestMetric("val/success_rate[2]").build();
      assertThat(dir.resolve(".tmp-iter-00000009-deadbeef")).doesNotExist();
      double[] rates = {0.1, 0.9, 0.2, 0.3, 0.4};
      for (int i = 1; i <= 5; i++) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("iteration", i - 1);
        if (i != 4) {
          m.put("val/success_rate[2]", rates[i - 1]);
        }
        cm.save(snapshot(r, i, m));
      }
      assertThat(cm.checkpoints().keySet()).containsExactly(2, 4, 5);
      assertThat(cm.best()).contains(dir.resolve("iter-00000002"));
      assertThat(Files.readString(dir.resolve(CheckpointManager.BEST_FILE))).contains("iter-00000002")
          .contains("0.9");
      assertThat(TrainingCheckpoint.locate(tmp.resolve("run").getParent().resolve("checkpoints").getParent()))
          .isEqualTo(dir.resolve("iter-00000005"));
      // a crash while a resumed run replaced iter-5: the old copy was set aside, the new one not yet renamed
      Files.move(dir.resolve("iter-00000005"), dir.resolve(".old-iter-00000005-0badcafe"));
      Files.createDirectories(dir.resolve(".tmp-iter-00000005-12345678/weights"));
      CheckpointManager.builder().setDirectory(dir).setWeights(CheckpointWeights.full(MageTrainer.modelOf(r.policy),
          model)).build();
      try (var s = Files.list(dir)) {
        assertThat(s.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("iter-00000002",
            "iter-00000004", "iter-00000005", CheckpointManager.BEST_FILE);
      }
      assertThat(TrainingCheckpoint.open(dir.resolve("iter-00000005")).iteration()).isEqualTo(5);
    }
  }
}
