package org.magejvm.impl.llm.finetune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsFile;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;

class PeftAdaptersTest {
  private static Qwen3Model model;

  @BeforeAll
  static void load() {
    model = TinyFixture.model(DataType.FLOAT32);
  }

  @AfterAll
  static void close() {
    model.close();
  }

  private static float[] logits(Qwen3Model m, int[] ids) {
    GradMode noGrad = GradMode.disabled();
    try (NDManager mm = m.newManager()) {
      return m.logits(mm, ids).toType(DataType.FLOAT32, false).toFloatArray();
    } finally {
      noGrad.close();
    }
  }

  @Test
  void thePythonMadeAdapterGivesPeftsLogits() {
    double[][] base = TinyFixture.logits();
    for (Path dir : new Path[] {PeftFixture.adapter(), PeftFixture.rslora()}) {
      try (LoraAdapter lora = PeftAdapters.load(dir, model)) {
        LoraConfig c = lora.config();
        assertThat(c.rank()).isEqualTo(4);
        assertThat(c.alpha()).isEqualTo(8.0);
        assertThat(c.targetModules()).containsExactly(Projection.values());
        assertThat(c.baseModelNameOrPath()).contains("qwen3-tiny");
        assertThat(c.scaling()).isEqualTo(c.useRslora() ? 4.0 : 2.0);
        model.setAdapter(lora);
        try {
          float[] got = logits(model, PeftFixture.inputIds(dir));
          double diff = PeftFixture.maxAbsDiff(got, PeftFixture.logits(dir));
          double fromBase = PeftFixture.maxAbsDiff(got, base);
          System.out.printf("PEFT fixture %s: max |Java - PEFT reference| = %.3g, max |adapted - base| = %.3f%n",
              dir.getFileName(), diff, fromBase);
          assertThat(diff).isLessThan(1e-4);
          assertThat(fromBase).isGreaterThan(1.0);
        } finally {
          model.setAdapter(null);
        }
      }
    }
  }

  @Test
  void savingTheFixtureWritesWhatPeftWrote(@TempDir Path out) throws IOException {
    try (LoraAdapter lora = PeftAdapters.load(PeftFixture.adapter(), model)) {
      PeftAdapters.save(lora, out);
    }
    assertThat(Files.readString(out.resolve(PeftAdapters.CONFIG_FILE)))
        .isEqualTo(Files.readString(PeftFixture.adapter().resolve(PeftAdapters.CONFIG_FILE)));
    assertThat(Files.readAllBytes(out.resolve(PeftAdapters.WEIGHTS_FILE)))
        .isEqualTo(Files.readAllBytes(PeftFixture.adapter().resolve(PeftAdapters.WEIGHTS_FILE)));
    try (SafetensorsFile f = SafetensorsFile.open(out.resolve(PeftAdapters.WEIGHTS_FILE))) {
      assertThat(f.metadata()).containsExactly(Map.entry("format", "pt"));
    }
  }

