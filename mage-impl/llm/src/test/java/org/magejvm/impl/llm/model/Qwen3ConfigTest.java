package org.magejvm.impl.llm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

class Qwen3ConfigTest {

  private static JsonObject fixtureJson() throws Exception {
    return JsonParser.parseString(Files.readString(TinyFixture.dir().resolve("config.json"))).getAsJsonObject();
  }

  private static Qwen3Config parse(Consumer<JsonObject> edit) throws Exception {
    JsonObject o = fixtureJson();
    edit.accept(o);
    return Qwen3Config.fromJson(o.toString(), "config.json");
  }

  @Test
  void readsTheFixture() {
    Qwen3Config c = TinyFixture.config();
    assertThat(c.modelType()).isEqualTo("qwen3");
    assertThat(c.vocabSize()).isEqualTo(97);
    assertThat(c.hiddenSize()).isEqualTo(64);
    assertThat(c.intermediateSize()).isEqualTo(160);
    assertThat(c.numHiddenLayers()).isEqualTo(3);
    assertThat(c.numAttentionHeads()).isEqualTo(4);
    assertThat(c.numKeyValueHeads()).isEqualTo(2);
    assertThat(c.headDim()).isEqualTo(24);
    assertThat(c.rmsNormEps()).isEqualTo(1e-6);
    assertThat(c.ropeTheta()).isEqualTo(1e6);
    assertThat(c.tieWordEmbeddings()).isTrue();
    assertThat(c.maxPositionEmbeddings()).isEqualTo(512);
    assertThat(c.bosTokenId()).hasValue(1);
    assertThat(c.eosTokenIds()).containsExactly(2);
    assertThat(c.qkNorm()).isTrue();
    assertThat(c.attentionBias()).isFalse();
    assertThat(c.outputBias()).isFalse();
    assertThat(c.groupSize()).isEqualTo(2);
  }

  @Test
  void readsADirectory() {
    assertThat(Qwen3Config.fromFile(TinyFixture.dir())).isEqualTo(TinyFixture.config());
  }

  @Test
  void defaultsAndAlternativeSpellings() throws Exception {
    Qwen3Config c = parse(o -> {
      o.remove("head_dim");
      o.remove("tie_word_embeddings");
      o.remove("rope_theta");
      o.remove("num_key_value_heads");
      o.remove("architectures");
      JsonObject rope = new JsonObject();
      rope.addProperty("rope_type", "default");
      rope.addProperty("rope_theta", 5000);
      o.add("rope_parameters", rope);
      o.add("eos_token_id", JsonParser.parseString("[2, 7]"));
      o.add("bos_token_id", null);
    });
    assertThat(c.headDim()).isEqualTo(16);
    assertThat(c.tieWordEmbeddings()).isFalse();
    assertThat(c.ropeTheta()).isEqualTo(5000);
    assertThat(c.numKeyValueHeads()).isEqualTo(4);
    assertThat(c.eosTokenIds()).containsExactly(2, 7);
    assertThat(c.bosTokenId()).isEmpty();
  }

  @Test
  void qwen2AndLlamaStyles() throws Exception {
    Qwen3Config qwen2 = parse(o -> {
      o.addProperty("model_type", "qwen2");
      o.add("architectures", JsonParser.parseString("[\"Qwen2ForCausalLM\"]"));
    });
    assertThat(qwen2.qkNorm()).isFalse();
    assertThat(qwen2.attentionBias()).isTrue();
    assertThat(qwen2.outputBias()).isFalse();
    Qwen3Config llama = parse(o -> {
      o.addProperty("model_type", "llama");
      o.add("architectures", JsonParser.parseString("[\"LlamaForCausalLM\"]"));
      o.addProperty("attention_bias", true);
    });
    assertThat(llama.qkNorm()).isFalse();
    assertThat(llama.attentionBias()).isTrue();
    assertThat(llama.outputBias()).isTrue();
  }

  @Test
  void roundTripsThroughJson() {
    Qwen3Config c = TinyFixture.config();
    assertThat(Qwen3Config.fromJson(c.toJson(), "x")).isEqualTo(c);
    Qwen3Config b = Qwen3Config.builder().setVocabSize(50).setHiddenSize(32).setIntermediateSize(64)
        .setNumHiddenLayers(2).setNumAttentionHeads(4).optNumKeyValueHeads(1).addEosTokenId(3).addEosTokenId(4)
        .build();
    assertThat(Qwen3Config.fromJson(b.toJson(), "x")).isEqualTo(b);
    assertThat(b.headDim()).isEqualTo(8);
  }

  @Test
  void parameterCountAddsUp() {
    Qwen3Config c = TinyFixture.config();
    long expected = 97 * 64 + 64 + 3 * (64 + 96 * 64 + 2 * 48 * 64 + 64 * 96 + 2 * 24 + 64 + 3 * 160 * 64);
    assertThat(c.parameterCount()).isEqualTo(expected);
  }

  @Test
  void missingRequiredFieldIsNamed() {
    for (String field : List.of("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
        "num_attention_heads")) {
      assertThatThrownBy(() -> parse(o -> o.remove(field)))
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("config.json")
          .hasMessageContaining(field)
          .hasMessageContaining("missing");
    }
  }

