package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * A run described by a {@link TrainingConfig}: the same run from a JSON file and from Java gives identical metrics
 * and weights, the checkpoint records the config, and the anchor check and LoRA come from the config alone.
 */
class ConfigRunTest {

  private static final EnvironmentRegistry VOWELS = EnvironmentRegistry.empty().register(new VowelProvider());

  /** The tiny run's settings as changes to the gigpo preset (HardwareConfigTest's run too). */
  static TrainingConfig javaConfig() {
    return TrainingPreset.GIGPO.config(VOWELS.require(VowelProvider.ID)).toBuilder()
        .set("rollout.tasks", 2)
        .set("rollout.group_size", 2)
        .set("rollout.prompt_style", "compact")
        .set("sampling.max_new_tokens", 6)
        .set("adamw.learning_rate", 1e-2)
        .set("update.mini_batch_turns", 4)
        .set("update.micro_batch_turns", 4)
        .set("validation.every", 2)
        .set("validation.meta_episodes", 2)
        .set("iterations", 2)
        .set("seed", TinyRun.SEED)
        .build();
  }

  private static final String FILE = "{\n"
      + "  \"preset\": \"gigpo\",\n"
      + "  \"environment\": {\"id\": \"" + VowelProvider.ID + "\"},\n"
      + "  \"rollout\": {\"tasks\": 2, \"group_size\": 2, \"prompt_style\": \"compact\"},\n"
      + "  \"sampling\": {\"max_new_tokens\": 6},\n"
      + "  \"adamw\": {\"learning_rate\": 0.01},\n"
      + "  \"update\": {\"mini_batch_turns\": 4, \"micro_batch_turns\": 4},\n"
      + "  \"validation\": {\"every\": 2, \"meta_episodes\": 2},\n"
      + "  \"iterations\": 2,\n"
      + "  \"seed\": " + TinyRun.SEED + "\n"
      + "}\n";

  private record Outcome(List<Map<String, Object>> metrics, Map<String, byte[]> weights) {}