  @Test
  void saveAndLoadRoundTripExactly(@TempDir Path out) throws IOException {
    LoraConfig config = LoraConfig.builder().setRank(3).optAlpha(5.5).optDropout(0.05)
        .optTargetModules(Projection.DOWN_PROJ, Projection.K_PROJ, Projection.O_PROJ).optUseRslora(true)
        .optInitLoraWeights(false).optBaseModelNameOrPath("Qwen/Qwen3-0.6B").build();
    try (LoraAdapter lora = LoraAdapter.create(model, config, 21)) {
      PeftAdapters.save(lora, out);
      try (LoraAdapter back = PeftAdapters.load(out, model)) {
        assertThat(back.config()).isEqualTo(config);
        assertThat(back.trainableParameters().keySet()).containsExactlyElementsOf(lora.trainableParameters().keySet());
        for (Map.Entry<String, NDArray> e : lora.trainableParameters().entrySet()) {
          NDArray b = back.trainableParameters().get(e.getKey());
          assertThat(b.getShape()).isEqualTo(e.getValue().getShape());
          assertThat(b.toFloatArray()).as(e.getKey()).containsExactly(e.getValue().toFloatArray());
        }
        Path again = out.resolve("again");
        PeftAdapters.save(back, again);
        assertThat(Files.readString(again.resolve(PeftAdapters.CONFIG_FILE)))
            .isEqualTo(Files.readString(out.resolve(PeftAdapters.CONFIG_FILE)));
        assertThat(Files.readAllBytes(again.resolve(PeftAdapters.WEIGHTS_FILE)))
            .isEqualTo(Files.readAllBytes(out.resolve(PeftAdapters.WEIGHTS_FILE)));
      }
    }
    JsonObject json = JsonParser.parseString(Files.readString(out.resolve(PeftAdapters.CONFIG_FILE)))
        .getAsJsonObject();
    assertThat(json.get("peft_type").getAsString()).isEqualTo("LORA");
    assertThat(json.get("task_type").getAsString()).isEqualTo("CAUSAL_LM");
    assertThat(json.get("r").getAsInt()).isEqualTo(3);
    assertThat(json.get("lora_alpha").getAsDouble()).isEqualTo(5.5);
    assertThat(json.get("lora_dropout").getAsDouble()).isEqualTo(0.05);
    assertThat(json.get("bias").getAsString()).isEqualTo("none");
    assertThat(json.get("use_rslora").getAsBoolean()).isTrue();
    assertThat(json.get("fan_in_fan_out").getAsBoolean()).isFalse();
    assertThat(json.get("base_model_name_or_path").getAsString()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThat(json.getAsJsonArray("target_modules").toString()).isEqualTo("[\"k_proj\",\"o_proj\",\"down_proj\"]");
  }

  /** A copy of the fixture adapter with its config changed. */
  private static Path withConfig(Path dir, Consumer<JsonObject> change) throws IOException {
    Files.createDirectories(dir);
    Files.copy(PeftFixture.adapter().resolve(PeftAdapters.WEIGHTS_FILE), dir.resolve(PeftAdapters.WEIGHTS_FILE));
    JsonObject o = JsonParser.parseString(Files.readString(PeftFixture.adapter().resolve(PeftAdapters.CONFIG_FILE)))
        .getAsJsonObject();
    change.accept(o);
    Files.writeString(dir.resolve(PeftAdapters.CONFIG_FILE),
        new GsonBuilder().serializeNulls().setPrettyPrinting().create().toJson(o), StandardCharsets.UTF_8);
    return dir;
  }

  /** A copy of the fixture adapter with its tensors changed. */
  private static Path withTensors(Path dir, Consumer<Map<String, float[][]>> change) throws IOException {
    Files.createDirectories(dir);
    Files.copy(PeftFixture.adapter().resolve(PeftAdapters.CONFIG_FILE), dir.resolve(PeftAdapters.CONFIG_FILE));
    Map<String, float[][]> tensors = new java.util.TreeMap<>();
    try (SafetensorsFile f = SafetensorsFile.open(PeftFixture.adapter().resolve(PeftAdapters.WEIGHTS_FILE));
        NDManager m = NDManager.newBaseManager("PyTorch")) {
      for (String n : f.names()) {
        long[] shape = f.info(n).shape();
        tensors.put(n, new float[][] {f.load(m, n, DataType.FLOAT32).toFloatArray(), {shape[0], shape[1]}});
      }
    }
    change.accept(tensors);
    SafetensorsWriter w = new SafetensorsWriter();
    tensors.forEach((n, t) -> w.add(n, t[0], new long[] {(long) t[1][0], (long) t[1][1]}, SafetensorsDtype.F32));
    w.write(dir.resolve(PeftAdapters.WEIGHTS_FILE));
    return dir;
  }

  private static void assertLoadFails(Path dir, String... parts) {
    assertThatThrownBy(() -> PeftAdapters.load(dir, model).close())
        .isInstanceOf(CheckpointException.class)
        .satisfies(e -> {
          System.out.println("  " + e.getMessage());
          for (String p : parts) {
            assertThat(e.getMessage()).contains(p);
          }
        });
  }

  @Test
  void malformedAdapterDirectoriesGiveClearErrors(@TempDir Path tmp) throws IOException {
    assertLoadFails(tmp.resolve("nowhere"), "adapter directory", "nowhere", "does not exist");

    Path noConfig = Files.createDirectories(tmp.resolve("no-config"));
    Files.copy(PeftFixture.adapter().resolve(PeftAdapters.WEIGHTS_FILE), noConfig.resolve(PeftAdapters.WEIGHTS_FILE));
    assertLoadFails(noConfig, "no-config", "has no adapter_config.json");

    Path noWeights = Files.createDirectories(tmp.resolve("no-weights"));
    Files.copy(PeftFixture.adapter().resolve(PeftAdapters.CONFIG_FILE), noWeights.resolve(PeftAdapters.CONFIG_FILE));
    assertLoadFails(noWeights, "no-weights", "has no adapter_model.safetensors");
    Files.writeString(noWeights.resolve(PeftAdapters.PICKLE_WEIGHTS_FILE), "pickle");
    assertLoadFails(noWeights, "adapter_model.bin", "safe_serialization=True");

    assertLoadFails(withConfig(tmp.resolve("prefix"), o -> o.addProperty("peft_type", "PREFIX_TUNING")),
        "adapter_config.json", "'peft_type' is PREFIX_TUNING", "only LORA");
    assertLoadFails(withConfig(tmp.resolve("lm-head"), o -> o.getAsJsonArray("target_modules").add("lm_head")),
        "adapter_config.json", "unknown target module 'lm_head'", "q_proj, k_proj");
    assertLoadFails(withConfig(tmp.resolve("regex"), o -> o.addProperty("target_modules", ".*proj")),
        "'target_modules' is the regular expression '.*proj'");
    assertLoadFails(withConfig(tmp.resolve("bias"), o -> o.addProperty("bias", "lora_only")),
        "adapter_config.json", "'bias' is 'lora_only'");
    assertLoadFails(withConfig(tmp.resolve("dora"), o -> o.addProperty("use_dora", true)), "'use_dora'", "DoRA");
    assertLoadFails(withConfig(tmp.resolve("save"), o -> {
      JsonArray a = new JsonArray();
      a.add("lm_head");
      o.add("modules_to_save", a);
    }), "'modules_to_save'", "not supported");
    assertLoadFails(withConfig(tmp.resolve("ranks"), o -> {
      JsonObject p = new JsonObject();
      p.addProperty("q_proj", 8);
      o.add("rank_pattern", p);
    }), "'rank_pattern'", "per-module ranks");
    assertLoadFails(withConfig(tmp.resolve("pissa"), o -> o.addProperty("init_lora_weights", "pissa")),
        "'init_lora_weights' is 'pissa'", "modified base weights");
    assertLoadFails(withConfig(tmp.resolve("r8"), o -> o.addProperty("r", 8)),
        "adapter_model.safetensors", "layers.0.self_attn.q_proj.lora_A.weight has shape [4, 64]", "[8, 64]");

    assertLoadFails(withTensors(tmp.resolve("misshaped"), t -> t.get(
        "base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight")[1] = new float[] {24, 8}),
        "misshaped", "adapter_model.safetensors",
        "tensor base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight has shape [24, 8]", "[48, 4]");
    assertLoadFails(withTensors(tmp.resolve("missing"), t -> t.remove(
        "base_model.model.model.layers.2.mlp.up_proj.lora_A.weight")),
        "lacks 1 tensor(s)", "base_model.model.model.layers.2.mlp.up_proj.lora_A.weight");
    assertLoadFails(withTensors(tmp.resolve("extra"), t -> t.put(
        "base_model.model.lm_head.lora_A.weight", new float[][] {new float[4 * 64], {4, 64}})),
        "1 unexpected tensor(s)", "base_model.model.lm_head.lora_A.weight");
    assertLoadFails(withTensors(tmp.resolve("named"), t -> t.put(
        "base_model.model.model.layers.0.self_attn.q_proj.lora_A.default.weight",
        t.remove("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"))),
        "lacks 1 tensor(s)", "1 unexpected tensor(s)", "q_proj.lora_A.default.weight");
  }

  @Test
  void unknownHarmlessKeysAndOptionalNullsAreAccepted(@TempDir Path tmp) throws IOException {
    Path dir = withConfig(tmp.resolve("future"), o -> {
      o.addProperty("kasa_config", (String) null);
      o.addProperty("some_future_flag", false);
      o.addProperty("lora_alpha", 8.0);
      o.remove("task_type");
      o.addProperty("fan_in_fan_out", true);
    });
    try (LoraAdapter lora = PeftAdapters.load(dir, model)) {
      assertThat(lora.config().alpha()).isEqualTo(8.0);
    }
  }
}
