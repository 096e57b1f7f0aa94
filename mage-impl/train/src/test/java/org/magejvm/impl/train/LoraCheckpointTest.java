package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.checkpoint.CheckpointWeights;
import org.magejvm.impl.train.checkpoint.LoraAdapterWeights;
import org.magejvm.impl.train.checkpoint.Durable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.PeftAdapters;

/**
 * Checkpoints of a LoRA run: the adapter in PEFT layout and the AdamW state over its matrices only, an exact resume
 * (the same metrics and a bit-identical adapter file as an uninterrupted run), and refusals of a checkpoint of the
 * other kind or of another rank that name the file and the field.
 */
class LoraCheckpointTest {

  static final int RANK = 2;

  @TempDir static Path shared;
  static Path model;
  /** A LoRA run of 3 iterations with a checkpoint after each, and its metrics by iteration. */
  static Path loraRun;
  static final List<Map<String, Object>> loraMetrics = new ArrayList<>();
  /** A copy of the LoRA run's first checkpoint (the run keeps only its last two). */
  static Path loraCheckpoint1;
  /** A full fine-tuning run of 1 iteration. */
  static Path fullRun;

  @BeforeAll
  static void train() {
    model = TinyRun.writeModel(shared.resolve("model"));
    loraRun = shared.resolve("lora");
    loraCheckpoint1 = shared.resolve("lora-iter-1");
    TrainingListener keepFirst = new TrainingListener() {
      @Override
      public void onCheckpoint(int iteration, Path dir) {
        if (iteration == 1) {
          copy(dir, loraCheckpoint1);
        }
      }
    };
    try (TinyRun r = new TinyRun(loraRun, model, 1, RANK, List.of(collect(loraMetrics), keepFirst))) {
      r.trainer.fit(3);
    }
    fullRun = shared.resolve("full");
    try (TinyRun r = new TinyRun(fullRun, model, 1, List.of())) {
      r.trainer.fit(1);
    }
  }

