package org.magejvm.examples.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.llm.generate.Recompute;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.model.AttentionKernel;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;

/** {@link TrainingMemory}'s memory-saving choices: their formulas, how auto resolves, and what they save. */
class TrainingMemoryTest {

  private static final long GIB = 1L << 30;
  private static final Set<Projection> ALL = EnumSet.allOf(Projection.class);
  private static final Set<Projection> NONE = EnumSet.noneOf(Projection.class);

  private static Qwen3Config preset(String name) {
    return Qwen3Presets.get(name).orElseThrow();
  }

  @Test
  void theSevenArgumentStepIsExplicitWithNothingRecomputedAndKeepsItsTotals() {
    // the totals of the estimate before the memory-saving choices existed (computed with that version)
    TrainingMemory lora4b = new TrainingMemory(preset("qwen3-4b"), 16, ALL, 4096, 8192, 1, 2);
    assertThat(lora4b.totalBytes()).isEqualTo(1_198_668_381_184L);
    assertThat(lora4b.activationBytes()).isEqualTo(1_190_094_962_688L);
    TrainingMemory full06 = new TrainingMemory(preset("qwen3-0.6b"), 0, NONE, 4096, 3072, 2, 4);
    assertThat(full06.totalBytes()).isEqualTo(270_040_825_856L);
    assertThat(new TrainingMemory(preset("qwen3-1.7b"), 16, ALL, 100, 20, 1, 2).totalBytes())
        .isEqualTo(4_285_142_848L);

    assertThat(lora4b.fusedAttention()).isFalse();
    assertThat(lora4b.recomputeLayers()).isFalse();
    assertThat(lora4b.recomputeHead()).isFalse();
    assertThat(lora4b.parts().get("layer inputs")).isZero();
    TrainingMemory explicit = TrainingMemory.resolved(preset("qwen3-4b"), 16, ALL, 4096, 8192, 1, 2,
        AttentionKernel.EXPLICIT, Recompute.OFF, Recompute.OFF);
    assertThat(explicit).isEqualTo(lora4b);
    assertThat(lora4b.with(true, true, true).with(false, false, false)).isEqualTo(lora4b);
  }

