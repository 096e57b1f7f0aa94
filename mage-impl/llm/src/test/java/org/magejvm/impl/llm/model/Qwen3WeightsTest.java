package org.magejvm.impl.llm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

class Qwen3WeightsTest {
  private static NdListTensorSource source;
  private static Qwen3Config config;

  @BeforeAll
  static void open() {
    source = NdListTensorSource.read(TinyFixture.dir().resolve("model.safetensors"));
    config = TinyFixture.config();
  }

  @AfterAll
  static void close() {
    source.close();
  }

  private static Map<String, NDArray> copy() {
    return new LinkedHashMap<>(source.arrays());
  }

  @Test
  void loadsEveryTensorWithItsType() {
    try (Qwen3Weights w = Qwen3Weights.load(source, config, Device.cpu(), DataType.FLOAT16)) {
      assertThat(w.parameters()).hasSize(source.names().size());
      assertThat(w.parameterCount()).isEqualTo(config.parameterCount());
      assertThat(w.embed().getDataType()).isEqualTo(DataType.FLOAT16);
      assertThat(w.finalNorm().getDataType()).isEqualTo(DataType.FLOAT32);
      assertThat(w.layers().get(0).qNorm().getDataType()).isEqualTo(DataType.FLOAT32);
      assertThat(w.lmHead()).isSameAs(w.embed());
      assertThat(w.layers()).hasSize(3);
      assertThat(w.layers().get(2).downProj().getShape().getShape()).containsExactly(64, 160);
    }
  }

  @Test
  void expectedShapesMatchTheFixture() {
    Map<String, long[]> shapes = Qwen3Weights.expectedShapes(config);
    assertThat(shapes.keySet()).containsExactlyInAnyOrderElementsOf(source.names());
    shapes.forEach((name, shape) -> assertThat(source.info(name).shape()).containsExactly(shape));
  }

  @Test
  void missingTensorIsNamed() {
    Map<String, NDArray> m = copy();
    m.remove("model.layers.1.self_attn.k_norm.weight");
    assertThatThrownBy(() -> Qwen3Weights.load(source.with(m), config, Device.cpu(), DataType.FLOAT32))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("model.layers.1.self_attn.k_norm.weight")
        .hasMessageContaining("model.safetensors");
  }

  @Test
  void wrongShapeNamesTensorShapesAndFile() {
    Map<String, NDArray> m = copy();
    m.put("model.layers.2.mlp.up_proj.weight", source.arrays().get("model.layers.2.mlp.down_proj.weight"));
    assertThatThrownBy(() -> Qwen3Weights.load(source.with(m), config, Device.cpu(), DataType.FLOAT32))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("model.layers.2.mlp.up_proj.weight")
        .hasMessageContaining("model.safetensors")
        .hasMessageContaining("[64, 160]")
        .hasMessageContaining("[160, 64]");
  }

  @Test
  void unsupportedDtypeIsNamed() {
    Map<String, NDArray> m = copy();
    NDArray ints = source.arrays().get("model.norm.weight").toType(DataType.INT64, true);
    m.put("model.norm.weight", ints);
    assertThatThrownBy(() -> Qwen3Weights.load(source.with(m), config, Device.cpu(), DataType.FLOAT32))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("model.norm.weight").hasMessageContaining("I64");
    ints.close();
  }

  @Test
  void unexpectedTensorsFailStrictLoadsOnly() {
    Map<String, NDArray> m = copy();
    m.put("model.layers.0.mlp.experts.0.up_proj.weight", source.arrays().get("model.layers.0.mlp.up_proj.weight"));
    m.put("model.layers.0.self_attn.rotary_emb.inv_freq", source.arrays().get("model.norm.weight"));
    assertThatThrownBy(() -> Qwen3Weights.load(source.with(m), config, Device.cpu(), DataType.FLOAT32))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("unexpected")
        .hasMessageContaining("model.layers.0.mlp.experts.0.up_proj.weight (model.safetensors)")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("inv_freq"));
    try (Qwen3Weights w = Qwen3Weights.load(source.with(m), config, Device.cpu(), DataType.FLOAT32, false)) {
      assertThat(w.parameters()).doesNotContainKey("model.layers.0.mlp.experts.0.up_proj.weight");
    }
  }

  @Test
  void headInATiedCheckpointIsIgnoredUnlessMisshaped() {
    Map<String, NDArray> m = copy();
    NDArray other = source.arrays().get(Qwen3Weights.EMBED).mul(2);
    m.put(Qwen3Weights.LM_HEAD, other);
    try (Qwen3Weights w = Qwen3Weights.load(source.with(m), config, Device.cpu(), DataType.FLOAT32)) {
      assertThat(w.lmHead()).isSameAs(w.embed());
      assertThat(w.parameters()).doesNotContainKey(Qwen3Weights.LM_HEAD);
    }
    m.put(Qwen3Weights.LM_HEAD, source.arrays().get("model.layers.0.self_attn.q_proj.weight"));
    assertThatThrownBy(() -> Qwen3Weights.load(source.with(m), config, Device.cpu(), DataType.FLOAT32))
        .hasMessageContaining(Qwen3Weights.LM_HEAD).hasMessageContaining("[96, 64]");
    other.close();
  }

  @Test
  void untiedConfigNeedsAHead() {
    Qwen3Config untied = Qwen3Config.fromJson(
        config.toJson().replace("\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false"), "config.json");
    assertThatThrownBy(() -> Qwen3Weights.load(source, untied, Device.cpu(), DataType.FLOAT32))
        .hasMessageContaining(Qwen3Weights.LM_HEAD);
  }

  @Test
  void randomInitialisationIsReproducible() {
    try (Qwen3Weights a = Qwen3Weights.random(config, 7, Device.cpu(), DataType.FLOAT32);
        Qwen3Weights b = Qwen3Weights.random(config, 7, Device.cpu(), DataType.FLOAT32);
        Qwen3Weights c = Qwen3Weights.random(config, 8, Device.cpu(), DataType.FLOAT32)) {
      assertThat(a.parameters().keySet()).containsExactlyElementsOf(Qwen3Weights.expectedShapes(config).keySet());
      String q = "model.layers.1.self_attn.q_proj.weight";
      assertThat(a.parameters().get(q).toFloatArray()).containsExactly(b.parameters().get(q).toFloatArray());
      assertThat(a.parameters().get(q).toFloatArray()).isNotEqualTo(c.parameters().get(q).toFloatArray());
      float[] v = a.parameters().get(q).toFloatArray();
      double sq = 0;
      for (float x : v) {
        sq += x * x;
      }
      assertThat(Math.sqrt(sq / v.length)).isBetween(0.018, 0.022);
      assertThat(a.finalNorm().toFloatArray()).containsOnly(1f);
    }
  }
}
