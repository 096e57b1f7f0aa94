package org.magejvm.api.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The values are those the copies this class replaced produced (the finaliser of Seeds, Qwen3Weights, LoraAdapter,
 * Qwen3Generator and ToyDuel, and their stream derivations), computed from the old code: seeds in golden tests depend
 * on them, so they must never change.
 */
class SplitMix64Test {

  @Test
  void theFinaliserKeepsItsValues() {
    assertThat(SplitMix64.mix(0L)).isZero();
    assertThat(SplitMix64.mix(1L)).isEqualTo(0x5692161D100B05E5L);
    assertThat(SplitMix64.mix(-1L)).isEqualTo(0xB4D055FCF2CBBD7BL);
    assertThat(SplitMix64.mix(42L)).isEqualTo(0xA759EA27D4727622L);
    assertThat(SplitMix64.mix(Long.MIN_VALUE)).isEqualTo(0x25C26EA579CEA98AL);
    assertThat(SplitMix64.mix(Long.MAX_VALUE)).isEqualTo(0x5A682AFE7965DEBDL);
    assertThat(SplitMix64.mix(0x10AD0000L)).isEqualTo(0x06A66FD4AEC5DA1AL);
    assertThat(SplitMix64.mix("model.layers.0.self_attn.q_proj".hashCode())).isEqualTo(0x0CAFB5EE8E0DEAF6L);
  }

  @Test
  void keyedSeedsKeepTheirValues() {
    // Qwen3Weights' and LoraAdapter's per-tensor streams: mix(seed ^ mix(name.hashCode()))
    assertThat(SplitMix64.keyed(7, "q_proj".hashCode())).isEqualTo(0xA2041B0AD07C4039L);
    // LoraAdapter's dropout masks: mix(seed ^ mix(0x10AD0000 + call))
    assertThat(SplitMix64.keyed(-3, 0x10AD0000L + 2)).isEqualTo(0x5810B0CCF65029DBL);
  }

  @Test
  void streamDerivationsKeepTheirValues() {
    // Seeds.derive(base, stream, index) = nth(nth(base, stream), index + 1)
    assertThat(SplitMix64.nth(SplitMix64.nth(7, 4), 1)).isEqualTo(0xAEC971331F50717CL);
    assertThat(SplitMix64.nth(SplitMix64.nth(99, 4), 3)).isEqualTo(0xF542E8827F874E7DL);
    assertThat(SplitMix64.nth(SplitMix64.nth(-5, 1), 1001)).isEqualTo(0xC15A5F843F67234EL);
    assertThat(SplitMix64.nth(SplitMix64.nth(7, 1), 4) >>> 33).isEqualTo(1297584364L);
    // Qwen3Generator's row streams (nth(callSeed, row + 1)) and row seeds (advance(callSeed, row))
    assertThat(SplitMix64.nth(123, 1)).isEqualTo(0xB4DC9BD462DE412BL);
    assertThat(SplitMix64.nth(123, 6)).isEqualTo(0xAAC67282FC30B210L);
    assertThat(SplitMix64.advance(123, 5)).isEqualTo(0x1715609F7C746CE4L);
    // a one-row call seeded with row r's seed reproduces row r: its first stream is the batch's stream r
    assertThat(SplitMix64.nth(SplitMix64.advance(123, 5), 1)).isEqualTo(SplitMix64.nth(123, 6));
  }

  @Test
  void nthIsTheNthValueOfSplittableRandom() {
    for (long seed : new long[] {0, 1, -1, 42, 0x10AD0000L}) {
      SplittableRandom r = new SplittableRandom(seed);
      for (int n = 1; n <= 5; n++) {
        assertThat(SplitMix64.nth(seed, n)).as("seed %d, value %d", seed, n).isEqualTo(r.nextLong());
      }
    }
    assertThat(SplitMix64.advance(0, 1)).isEqualTo(SplitMix64.GOLDEN_GAMMA).isEqualTo(0x9E3779B97F4A7C15L);
  }

  @Test
  void theFinaliserIsABijectionOnASample() {
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (long i = -500; i < 500; i++) {
      assertThat(seen.add(SplitMix64.mix(i))).isTrue();
    }
  }
}