  @Test
  void eachChoiceChangesItsPartsAsDocumented() {
    // d 8, 2 layers, 2 heads and 1 key/value head of 4, MLP 16, vocabulary 10; B 1, P 2, T 3 (L 5); r 1 on q and v;
    // float16: a = x = 2
    Qwen3Config c = Qwen3Config.builder().setHiddenSize(8).setNumHiddenLayers(2).setNumAttentionHeads(2)
        .optNumKeyValueHeads(1).optHeadDim(4).setIntermediateSize(16).setVocabSize(10).optTieWordEmbeddings(true)
        .build();
    TrainingMemory kept = new TrainingMemory(c, 1, EnumSet.of(Projection.Q_PROJ, Projection.V_PROJ), 2, 3, 1, 2);
    Map<String, Long> k = kept.parts();
    assertThat(k.get("attention scores")).isEqualTo(2 * 2 * 25 * (4 + 2));
    assertThat(k.get("attention mask")).isEqualTo(25 * 13);

    Map<String, Long> fused = kept.with(true, false, false).parts();
    assertThat(fused.get("attention q, k, v, output")).isEqualTo(2 * 5 * 4 * (8 * (2 + 1) + 4 * 2 * 2));
    assertThat(fused.get("attention scores")).isEqualTo(2 * 2 * 5 * (4 * 2 + 4));
    assertThat(fused.get("attention mask")).isZero();
    assertThat(fused.get("backward working memory")).isEqualTo(Math.max(2 * 3 * 10 * 4, 3 * 2 * 5 * 4 * 4));
    assertThat(fused.get("hidden states")).isEqualTo(k.get("hidden states"));
    assertThat(fused.get("logits")).isEqualTo(k.get("logits"));

    // recomputed layers: every layer's input kept, one layer's activations at a time
    Map<String, Long> layers = kept.with(false, true, false).parts();
    assertThat(layers.get("layer inputs")).isEqualTo(2 * 5 * 8 * 4);
    assertThat(layers.get("hidden states")).isEqualTo(5 * 2 * 8 * (8 + 2) + 5 * 8 * 8);
    assertThat(layers.get("attention q, k, v, output")).isEqualTo(k.get("attention q, k, v, output") / 2);
    assertThat(layers.get("attention scores")).isEqualTo(k.get("attention scores") / 2);
    assertThat(layers.get("MLP intermediates")).isEqualTo(5 * 5 * 16 * 2);
    assertThat(layers.get("LoRA intermediates")).isEqualTo(5 * 1 * 2 * 4);
    assertThat(layers.get("attention mask")).isEqualTo(k.get("attention mask"));
    assertThat(layers.get("logits")).isEqualTo(k.get("logits"));

    // recomputed head: the final norm's output and the response slice's copy, one chunk's vocabulary arrays
    Map<String, Long> head = kept.with(false, false, true).parts();
    assertThat(head.get("logits")).isEqualTo((5 + 3) * 8 * 4);
    assertThat(head.get("backward working memory")).isEqualTo(Math.max(4 * 3 * 10 * 4, 2 * 2 * 25 * 4));
    // with recomputed layers, the one layer's gradients: as large as its activations (without the final norm's)
    Map<String, Long> recomputed = kept.with(true, true, true).parts();
    assertThat(recomputed.get("backward working memory")).isEqualTo(recomputed.get("hidden states") - 5 * 8 * 8
        + recomputed.get("attention q, k, v, output") + recomputed.get("attention scores")
        + recomputed.get("MLP intermediates") + recomputed.get("LoRA intermediates"));
    TrainingMemory long4b = new TrainingMemory(preset("qwen3-4b"), 16, ALL, 4096, 8192, 1, 2, true, false, true);
    assertThat(long4b.parts().get("backward working memory")).isEqualTo(Math.max(
        4L * TeacherForcing.DEFAULT_POSITION_CHUNK * 151_936 * 4, 3L * 32 * 12_288 * 128 * 4));

    for (TrainingMemory e : new TrainingMemory[] {kept, kept.with(true, true, true), long4b}) {
      assertThat(e.totalBytes()).isEqualTo(e.parts().values().stream().mapToLong(Long::longValue).sum());
    }
  }

  @Test
  void everyChoiceLowersTheTotalOfRealModelsAtTheSpecsLengths() {
    for (String name : Qwen3Presets.all().keySet()) {
      for (int response : new int[] {3072, 8192}) {
        for (boolean full : new boolean[] {false, true}) {
          TrainingMemory base = full ? new TrainingMemory(preset(name), 0, NONE, 4096, response, 1, 4)
              : new TrainingMemory(preset(name), 16, ALL, 4096, response, 1, 2);
          for (int bits = 0; bits < 8; bits++) {
            boolean f = (bits & 1) != 0;
            boolean l = (bits & 2) != 0;
            boolean h = (bits & 4) != 0;
            long total = base.with(f, l, h).totalBytes();
            String at = name + " 4096+" + response + (full ? " full" : " lora") + " fused=" + f + " layers=" + l
                + " head=" + h;
            if (!f) {
              assertThat(base.with(true, l, h).totalBytes()).as(at).isLessThan(total);
            }
            if (!l) {
              assertThat(base.with(f, true, h).totalBytes()).as(at).isLessThan(total);
            }
            if (!h) {
              assertThat(base.with(f, l, true).totalBytes()).as(at).isLessThan(total);
            }
          }
        }
      }
    }
  }