  private static void copy(Path src, Path dst) {
    try (var s = Files.walk(src)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path t = dst.resolve(src.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static TrainingListener collect(List<Map<String, Object>> into) {
    return new TrainingListener() {
      @Override
      public void onIterationEnd(int iteration, Map<String, Object> metrics) {
        into.add(withoutTimings(metrics));
      }
    };
  }

  private static Map<String, Object> withoutTimings(Map<String, Object> m) {
    Map<String, Object> out = new LinkedHashMap<>(m);
    out.keySet().removeIf(k -> k.startsWith("timing/"));
    return out;
  }

  private static Path checkpoint(Path run, int iteration) {
    return run.resolve(TrainingCheckpoint.CHECKPOINTS_DIR).resolve(TrainingCheckpoint.directoryName(iteration));
  }

  @Test
  void aLoraCheckpointHoldsThePeftAdapterAndTheOptimizerStateOfItsMatricesOnly() {
    TrainingCheckpoint cp = TrainingCheckpoint.open(checkpoint(loraRun, 3));
    assertThat(cp.weightsKind()).isEqualTo(LoraAdapterWeights.KIND);
    Path weights = cp.weightsDirectory();
    assertThat(weights.resolve(PeftAdapters.CONFIG_FILE)).isRegularFile();
    assertThat(weights.resolve(PeftAdapters.WEIGHTS_FILE)).isRegularFile();
    assertThat(weights.resolve("model.safetensors")).doesNotExist();
    JsonObject config = cp.configuration();
    assertThat(config.getAsJsonObject("lora").get("r").getAsInt()).isEqualTo(RANK);
    assertThat(config.get("reference_model").getAsBoolean()).isTrue();
    JsonObject adamw = TrainingCheckpoint.readJson(cp.optimizerDirectory().resolve(AdamW.STATE_FILE));
    // 1 layer x 7 projections x (A, B)
    assertThat(adamw.get("parameter_count").getAsInt()).isEqualTo(14);
    assertThat(cp.state().getAsJsonObject("optimizer").get("step_count").getAsLong()).isPositive();
    // the adapter loads like any PEFT adapter, and training moved B away from its zero start
    try (TinyRun base = new TinyRun(shared.resolve("load"), model, -1, List.of());
        LoraAdapter loaded = PeftAdapters.load(weights, MageTrainer.modelOf(base.policy))) {
      assertThat(loaded.config().rank()).isEqualTo(RANK);
      float max = 0;
      for (Map.Entry<String, NDArray> e : loaded.trainableParameters().entrySet()) {
        if (e.getKey().contains("lora_B")) {
          for (float v : e.getValue().toFloatArray()) {
            max = Math.max(max, Math.abs(v));
          }
        }
      }
      assertThat(max).isPositive();
    }
  }

  @Test
  void aResumedLoraRunMatchesTheUninterruptedOneExactly() throws IOException {
    Path resumedRun = shared.resolve("resumed");
    List<Map<String, Object>> resumedMetrics = new ArrayList<>();
    try (TinyRun r = new TinyRun(resumedRun, model, 1, RANK, List.of(collect(resumedMetrics)))) {
      r.trainer.resume(TrainingCheckpoint.open(loraCheckpoint1));
      assertThat(r.trainer.iteration()).isEqualTo(1);
      r.trainer.fit(3);
    }
    assertThat(resumedMetrics).containsExactlyElementsOf(loraMetrics.subList(1, 3));
    // the weights changed from iteration to iteration, so equal metrics are no coincidence of a frozen adapter
    assertThat(loraMetrics.get(2).get("actor/pg_loss")).isNotEqualTo(loraMetrics.get(1).get("actor/pg_loss"));
    String file = TrainingCheckpoint.WEIGHTS_DIR + "/" + PeftAdapters.WEIGHTS_FILE;
    assertThat(Durable.sha256(checkpoint(resumedRun, 3).resolve(file)))
        .isEqualTo(Durable.sha256(checkpoint(loraRun, 3).resolve(file)))
        .isNotEqualTo(Durable.sha256(checkpoint(loraRun, 2).resolve(file)));

  }

  @Test
  void aCheckpointOfTheOtherKindOrAnotherRankIsRefusedNamingTheFileAndField() {
    try (TinyRun full = new TinyRun(shared.resolve("full-from-lora"), model, -1, List.of())) {
      assertThatThrownBy(() -> full.trainer.resume(TrainingCheckpoint.open(loraCheckpoint1)))
          .isInstanceOf(TrainingException.class)
          .hasMessageContaining(TrainingCheckpoint.STATE_FILE)
          .hasMessageContaining("field 'weights.kind' is 'lora'")
          .hasMessageContaining("'full' weights");
      assertThat(full.adamw.stepCount()).isZero();
    }
    try (TinyRun lora = new TinyRun(shared.resolve("lora-from-full"), model, -1, RANK, List.of())) {
      assertThatThrownBy(() -> lora.trainer.resume(TrainingCheckpoint.open(checkpoint(fullRun, 1))))
          .isInstanceOf(TrainingException.class)
          .hasMessageContaining(TrainingCheckpoint.STATE_FILE)
          .hasMessageContaining("field 'weights.kind' is 'full'")
          .hasMessageContaining("'lora' weights");
    }
    try (TinyRun rank4 = new TinyRun(shared.resolve("rank4"), model, -1, 4, List.of())) {
      assertThatThrownBy(() -> rank4.trainer.resume(TrainingCheckpoint.open(loraCheckpoint1)))
          .isInstanceOf(TrainingException.class)
          .hasMessageContaining(PeftAdapters.CONFIG_FILE)
          .hasMessageContaining("field 'r' is 2")
          .hasMessageContaining("rank 4");
      assertThat(rank4.adamw.stepCount()).isZero();
      assertThat(rank4.trainer.iteration()).isZero();
    }
  }

  @Test
  void theBuilderRefusesAnOptimizerOrCheckpointsThatDoNotMatchTheFineTuning() {
    try (TinyRun lora = new TinyRun(shared.resolve("builder"), model, -1, RANK, List.of());
        TinyRun full = new TinyRun(shared.resolve("builder-full"), model, -1, List.of())) {
      TrainerBuilder b = MageTrainer.builder()
          .setRegistry(org.magejvm.spi.EnvironmentRegistry.empty().register(new VowelProvider()))
          .setPolicy(lora.policy)
          .setRollout(org.magejvm.impl.rollout.RolloutConfig.builder().setEnvironmentId(VowelProvider.ID).build())
          .setCredit(org.magejvm.impl.credit.CreditConfig.forEnvironment(VowelProvider.DEFAULTS).build())
          .setOptimizer(org.magejvm.api.plugin.ProviderRegistry.discover(
              org.magejvm.api.PolicyOptimizerProvider.class).require("gigpo")
              .create(org.magejvm.api.OptimizerConfig.defaults()))
          .setAdamW(full.adamw)
          .optFineTuning(lora.fineTuning);
      assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("trainableParameters()");
      b.setAdamW(lora.adamw).optCheckpoints(CheckpointManager.builder().setDirectory(shared.resolve("x"))
          .setWeights(CheckpointWeights.full(MageTrainer.modelOf(lora.policy), model)).build());
      assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'full' weights").hasMessageContaining("'lora' weights");
      // without a reference of its own, the KL term uses the base weights (adapter off): the build succeeds
      b.optCheckpoints(null);
      assertThat(b.build().fineTuning()).containsSame(lora.fineTuning);
    }
  }
}
