package org.magejvm.impl.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ConfigException;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The run's device and precision ({@code hardware.device}, {@code hardware.precision}): the keys and their checks,
 * configs written before them reading as they ran (the CPU in float32), the trainer refusing a policy loaded
 * elsewhere, and a float16 run of the tiny model that trains with finite metrics and resumes bit for bit.
 */
class HardwareConfigTest {

  private static final EnvironmentRegistry VOWELS = EnvironmentRegistry.empty().register(new VowelProvider());

  private static TrainingConfig tiny() {
    return ConfigRunTest.javaConfig();
  }

  @Test
  void everyPresetTrainsOnTheCpuInFloat32AndTheKeysRoundTrip() {
    EnvironmentRegistry games = EnvironmentRegistry.discover();
    for (TrainingPreset p : TrainingPreset.values()) {
      TrainingConfig c = p.config(games.require("mage-kuhn-poker"));
      assertThat(c.hardware()).isEqualTo(TrainingConfig.HardwareSettings.cpu());
      JsonObject hw = c.toJsonObject().getAsJsonObject("hardware");
      assertThat(hw.toString()).isEqualTo("{\"device\":\"cpu\",\"precision\":\"float32\"}");
      // not part of the algorithm: the quick start and `mage train --preset mage` still agree on it
      assertThat(c.algorithmJson().has("hardware")).isFalse();
    }
    TrainingConfig gpu = tiny().toBuilder().set("hardware.device=gpu:1").set("hardware.precision=float16").build();
    assertThat(gpu.hardware().djlDevice()).isEqualTo(Device.gpu(1));
    assertThat(gpu.hardware().precision().dataType()).isEqualTo(DataType.FLOAT16);
    assertThat(TrainingConfig.fromJson(gpu.toJson())).isEqualTo(gpu);
    assertThat(tiny().with("hardware.device", "GPU:0").hardware().device()).isEqualTo("gpu");
    assertThat(tiny().differences(gpu)).containsExactly("hardware.device", "hardware.precision");
  }

  @Test
  void badValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> tiny().with("hardware.device", "cuda"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("hardware.device must be cpu, gpu or gpu:N (N a CUDA device number), got 'cuda'");
    assertThatThrownBy(() -> tiny().with("hardware.device", "gpu:x")).hasMessageStartingWith("hardware.device ");
    assertThatThrownBy(() -> tiny().with("hardware.precision", "float8"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("config key 'hardware.precision' must be one of float32, float16, bfloat16, got 'float8'");
    assertThatThrownBy(() -> tiny().with("hardware.precision", "bfloat16"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("hardware.precision bfloat16 cannot run here: any bfloat16 array aborts the JVM on"
            + " DJL's PyTorch engine")
        .hasMessageContaining("use float16")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aConfigWrittenBeforeTheSectionReadsAsItRan() {
    TrainingConfig now = tiny();
    JsonObject old = JsonParser.parseString(now.toJson()).getAsJsonObject();
    old.remove("hardware");
    // a checkpoint's complete config
    assertThat(TrainingConfig.fromJson(old.toString())).isEqualTo(now);
    // a complete config file under a name of its own
    old.addProperty("preset", "my-run");
    TrainingConfig mine = TrainingConfig.fromJson(old.toString(), VOWELS);
    assertThat(mine.hardware()).isEqualTo(TrainingConfig.HardwareSettings.cpu());
    assertThat(mine.preset()).isEqualTo("my-run");
    // a partial file takes the section from its preset
    assertThat(TrainingConfig.fromJson("{\"preset\": \"gigpo\", \"environment\": {\"id\": \"" + VowelProvider.ID
        + "\"}, \"hardware\": {\"precision\": \"float16\"}}", VOWELS).hardware())
        .isEqualTo(new TrainingConfig.HardwareSettings("cpu", Precision.FLOAT16));
  }

  @Test
  void theTrainerRefusesAPolicyLoadedOnAnotherDeviceOrInAnotherPrecision(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu())) {
      assertThatThrownBy(() -> MageTrainer.create(tiny().with("hardware.precision", "float16"), policy, VOWELS))
          .isInstanceOf(ConfigException.class)
          .hasMessage("hardware.precision is float16 but the policy's model is float32; load the policy as float16"
              + " (Qwen3Checkpoint.Options.withDtype) or set hardware.precision float32");
      assertThatThrownBy(() -> MageTrainer.builder(tiny().with("hardware.device", "gpu"), policy, VOWELS))
          .isInstanceOf(ConfigException.class)
          .hasMessage("hardware.device is gpu but the policy's model is on cpu; load the policy on gpu"
              + " (Qwen3Checkpoint.Options.withDevice) or set hardware.device cpu");
      // nothing was left requiring gradients by the refused builds
      assertThat(MageTrainer.modelOf(policy).weights().parameters().values().iterator().next().hasGradient())
          .isFalse();
    }
  }

  /** Runs the float16 config; with a checkpoint directory, stops after {@code stopAt} and resumes in a new trainer. */
  private static List<Map<String, Object>> float16Run(Path tmp, Path model, String name, int stopAt) {
    TrainingConfig config = tiny().toBuilder().set("hardware.precision", "float16").set("checkpoints.every", 1)
        .build();
    Qwen3Checkpoint.Options options = Qwen3Checkpoint.Options.cpu().withDtype(DataType.FLOAT16).withThinking(false);
    JsonObject run = new JsonObject();
    run.addProperty("command", "test");
    Path checkpoints = tmp.resolve(name).resolve(TrainingCheckpoint.CHECKPOINTS_DIR);
    List<Map<String, Object>> metrics = new ArrayList<>();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, options);
        MageTrainer trainer = MageTrainer.builder(config, policy, VOWELS)
            .optCheckpointDirectory(checkpoints, model, run).build()) {
      while (trainer.iteration() < stopAt) {
        metrics.add(withoutTimes(trainer.step()));
      }
      trainer.checkpoint();
    }
    if (stopAt < config.iterations()) {
      try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, options);
          MageTrainer trainer = MageTrainer.builder(config, policy, VOWELS)
              .optCheckpointDirectory(checkpoints, model, run).build()) {
        trainer.resume(TrainingCheckpoint.open(TrainingCheckpoint.locate(tmp.resolve(name))));
        while (trainer.iteration() < config.iterations()) {
          metrics.add(withoutTimes(trainer.step()));
        }
      }
    }
    return metrics;
  }

  private static Map<String, Object> withoutTimes(Map<String, Object> m) {
    Map<String, Object> out = new LinkedHashMap<>(m);
    out.keySet().removeIf(k -> k.startsWith("timing/"));
    return out;
  }

  @Test
  void aFloat16RunTrainsWithFiniteMetricsAndResumesBitForBit(@TempDir Path tmp) {
    Path model = TinyRun.writeModel(tmp.resolve("model"));
    List<Map<String, Object>> whole = float16Run(tmp, model, "whole", 2);
    List<Map<String, Object>> resumed = float16Run(tmp, model, "resumed", 1);
    assertThat(whole).hasSize(2);
    for (Map<String, Object> m : whole) {
      for (Map.Entry<String, Object> e : m.entrySet()) {
        if (e.getValue() instanceof Number n) {
          assertThat(Double.isNaN(n.doubleValue())).as(e.getKey()).isFalse();
        }
      }
      assertThat(((Number) m.get("skipped_steps")).intValue()).isZero();
      assertThat((Double) m.get("loss_scale")).isPositive();
    }
    assertThat(resumed).isEqualTo(whole);
  }
}
