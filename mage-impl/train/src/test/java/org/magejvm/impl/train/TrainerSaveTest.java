package org.magejvm.impl.train;

import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.listen.MetricsFileListener;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * {@link MageTrainer#save}: the trained policy as a new model directory (full weights, or a LoRA run's adapter naming
 * its base), never over the base model or another model; {@link TrainerBuilder#optRunDirectory} writes the
 * config, the metrics and the checkpoints into one directory.
 */
class TrainerSaveTest {

  private static final EnvironmentRegistry VOWELS = EnvironmentRegistry.empty().register(new VowelProvider());

  private static TrainingConfig config() {
    return TrainingPreset.GIGPO.config(VOWELS.require(VowelProvider.ID)).toBuilder()
        .set("rollout.tasks", 2).set("rollout.group_size", 2).set("rollout.prompt_style", "compact")
        .set("sampling.max_new_tokens", 6).set("adamw.learning_rate", 1e-2)
        .set("update.mini_batch_turns", 4).set("update.micro_batch_turns", 4)
        .set("validation.every", 0).set("iterations", 1).set("seed", TinyRun.SEED)
        .build();
  }

  private static Map<String, byte[]> weights(DjlLanguagePolicy policy) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    MageTrainer.modelOf(policy).weights().parameters().forEach((k, v) -> out.put(k, Params.bytes(v)));
    return out;
  }

  @Test
  void savesTheTrainedWeightsAsANewCheckpointAndRefusesTheBaseModelAndAnExistingModel(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    Path run = tmp.resolve("run");
    Path saved = tmp.resolve("saved");
    Map<String, byte[]> trained;
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu());
        MageTrainer trainer = MageTrainer.builder(config(), policy, VOWELS).optRunDirectory(run).build()) {
      // the base model is the policy's own directory, found without being given
      assertThat(trainer.baseModel()).contains(model.toAbsolutePath());
      trainer.fit(1);
      trained = weights(policy);
      assertThat(trainer.save(saved)).isEqualTo(saved);
      assertThat(saved.resolve("config.json")).hasSameTextualContentAs(model.resolve("config.json"));
      assertThat(saved.resolve("tokenizer.json")).exists();
      byte[] written = readAll(saved.resolve("model.safetensors"));
      byte[] base = readAll(model.resolve("model.safetensors"));
      // over the base model, over the model just saved: one line naming the directory, nothing written
      assertThatThrownBy(() -> trainer.save(model)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(model.toString()).hasMessageContaining("loaded from").hasNoCause();
      assertThatThrownBy(() -> trainer.save(saved)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(saved.toString()).hasMessageContaining("already holds a model (model.safetensors)")
          .hasNoCause();
      assertThat(readAll(saved.resolve("model.safetensors"))).isEqualTo(written);
      assertThat(readAll(model.resolve("model.safetensors"))).isEqualTo(base);
    }
    // the run directory holds the config, one metrics line and the final checkpoint
    assertThat(run.resolve("config.json")).exists();
    assertThat(TrainingConfig.fromJson(readString(run.resolve("config.json")), VOWELS)).isEqualTo(config());
    assertThat(readString(run.resolve(MetricsFileListener.FILE_NAME)).lines()).hasSize(1);
    assertThat(run.resolve(TrainingCheckpoint.CHECKPOINTS_DIR).resolve(TrainingCheckpoint.directoryName(1)))
        .isDirectory();
    // the saved model reloads with the trained weights
    try (DjlLanguagePolicy reloaded = Qwen3Checkpoint.loadPolicy(saved, Qwen3Checkpoint.Options.cpu())) {
      Map<String, byte[]> w = weights(reloaded);
      assertThat(w.keySet()).isEqualTo(trained.keySet());
      trained.forEach((k, v) -> assertThat(w.get(k)).as(k).isEqualTo(v));
    }
  }

  @Test
  void aLoraRunSavesItsAdapterNamingTheBaseModel(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    Path saved = tmp.resolve("adapter");
    Map<String, byte[]> adapterWeights = new LinkedHashMap<>();
    TrainingConfig lora = config().toBuilder().set("fine_tuning.mode", "lora").set("fine_tuning.lora_rank", 2)
        .set("adamw.learning_rate", 0.05).build();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu());
        MageTrainer trainer = MageTrainer.create(lora, policy, VOWELS)) {
      trainer.step();
      trainer.save(saved);
      trainer.fineTuning().orElseThrow().adapter().orElseThrow().trainableParameters()
          .forEach((k, v) -> adapterWeights.put(k, Params.bytes(v)));
      assertThatThrownBy(() -> trainer.save(saved)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(saved.toString()).hasMessageContaining("already holds a model");
    }
    assertThat(saved.resolve(PeftAdapters.WEIGHTS_FILE)).exists();
    assertThat(saved.resolve("model.safetensors")).doesNotExist();
    String base = JsonParser.parseString(readString(saved.resolve(PeftAdapters.CONFIG_FILE))).getAsJsonObject()
        .get("base_model_name_or_path").getAsString();
    assertThat(Path.of(base)).isEqualTo(model.toAbsolutePath().normalize());
    try (DjlLanguagePolicy reloaded = Qwen3Checkpoint.loadPolicy(Path.of(base), Qwen3Checkpoint.Options.cpu(),
        saved)) {
      var adapter = PeftAdapters.load(saved, MageTrainer.modelOf(reloaded));
      try {
        adapter.trainableParameters().forEach((k, v) -> assertThat(Params.bytes(v)).as(k)
            .isEqualTo(adapterWeights.get(k)));
      } finally {
        adapter.close();
      }
    }
  }

  private static byte[] readAll(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String readString(Path p) {
    try {
      return Files.readString(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