  private static Outcome run(TrainingConfig config, Path modelDir) {
    List<Map<String, Object>> metrics = new ArrayList<>();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(modelDir,
            Qwen3Checkpoint.Options.cpu().withThinking(false));
        MageTrainer trainer = MageTrainer.create(config, policy, VOWELS)) {
      while (trainer.iteration() < config.iterations()) {
        Map<String, Object> m = new LinkedHashMap<>(trainer.step());
        m.keySet().removeIf(k -> k.startsWith("timing/"));
        metrics.add(m);
      }
      Map<String, byte[]> weights = new LinkedHashMap<>();
      MageTrainer.modelOf(policy).weights().parameters().forEach((k, v) -> weights.put(k, Params.bytes(v)));
      return new Outcome(metrics, weights);
    }
  }

  @Test
  void theSameRunFromAFileAndFromJavaGivesIdenticalMetricsAndWeights(@TempDir Path tmp) throws Exception {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    Path file = tmp.resolve("run.json");
    Files.writeString(file, FILE);
    TrainingConfig fromFile = TrainingConfig.read(file, VOWELS);
    assertThat(fromFile).isEqualTo(javaConfig());

    Outcome a = run(fromFile, model);
    Outcome b = run(javaConfig(), model);
    assertThat(a.metrics()).hasSize(2).isEqualTo(b.metrics());
    assertThat(a.metrics().get(1)).containsKey("val/success_rate[0]");
    assertThat(a.weights().keySet()).isEqualTo(b.weights().keySet());
    a.weights().forEach((k, v) -> assertThat(v).as(k).isEqualTo(b.weights().get(k)));
    // the run trained: the weights moved from the checkpoint's
    try (DjlLanguagePolicy fresh = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu())) {
      byte[] before = Params.bytes(MageTrainer.modelOf(fresh).weights().parameters().values().iterator().next());
      assertThat(a.weights().values().iterator().next()).isNotEqualTo(before);
    }
  }

  @Test
  void theCheckpointRecordsTheConfigItWasTrainedWith(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    TrainingConfig config = javaConfig().with("checkpoints.every", 1);
    JsonObject run = new JsonObject();
    run.addProperty("command", "test");
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu());
        MageTrainer trainer = MageTrainer.builder(config, policy, VOWELS)
            .optCheckpointDirectory(tmp.resolve("run").resolve(TrainingCheckpoint.CHECKPOINTS_DIR), model, run)
            .build()) {
      trainer.fit(1);
      assertThat(trainer.trainingConfig()).contains(config);
    }
    TrainingCheckpoint cp = TrainingCheckpoint.open(TrainingCheckpoint.locate(tmp.resolve("run")));
    assertThat(TrainingConfig.ofCheckpoint(cp)).contains(config);
    assertThat(cp.runConfiguration().get("command").getAsString()).isEqualTo("test");
  }

  @Test
  void loraAndTheAnchorCheckComeFromTheConfig(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    TrainingConfig config = javaConfig().toBuilder()
        .set("fine_tuning.mode", "lora")
        .set("fine_tuning.lora_rank", 2)
        .set("loss.kl_coefficient", 0.1)
        .set("checks.max_anchor_drop", 0.5)
        .set("checks.anchor_policy", "random")
        .set("checks.anchor_turns", 8)
        .set("validation.every", 0)
        .build();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu());
        MageTrainer trainer = MageTrainer.create(config, policy, VOWELS)) {
      assertThat(trainer.fineTuning().orElseThrow().adapter()).isPresent();
      assertThat(trainer.adamW().parameters().keySet()).allMatch(k -> k.contains("lora_"));
      Map<String, Object> m = trainer.step();
      assertThat(m).containsKey("anchor_logprob_change");
    }
  }

  @Test
  void aSavedAdapterIsContinuedFromItsDirectory(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    TrainingConfig lora = javaConfig().toBuilder().set("fine_tuning.mode", "lora").set("fine_tuning.lora_rank", 2)
        .set("validation.every", 0).set("adamw.learning_rate", 0.05).build();
    Map<String, byte[]> saved = new LinkedHashMap<>();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu());
        MageTrainer trainer = MageTrainer.create(lora, policy, VOWELS)) {
      trainer.step();
      var adapter = trainer.fineTuning().orElseThrow().adapter().orElseThrow();
      org.magejvm.impl.llm.finetune.PeftAdapters.save(adapter, tmp.resolve("adapter"));
      adapter.trainableParameters().forEach((k, v) -> saved.put(k, Params.bytes(v)));
      assertThat(MageTrainer.modelOf(policy).adapter()).isPresent();
    }
    TrainingConfig continued = lora.with("fine_tuning.adapter", tmp.resolve("adapter").toString());
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu())) {
      MageTrainer trainer = MageTrainer.create(continued, policy, VOWELS);
      try {
        var adapter = trainer.fineTuning().orElseThrow().adapter().orElseThrow();
        adapter.trainableParameters().forEach((k, v) -> assertThat(Params.bytes(v)).as(k).isEqualTo(saved.get(k)));
      } finally {
        trainer.close();
      }
      trainer.close(); // a second close does nothing
      // closing the trainer detached the adapter it attached
      assertThat(MageTrainer.modelOf(policy).adapter()).isEmpty();
    }
    assertThatThrownBy(() -> javaConfig().with("fine_tuning.adapter", "x"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("fine_tuning.adapter needs fine_tuning.mode lora");
  }

  @Test
  void aConfigThatNamesWhatDoesNotExistIsRefusedBeforeTraining(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu())) {
      assertThatThrownBy(() -> MageTrainer.create(javaConfig().with("advantages.estimator", "ppo"), policy, VOWELS))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("advantages.estimator 'ppo' is not an optimizer on the class path; known: ");
      assertThatThrownBy(() -> MageTrainer.create(javaConfig().toBuilder().set("checks.max_anchor_drop", 0.1)
          .set("checks.anchor_policy", "minimax").build(), policy, VOWELS))
          .isInstanceOf(ConfigException.class)
          .hasMessage("checks.anchor_policy 'minimax' is not a scripted policy of test-vowels; its scripted"
              + " policies: random");
      assertThatThrownBy(() -> MageTrainer.create(javaConfig().with("environment.fixed_opponent", "nobody"), policy,
          VOWELS)).hasMessageStartingWith("environment.fixed_opponent 'nobody' is not an opponent of test-vowels");
      // nothing was left attached or requiring gradients by the refused builds
      assertThat(MageTrainer.modelOf(policy).adapter()).isEmpty();
    }
  }
}