  @Test
  void mistypedFieldsAreNamed() {
    assertThatThrownBy(() -> parse(o -> o.addProperty("hidden_size", "sixty-four")))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("config.json").hasMessageContaining("hidden_size").hasMessageContaining("integer");
    assertThatThrownBy(() -> parse(o -> o.addProperty("num_hidden_layers", 2.5)))
        .hasMessageContaining("num_hidden_layers").hasMessageContaining("2.5");
    assertThatThrownBy(() -> parse(o -> o.addProperty("rms_norm_eps", "small")))
        .hasMessageContaining("rms_norm_eps");
    assertThatThrownBy(() -> parse(o -> o.addProperty("tie_word_embeddings", "yes")))
        .hasMessageContaining("tie_word_embeddings");
    assertThatThrownBy(() -> parse(o -> o.add("eos_token_id", JsonParser.parseString("[2, \"x\"]"))))
        .hasMessageContaining("eos_token_id");
    assertThatThrownBy(() -> parse(o -> o.addProperty("vocab_size", 1e12)))
        .hasMessageContaining("vocab_size");
  }

  @Test
  void invalidValuesAreNamed() {
    assertThatThrownBy(() -> parse(o -> o.addProperty("num_key_value_heads", 3)))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("config.json").hasMessageContaining("num_key_value_heads")
        .hasMessageContaining("divisible");
    assertThatThrownBy(() -> parse(o -> o.addProperty("hidden_size", 0)))
        .hasMessageContaining("hidden_size").hasMessageContaining("> 0");
    assertThatThrownBy(() -> parse(o -> o.addProperty("head_dim", 23)))
        .hasMessageContaining("head_dim").hasMessageContaining("even");
    assertThatThrownBy(() -> parse(o -> o.addProperty("rms_norm_eps", -1)))
        .hasMessageContaining("rms_norm_eps");
    assertThatThrownBy(() -> parse(o -> {
      o.remove("head_dim");
      o.addProperty("num_attention_heads", 5);
      o.addProperty("num_key_value_heads", 5);
    })).hasMessageContaining("head_dim").hasMessageContaining("divisible");
  }

  @Test
  void unsupportedModelsAreRejected() {
    assertThatThrownBy(() -> parse(o -> {
      o.addProperty("model_type", "qwen3_moe");
      o.remove("architectures");
    })).hasMessageContaining("model_type").hasMessageContaining("qwen3_moe");
    assertThatThrownBy(() -> parse(o -> o.add("architectures",
        JsonParser.parseString("[\"Qwen3ForSequenceClassification\"]"))))
        .hasMessageContaining("architectures");
    assertThatThrownBy(() -> parse(o -> o.addProperty("model_type", "llama")))
        .hasMessageContaining("does not match");
    assertThatThrownBy(() -> parse(o -> {
      o.remove("model_type");
      o.remove("architectures");
    })).hasMessageContaining("model_type");
    assertThatThrownBy(() -> parse(o -> o.add("rope_scaling",
        JsonParser.parseString("{\"rope_type\": \"yarn\", \"factor\": 4.0}"))))
        .hasMessageContaining("rope_scaling").hasMessageContaining("yarn");
    assertThatThrownBy(() -> parse(o -> o.addProperty("hidden_act", "gelu")))
        .hasMessageContaining("hidden_act");
    assertThatThrownBy(() -> parse(o -> o.addProperty("use_sliding_window", true)))
        .hasMessageContaining("use_sliding_window");
  }

  @Test
  void malformedFilesNameTheFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("config.json");
    Files.writeString(f, "{\"vocab_size\": 97, ");
    assertThatThrownBy(() -> Qwen3Config.fromFile(f))
        .isInstanceOf(CheckpointException.class).hasMessageContaining(f.toString())
        .hasMessageContaining("not valid JSON");
    Files.writeString(f, "[1, 2]");
    assertThatThrownBy(() -> Qwen3Config.fromFile(f)).hasMessageContaining("JSON object");
    assertThatThrownBy(() -> Qwen3Config.fromFile(dir.resolve("absent.json")))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("absent.json");
  }

  @Test
  void builderValidates() {
    assertThatThrownBy(() -> Qwen3Config.builder().setVocabSize(10).setHiddenSize(8).setIntermediateSize(8)
        .setNumHiddenLayers(1).setNumAttentionHeads(2).optNumKeyValueHeads(3).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("num_key_value_heads");
    assertThatThrownBy(() -> Qwen3Config.builder().setHiddenSize(8).setIntermediateSize(8)
        .setNumHiddenLayers(1).setNumAttentionHeads(2).build())
        .hasMessageContaining("vocab_size");
  }

  @Test
  void aRunDirectorysTrainingConfigIsNamedAsSuch() {
    String run = "{\"preset\": \"mage\", \"environment\": {\"id\": \"mage-goalkeeper\"}, \"rollout\": {}}";
    assertThatThrownBy(() -> Qwen3Config.fromJson(run, "runs/kuhn/config.json"))
        .hasMessageContaining("runs/kuhn/config.json: required field model_type is missing")
        .hasMessageContaining("mage training config").hasMessageContaining("run directory")
        .hasMessageContaining("checkpoints/iter-N/weights");
    // any other config without model_type keeps the plain message
    assertThatThrownBy(() -> Qwen3Config.fromJson("{\"hidden_size\": 8}", "x/config.json"))
        .hasMessageContaining("model_type is missing").hasMessageNotContaining("run directory");
  }
}
