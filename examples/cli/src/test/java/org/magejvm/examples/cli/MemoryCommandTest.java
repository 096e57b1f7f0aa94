package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.examples.memory.Qwen3Presets;
import org.magejvm.examples.memory.TrainingMemory;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;

/** {@code mage memory} and the estimate behind it. */
class MemoryCommandTest {

  @TempDir Path tmp;

  @Test
  void presetsHaveTheModelCardsParameterCounts() {
    // model cards: 0.6B (0.44B non-embedding), 1.7B (1.4B), 4.0B (3.6B)
    double[][] billions = {{0.6, 0.44}, {1.7, 1.4}, {4.0, 3.6}};
    int i = 0;
    for (Map.Entry<String, Qwen3Config> e : Qwen3Presets.all().entrySet()) {
      Qwen3Config c = e.getValue();
      double total = c.parameterCount() / 1e9;
      double nonEmbedding = (c.parameterCount() - (long) c.vocabSize() * c.hiddenSize()) / 1e9;
      assertThat(total).as(e.getKey()).isCloseTo(billions[i][0], org.assertj.core.api.Assertions.within(0.03));
      assertThat(nonEmbedding).as(e.getKey()).isCloseTo(billions[i][1],
          org.assertj.core.api.Assertions.within(0.035));
      assertThat(c.vocabSize()).isEqualTo(151_936);
      assertThat(c.tieWordEmbeddings()).isTrue();
      i++;
    }
    assertThat(Qwen3Presets.get("qwen3-0.6b").orElseThrow().parameterCount()).isEqualTo(596_049_920L);
    assertThat(Qwen3Presets.get("QWEN3-4B")).isPresent();
  }

  @Test
  void theEstimateAddsUpAsDocumented() {
    // d 8, 1 layer, 2 heads and 1 key/value head of 4, MLP 16, vocabulary 10; B 1, P 2, T 3 (L 5); r 1 on q and v
    Qwen3Config c = Qwen3Config.builder().setHiddenSize(8).setNumHiddenLayers(1).setNumAttentionHeads(2)
        .optNumKeyValueHeads(1).optHeadDim(4).setIntermediateSize(16).setVocabSize(10).optTieWordEmbeddings(true)
        .build();
    TrainingMemory f16 = new TrainingMemory(c, 1, EnumSet.of(Projection.Q_PROJ, Projection.V_PROJ), 2, 3, 1, 2);
    long lora = 1 * (8 + 8) + 1 * (8 + 4); // q: in 8, out 2x4; v: in 8, out 1x4
    assertThat(f16.adapterParameters()).isEqualTo(lora);
    Map<String, Long> p = f16.parts();
    assertThat(p.get("base weights")).isEqualTo(c.parameterCount() * 2);
    assertThat(p.get("LoRA adapters")).isEqualTo(lora * 4);
    assertThat(p.get("gradients")).isEqualTo(lora * 4);
    assertThat(p.get("AdamW moments")).isEqualTo(lora * 8);
    assertThat(p.get("hidden states")).isEqualTo(5 * 2 * 8 * (8 + 2) + 5 * 8 * 8);
    assertThat(p.get("attention q, k, v, output")).isEqualTo(5 * (2 + 1) * 4 * (8 + 4));
    assertThat(p.get("attention scores")).isEqualTo(2 * 25 * (4 + 2));
    assertThat(p.get("MLP intermediates")).isEqualTo(5 * 5 * 16 * 2);
    assertThat(p.get("LoRA intermediates")).isEqualTo(5 * 1 * 2 * 4);
    assertThat(p.get("attention mask")).isEqualTo(25 * 13);
    assertThat(p.get("logits")).isEqualTo(3 * (10 * (8 + 2) + 8 * 2));
    assertThat(p.get("backward working memory")).isEqualTo(Math.max(2 * 3 * 10 * 4, 2 * 2 * 25 * 4));
    assertThat(f16.totalBytes()).isEqualTo(p.values().stream().mapToLong(Long::longValue).sum());
    assertThat(f16.kvCacheBytesPerSequence()).isEqualTo(2 * 1 * 4 * 5 * 2);

    // float32 keeps no narrowed copies; full fine-tuning trains every weight
    TrainingMemory full = new TrainingMemory(c, 0, EnumSet.noneOf(Projection.class), 2, 3, 2, 4);
    assertThat(full.trainableParameters()).isEqualTo(c.parameterCount());
    assertThat(full.parts().get("AdamW moments")).isEqualTo(c.parameterCount() * 8);
    assertThat(full.parts().get("attention scores")).isEqualTo(2 * 2 * 25 * 4);
    assertThat(full.parts().get("LoRA intermediates")).isZero();
  }