  @Test
  void autoResolvesAsTheLibraryDoes() {
    Qwen3Config q4 = preset("qwen3-4b");
    TrainingMemory auto = TrainingMemory.resolved(q4, 16, ALL, 4096, 8192, 1, 2, AttentionKernel.AUTO,
        Recompute.AUTO, Recompute.AUTO);
    assertThat(auto.fusedAttention()).isTrue();
    assertThat(auto.recomputeLayers()).isTrue();
    assertThat(auto.recomputeHead()).isTrue();
    assertThat(auto).isEqualTo(new TrainingMemory(q4, 16, ALL, 4096, 8192, 1, 2, true, true, true));

    // attention: fused from FUSED_FROM_KEYS key slots (L = P + T)
    int keys = Qwen3Model.FUSED_FROM_KEYS;
    assertThat(resolve(q4, keys - 2, 1, 1).fusedAttention()).isFalse();
    assertThat(resolve(q4, keys - 1, 1, 1).fusedAttention()).isTrue();
    assertThat(TrainingMemory.resolved(q4, 16, ALL, 1, 1, 1, 2, AttentionKernel.FUSED, Recompute.OFF,
        Recompute.OFF).fusedAttention()).isTrue();
    assertThat(TrainingMemory.resolved(q4, 16, ALL, 4096, 8192, 1, 2, AttentionKernel.EXPLICIT, Recompute.ON,
        Recompute.OFF)).isEqualTo(new TrainingMemory(q4, 16, ALL, 4096, 8192, 1, 2, false, true, false));

    // the head: from 1 GiB of B T V 4 (V = 151,936: T = 1767 at B = 1)
    long threshold = TeacherForcing.RECOMPUTE_FROM_BYTES;
    int t = (int) ((threshold + 151_936L * 4 - 1) / (151_936L * 4));
    assertThat(TeacherForcing.headActivationBytes(q4, t)).isGreaterThanOrEqualTo(threshold);
    assertThat(TeacherForcing.headActivationBytes(q4, t - 1)).isLessThan(threshold);
    assertThat(resolve(q4, 1, t, 1).recomputeHead()).isTrue();
    assertThat(resolve(q4, 1, t - 1, 1).recomputeHead()).isFalse();
    assertThat(resolve(q4, 3000, (t - 1) / 2, 2).recomputeHead()).isFalse(); // B T, not B L, positions
    assertThat(resolve(q4, 3000, (t + 1) / 2, 2).recomputeHead()).isTrue();

    // the layers: from 1 GiB of layerActivationBytes over B L slots
    long perSlot = TeacherForcing.layerActivationBytes(q4, 1);
    int slots = (int) ((threshold + perSlot - 1) / perSlot);
    assertThat(resolve(q4, slots - 1, 1, 1).recomputeLayers()).isTrue();
    assertThat(resolve(q4, slots - 2, 1, 1).recomputeLayers()).isFalse();
    assertThat(resolve(q4, slots / 2 - 1, 1, 2).recomputeLayers()).isEqualTo(slots % 2 == 0);
    assertThat(TrainingMemory.resolved(q4, 16, ALL, 4096, 8192, 1, 2, AttentionKernel.AUTO, Recompute.OFF,
        Recompute.ON)).isEqualTo(new TrainingMemory(q4, 16, ALL, 4096, 8192, 1, 2, true, false, true));
  }

  private static TrainingMemory resolve(Qwen3Config c, int prompt, int response, int batch) {
    return TrainingMemory.resolved(c, 16, ALL, prompt, response, batch, 2, AttentionKernel.AUTO, Recompute.AUTO,
        Recompute.AUTO);
  }

  @Test
  void qwen3FourBillionAtKuhnPokersLengthsFitsIn40GibWithTheDefaults() {
    // the criterion: `./mage memory --preset qwen3-4b` (LoRA r 16, float16, B 1, 4096 + 8192) <= 40 GiB
    TrainingMemory defaults = TrainingMemory.resolved(preset("qwen3-4b"), 16, ALL, 4096, 8192, 1, 2,
        AttentionKernel.AUTO, Recompute.AUTO, Recompute.AUTO);
    assertThat(defaults.totalBytes()).isLessThanOrEqualTo(40 * GIB).isEqualTo(19_241_106_432L);
    // explicit attention with every activation kept needed 1116 GiB
    assertThat(defaults.with(false, false, false).totalBytes()).isGreaterThan(1000 * GIB);
  }
}
