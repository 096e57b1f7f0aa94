package org.magejvm.impl.llm.finetune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsFile;

class LoraMergeTest {

  private static float[] logits(Qwen3Model m) {
    GradMode noGrad = GradMode.disabled();
    try (NDManager mm = m.newManager()) {
      return m.logits(mm, TinyFixture.inputIds()).toType(DataType.FLOAT32, false).toFloatArray();
    } finally {
      noGrad.close();
    }
  }

  private static double[] logits64(Qwen3Model m) {
    GradMode noGrad = GradMode.disabled();
    try (NDManager mm = m.newManager()) {
      return m.logits(mm, TinyFixture.inputIds()).toType(DataType.FLOAT64, false).toDoubleArray();
    } finally {
      noGrad.close();
    }
  }

  private static double maxAbsDiff(double[] a, double[] b) {
    assertThat(a).hasSameSizeAs(b);
    double max = 0;
    for (int i = 0; i < a.length; i++) {
      max = Math.max(max, Math.abs(a[i] - b[i]));
    }
    return max;
  }

  /**
   * The export itself is checked in float64 arithmetic (the merged float32 weights against base + adapter), where
   * the only error is the rounding of W + scaling B A to float32; in float32 arithmetic the two forward passes
   * round differently and differ by about as much as a float32 forward pass differs from the float64 reference.
   */
  @Test
  void theMergedExportReproducesTheAdaptedModel(@TempDir Path tmp) throws IOException {
    Path tokenizerSource = Files.createDirectories(tmp.resolve("base"));
    Files.writeString(tokenizerSource.resolve("tokenizer.json"), "{\"stand-in\": true}");
    Files.writeString(tokenizerSource.resolve("tokenizer_config.json"), "{}");
    Path out = tmp.resolve("merged");
    float[] adapted;
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT32);
        LoraAdapter lora = PeftAdapters.load(PeftFixture.adapter(), model)) {
      model.setAdapter(lora);
      adapted = logits(model);
      LoraMerge.exportMerged(model, lora, out, tokenizerSource);
      assertThat(logits(model)).as("exporting changes nothing").containsExactly(adapted);
    }
    assertThat(out.resolve("tokenizer.json")).hasContent("{\"stand-in\": true}");
    assertThat(out.resolve("tokenizer_config.json")).exists();
    assertThat(out.resolve("special_tokens_map.json")).doesNotExist();
    assertThat(Qwen3Config.fromFile(out.resolve("config.json"))).isEqualTo(TinyFixture.config());
    try (SafetensorsFile f = SafetensorsFile.open(out.resolve("model.safetensors"))) {
      assertThat(f.names()).noneMatch(n -> n.contains("lora"));
      assertThat(f.info("model.layers.0.self_attn.q_proj.weight").dtype()).isEqualTo("F32");
    }
    try (Qwen3Model merged = Qwen3Checkpoint.loadModel(out, Device.cpu(), DataType.FLOAT32)) {
      assertThat(merged.adapter()).isEmpty();
      float[] got = logits(merged);
      double diff = PeftFixture.maxAbsDiff(got, adapted);
      double vsPeft = PeftFixture.maxAbsDiff(got, PeftFixture.logits(PeftFixture.adapter()));
      System.out.printf("float32: merged export vs adapter: max diff %.3g; vs the PEFT reference: %.3g%n", diff,
          vsPeft);
      assertThat(diff).isLessThan(3e-5);
      assertThat(vsPeft).isLessThan(1e-4);
    }
    try (Qwen3Model base64 = TinyFixture.model(DataType.FLOAT64);
        LoraAdapter lora64 = PeftAdapters.load(PeftFixture.adapter(), base64);
        Qwen3Model merged64 = Qwen3Checkpoint.loadModel(out, Device.cpu(), DataType.FLOAT64)) {
      base64.setAdapter(lora64);
      double diff = maxAbsDiff(logits64(merged64), logits64(base64));
      System.out.printf("float64 arithmetic: merged float32 export vs base + adapter: max diff %.3g%n", diff);
      assertThat(diff).isLessThan(1e-5);
    }
  }

  @Test
  void exportRecordsTheStorageType(@TempDir Path tmp) throws IOException {
    try (Qwen3Model model = TinyFixture.model(DataType.FLOAT64);
        LoraAdapter lora = LoraAdapter.create(model, LoraConfig.builder().setRank(2).optInitLoraWeights(false)
            .build(), 3)) {
      LoraMerge.exportMerged(model, lora, tmp, null, SafetensorsDtype.F16);
      assertThatThrownBy(() -> LoraMerge.exportMerged(model, lora, tmp, null, SafetensorsDtype.I64))
          .hasMessageContaining("F32, F16 or BF16");
    }
    assertThat(JsonParser.parseString(Files.readString(tmp.resolve("config.json"))).getAsJsonObject()
        .get("torch_dtype").getAsString()).isEqualTo("float16");
    try (SafetensorsFile f = SafetensorsFile.open(tmp.resolve("model.safetensors"))) {
      assertThat(f.info("model.layers.1.self_attn.v_proj.weight").dtype()).isEqualTo("F16");
    }
  }

  @Test
  void mergingInPlaceMakesTheAdapterUnnecessary() {
    for (DataType dtype : new DataType[] {DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16}) {
      try (Qwen3Model model = TinyFixture.model(dtype);
          LoraAdapter lora = LoraAdapter.create(model, LoraConfig.builder().setRank(4).optAlpha(8)
              .optTargetModules(Projection.K_PROJ, Projection.UP_PROJ, Projection.O_PROJ)
              .optInitLoraWeights(false).build(), 8)) {
        double[] base = logits64(model);
        model.setAdapter(lora);
        double[] adapted = logits64(model);
        assertThat(maxAbsDiff(adapted, base)).isGreaterThan(0.1);
        LoraMerge.mergeInto(model.weights(), lora);
        model.setAdapter(null);
        double diff = maxAbsDiff(logits64(model), adapted);
        System.out.printf("in-place merge (%s) vs adapter: max diff %.3g%n", dtype, diff);
        // float16: the merged weights are rounded to float16, the unmerged correction is not
        assertThat(diff).isLessThan(dtype == DataType.FLOAT16 ? 5e-2 : 1e-5);
      }
    }
  }
}