  @Test
  void qwen3FourBillionFitsIn40GibAtItsDefaultLengthsWithTheDefaultChoices() {
    // the criterion: fused attention and both recomputations, as auto resolves them at 4096 + 8192
    CliRun r = CliRun.of("memory", "--preset", "qwen3-4b", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonObject o = r.json();
    assertThat(o.get("prompt_tokens").getAsInt()).isEqualTo(4096);
    assertThat(o.get("response_tokens").getAsInt()).isEqualTo(8192);
    assertThat(o.get("attention").getAsString()).isEqualTo("fused");
    assertThat(o.get("recompute_layers").getAsBoolean()).isTrue();
    assertThat(o.get("recompute_head").getAsBoolean()).isTrue();
    assertThat(o.get("total_bytes").getAsLong()).isLessThanOrEqualTo(40L << 30).isEqualTo(19_241_106_432L);
    JsonObject byChoice = o.getAsJsonObject("total_bytes_by_choice");
    assertThat(byChoice.get("explicit").getAsLong()).isEqualTo(1_198_668_381_184L);
    assertThat(byChoice.get("fused_recompute_layers_head").getAsLong()).isEqualTo(19_241_106_432L);
    assertThat(byChoice.keySet()).containsExactly("explicit", "fused", "fused_recompute_head",
        "fused_recompute_layers", "fused_recompute_layers_head");
  }

  @Test
  void printsPresetsAndReadsConfigFiles() {
    CliRun r = CliRun.of("memory", "--preset", "qwen3-0.6b", "--prompt-tokens", "4096", "--response-tokens",
        "3072");
    assertThat(r.code()).as(r.err()).isZero();
    // LoRA r = 16 on all seven projections of Qwen3-0.6B: 10.1M parameters, as docs/models.md says
    assertThat(r.out()).contains("596,049,920 base parameters, 10,092,544 trainable", "7,168 tokens",
        "attention scores", "fused attention, layers recomputed, head recomputed (--attention auto,"
            + " --recompute-layers auto, --recompute-head auto)", "the total with other choices",
        "explicit attention, nothing recomputed");
    CliRun explicit = CliRun.of("memory", "--preset", "qwen3-0.6b", "--prompt-tokens", "4096", "--response-tokens",
        "3072", "--attention", "EXPLICIT", "--recompute-layers", "off", "--recompute-head", "on");
    assertThat(explicit.code()).as(explicit.err()).isZero();
    assertThat(explicit.out()).contains("explicit attention, layers kept, head recomputed (--attention explicit,");

    Path tiny = tmp.resolve("tiny");
    Qwen3Config config = TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("PASS BET", 1));
    CliRun json = CliRun.of("memory", "--model", tiny.toString(), "--lora-rank", "0", "--dtype", "f32",
        "--batch", "2", "--prompt-tokens", "100", "--response-tokens", "20", "--json");
    assertThat(json.code()).as(json.err()).isZero();
    JsonObject o = json.json();
    // 120 tokens of a tiny model: auto fuses nothing and recomputes nothing
    TrainingMemory expected = new TrainingMemory(config, 0, EnumSet.allOf(Projection.class), 100, 20, 2, 4);
    assertThat(o.get("total_bytes").getAsLong()).isEqualTo(expected.totalBytes());
    assertThat(o.get("trainable_parameters").getAsLong()).isEqualTo(config.parameterCount());
    assertThat(o.get("attention").getAsString()).isEqualTo("explicit");
    assertThat(o.get("recompute_layers").getAsBoolean()).isFalse();
    assertThat(o.get("recompute_head").getAsBoolean()).isFalse();
    CliRun forced = CliRun.of("memory", "--model", tiny.toString(), "--lora-rank", "0", "--dtype", "f32",
        "--batch", "2", "--prompt-tokens", "100", "--response-tokens", "20", "--json", "--attention", "fused",
        "--recompute-layers", "on", "--recompute-head", "ON");
    assertThat(forced.code()).as(forced.err()).isZero();
    JsonObject f = forced.json();
    assertThat(f.get("attention").getAsString()).isEqualTo("fused");
    assertThat(f.get("recompute_layers").getAsBoolean()).isTrue();
    assertThat(f.get("recompute_head").getAsBoolean()).isTrue();
    assertThat(f.get("total_bytes").getAsLong()).isEqualTo(expected.with(true, true, true).totalBytes())
        .isLessThan(expected.totalBytes());
    assertThat(f.getAsJsonObject("total_bytes_by_choice").get("explicit").getAsLong())
        .isEqualTo(expected.totalBytes());

    CliRun wrong = CliRun.of("memory", "--preset", "qwen3-0.6b", "--attention", "flash", "--recompute-head", "yes");
    assertThat(wrong.code()).isEqualTo(2);
    assertThat(wrong.err()).contains("--attention: unknown value 'flash'; expected explicit, fused, auto",
        "--recompute-head: unknown value 'yes'; expected off, on, auto");

    CliRun preset = CliRun.of("memory", "--preset", "qwen3-70b");
    assertThat(preset.code()).isEqualTo(2);
    assertThat(preset.err().strip()).doesNotContain("\n").contains("qwen3-70b", "qwen3-0.6b, qwen3-1.7b, qwen3-4b");
    CliRun fullF16 = CliRun.of("memory", "--preset", "qwen3-0.6b", "--lora-rank", "0");
    assertThat(fullF16.code()).isEqualTo(2);
    assertThat(fullF16.err()).contains("--dtype f32");
    CliRun missing = CliRun.of("memory", "--model", tmp.resolve("none").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err().strip()).doesNotContain("\n").contains("none", "does not exist");
  }
}
