package org.magejvm.impl.llm.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.magejvm.api.FinishReason;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;

class Qwen3GeneratorTest {
  private static final List<int[]> PROMPTS = List.of(
      new int[] {1, 17, 42, 5, 96, 0, 33, 8},
      new int[] {1, 60, 3},
      new int[] {1, 9, 9, 9, 12, 80},
      new int[] {4});

  private static Qwen3Model model;
  private static Qwen3Generator gen;

  @BeforeAll
  static void load() {
    model = TinyFixture.model(DataType.FLOAT32);
    gen = Qwen3Generator.of(model);
  }

  @AfterAll
  static void close() {
    model.close();
  }

  private static SamplingConfig greedy(int n) {
    return SamplingConfig.builder().optTemperature(0).optMaxNewTokens(n).build();
  }

  private static SamplingConfig sampled(double t, int n, long seed) {
    return SamplingConfig.builder().optTemperature(t).optMaxNewTokens(n).optSeed(seed).build();
  }

  private static List<int[]> tokens(List<GeneratedSequence> seqs) {
    List<int[]> out = new ArrayList<>();
    seqs.forEach(s -> out.add(s.tokenIds()));
    return out;
  }

  @Test
  void nanLogProbabilitiesNameTheStepTheRowAndTheWeightType() {
    try (Qwen3Model poisoned = TinyFixture.model(DataType.FLOAT32)) {
      // a NaN in the final norm makes every logit NaN (weights loaded with the non-finite check turned off)
      ai.djl.ndarray.NDArray norm = poisoned.weights().parameters().get("model.norm.weight");
      norm.set(new ai.djl.ndarray.index.NDIndex(0), Float.NaN);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> Qwen3Generator.of(poisoned).generate(PROMPTS, greedy(3), Set.of()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("generation step 0 of row 0")
          .hasMessageContaining("prompt of 8 tokens")
          .hasMessageContaining("FLOAT32")
          .hasMessageContaining("the first non-finite value is in the output of model.norm, at token position 0 of 8;"
              + " its weight holds 1 non-finite value")
          .hasMessageNotContaining("usually an overflow");
    }
  }

  @Test
  void cachedGreedyEqualsRecomputation() {
    Qwen3Generator noCache = Qwen3Generator.builder().setModel(model).optKvCache(false).build();
    List<GeneratedSequence> a = gen.generate(PROMPTS, greedy(12), Set.of());
    List<GeneratedSequence> b = noCache.generate(PROMPTS, greedy(12), Set.of());
    for (int i = 0; i < PROMPTS.size(); i++) {
      assertThat(a.get(i).tokenIds()).containsExactly(b.get(i).tokenIds());
      assertThat(a.get(i).finishReason()).isEqualTo(FinishReason.LENGTH);
      float[] la = a.get(i).logProbs();
      float[] lb = b.get(i).logProbs();
      for (int j = 0; j < la.length; j++) {
        assertThat(la[j]).isCloseTo(lb[j], org.assertj.core.data.Offset.offset(1e-5f));
      }
    }
    // sampled decoding consumes the same uniforms either way
    assertThat(tokens(gen.generate(PROMPTS, sampled(1, 10, 3), Set.of())))
        .containsExactlyElementsOf(tokens(noCache.generate(PROMPTS, sampled(1, 10, 3), Set.of())));
  }

  @Test
  void batchedRowsEqualRowsAloneEvenWhenOthersStop() {
    List<GeneratedSequence> free = gen.generate(PROMPTS, greedy(10), Set.of());
    // a stop token that ends row 0 early (its third token) so the batch shrinks mid-way
    int stop = free.get(0).tokenIds()[2];
    List<GeneratedSequence> batched = gen.generate(PROMPTS, greedy(10), Set.of(stop));
    assertThat(batched.get(0).finishReason()).isEqualTo(FinishReason.STOP);
    for (int i = 0; i < PROMPTS.size(); i++) {
      GeneratedSequence alone = gen.generate(List.of(PROMPTS.get(i)), greedy(10), Set.of(stop)).get(0);
      assertThat(batched.get(i).tokenIds()).as("row " + i).containsExactly(alone.tokenIds());
      assertThat(batched.get(i).finishReason()).isEqualTo(alone.finishReason());
      float[] lb = batched.get(i).logProbs();
      float[] la = alone.logProbs();
      for (int j = 0; j < la.length; j++) {
        assertThat(lb[j]).isCloseTo(la[j], org.assertj.core.data.Offset.offset(1e-5f));
      }
    }
    // row 0's random stream does not depend on the other rows either
    assertThat(gen.generate(PROMPTS, sampled(1, 12, 9), Set.of(stop)).get(0).tokenIds())
        .containsExactly(gen.generate(PROMPTS.subList(0, 1), sampled(1, 12, 9), Set.of(stop)).get(0).tokenIds());
  }

  @Test
  void stopTokensEndRowsAndStayAsTheLastToken() {
    List<GeneratedSequence> free = gen.generate(PROMPTS, greedy(10), Set.of());
    int stop = free.get(0).tokenIds()[2];
    List<GeneratedSequence> s = gen.generate(PROMPTS, greedy(10), Set.of(stop));
    assertThat(gen.generate(PROMPTS, greedy(10), Set.of(stop))).isEqualTo(s);
    int stopped = 0;
    for (int i = 0; i < PROMPTS.size(); i++) {
      int[] t = s.get(i).tokenIds();
      assertThat(t.length).isBetween(1, 10);
      assertThat(s.get(i).logProbs()).hasSize(t.length);
      if (s.get(i).finishReason() == FinishReason.STOP) {
        stopped++;
        assertThat(t[t.length - 1]).isEqualTo(stop);
        assertThat(s.get(i).contentTokenIds()).containsExactly(Arrays.copyOf(t, t.length - 1))
            .doesNotContain(stop);
        // the free run is the same up to the stop token
        assertThat(Arrays.copyOf(free.get(i).tokenIds(), t.length)).containsExactly(t);
      } else {
        assertThat(t).hasSize(10).doesNotContain(stop);
        assertThat(s.get(i).contentTokenIds()).containsExactly(t);
      }
    }
    assertThat(stopped).isPositive();
  }


  @Test
  void minNewTokensHoldsBackStopTokens() {
    int first = gen.generate(PROMPTS, greedy(1), Set.of()).get(1).tokenIds()[0];
    SamplingConfig cfg = SamplingConfig.builder().optTemperature(0).optMaxNewTokens(6).optMinNewTokens(4).build();
    GeneratedSequence s = gen.generate(PROMPTS, cfg, Set.of(first)).get(1);
    assertThat(s.tokenIds().length).isGreaterThanOrEqualTo(5);
    assertThat(Arrays.copyOf(s.tokenIds(), 4)).doesNotContain(first);
    // and while sampling
    SamplingConfig hot = SamplingConfig.builder().optTemperature(1.5).optMaxNewTokens(5).optMinNewTokens(5)
        .optSeed(1).build();
    Set<Integer> many = new java.util.HashSet<>();
    for (int i = 0; i < 90; i++) {
      many.add(i);
    }
    for (GeneratedSequence x : gen.generate(PROMPTS, hot, many)) {
      assertThat(x.tokenIds()).hasSize(5);
      assertThat(Arrays.stream(x.tokenIds()).boxed().toList()).allMatch(t -> t >= 90);
      assertThat(x.finishReason()).isEqualTo(FinishReason.LENGTH);
    }
  }

  @Test
  void samplingIsReproducibleBySeed() {
    List<int[]> a = tokens(gen.generate(PROMPTS, sampled(1, 16, 42), Set.of()));
    List<int[]> b = tokens(gen.generate(PROMPTS, sampled(1, 16, 42), Set.of()));
    List<int[]> c = tokens(gen.generate(PROMPTS, sampled(1, 16, 43), Set.of()));
    for (int i = 0; i < a.size(); i++) {
      assertThat(a.get(i)).containsExactly(b.get(i));
    }
    assertThat(a.stream().map(Arrays::toString).toList())
        .isNotEqualTo(c.stream().map(Arrays::toString).toList());
    // calls without a seed draw from the generator's own seeded stream
    SamplingConfig noSeed = SamplingConfig.builder().optMaxNewTokens(16).build();
    Qwen3Generator g1 = Qwen3Generator.builder().setModel(model).optSeed(5).build();
    Qwen3Generator g2 = Qwen3Generator.builder().setModel(model).optSeed(5).build();
    List<String> first = tokens(g1.generate(PROMPTS, noSeed, Set.of())).stream().map(Arrays::toString).toList();
    assertThat(tokens(g2.generate(PROMPTS, noSeed, Set.of())).stream().map(Arrays::toString).toList())
        .isEqualTo(first);
    assertThat(tokens(g1.generate(PROMPTS, noSeed, Set.of())).stream().map(Arrays::toString).toList())
        .isNotEqualTo(first);
  }

  @Test
  void topKOneAndTinyTopPAreGreedy() {
    List<GeneratedSequence> greedy = gen.generate(PROMPTS, greedy(12), Set.of());
    SamplingConfig k1 = SamplingConfig.builder().optTemperature(1).optTopK(1).optMaxNewTokens(12).optSeed(1).build();
    SamplingConfig p0 = SamplingConfig.builder().optTemperature(0.8).optTopP(1e-6).optMaxNewTokens(12).optSeed(2)
        .build();
    SamplingConfig both = SamplingConfig.builder().optTemperature(2).optTopK(10).optTopP(1e-6).optMaxNewTokens(12)
        .optSeed(3).build();
    List<GeneratedSequence> a = gen.generate(PROMPTS, k1, Set.of());
    List<GeneratedSequence> b = gen.generate(PROMPTS, p0, Set.of());
    List<GeneratedSequence> c = gen.generate(PROMPTS, both, Set.of());
    for (int i = 0; i < PROMPTS.size(); i++) {
      assertThat(a.get(i).tokenIds()).containsExactly(greedy.get(i).tokenIds());
      assertThat(b.get(i).tokenIds()).containsExactly(greedy.get(i).tokenIds());
      assertThat(c.get(i).tokenIds()).containsExactly(greedy.get(i).tokenIds());
      // temperature 1 in both: the same reported log-probabilities
      assertThat(a.get(i).logProbs()).containsExactly(greedy.get(i).logProbs());
    }
  }

  /** Next-token probabilities for PROMPTS[0] at a temperature. */
  private static double[] probs(double temperature) {
    try (NDManager m = model.newManager()) {
      float[] all = model.logits(m, PROMPTS.get(0)).toFloatArray();
      int v = model.config().vocabSize();
      double[] p = new double[v];
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < v; j++) {
        p[j] = all[all.length - v + j] / temperature;
        max = Math.max(max, p[j]);
      }
      double z = 0;
      for (int j = 0; j < v; j++) {
        p[j] = Math.exp(p[j] - max);
        z += p[j];
      }
      for (int j = 0; j < v; j++) {
        p[j] /= z;
      }
      return p;
    }
  }

  /** Draws n single tokens for PROMPTS[0] in one batch and returns the counts. */
  private static int[] counts(SamplingConfig cfg, int n) {
    List<int[]> batch = Collections.nCopies(n, PROMPTS.get(0));
    int[] c = new int[model.config().vocabSize()];
    for (GeneratedSequence s : gen.generate(batch, cfg, Set.of())) {
      c[s.tokenIds()[0]]++;
    }
    return c;
  }

  private static void assertFrequencies(int[] counts, double[] p, int n) {
    for (int j = 0; j < p.length; j++) {
      double sd = Math.sqrt(p[j] * (1 - p[j]) / n);
      assertThat((double) counts[j] / n).as("token " + j + " p=" + p[j]).isCloseTo(p[j],
          org.assertj.core.data.Offset.offset(5 * sd + 2e-3));
    }
  }

  @Test
  void sampledFrequenciesFollowTheTemperedDistribution() {
    int n = 4000;
    for (double t : new double[] {0.6, 1.7}) {
      SamplingConfig cfg = SamplingConfig.builder().optTemperature(t).optMaxNewTokens(1).optSeed(11).build();
      assertFrequencies(counts(cfg, n), probs(t), n);
    }
    // top-k keeps the k most likely tokens and renormalises
    double[] p = probs(1.3);
    Integer[] order = new Integer[p.length];
    for (int j = 0; j < p.length; j++) {
      order[j] = j;
    }
    Arrays.sort(order, (x, y) -> Double.compare(p[y], p[x]));
    double[] topK = new double[p.length];
    double mass = 0;
    for (int r = 0; r < 5; r++) {
      mass += p[order[r]];
    }
    for (int r = 0; r < 5; r++) {
      topK[order[r]] = p[order[r]] / mass;
    }
    SamplingConfig k5 = SamplingConfig.builder().optTemperature(1.3).optTopK(5).optMaxNewTokens(1).optSeed(12)
        .build();
    assertFrequencies(counts(k5, n), topK, n);
    // top-p keeps the smallest prefix whose mass reaches p
    double[] nucleus = new double[p.length];
    double cum = 0;
    int kept = 0;
    while (cum < 0.6) {
      cum += p[order[kept]];
      kept++;
    }
    for (int r = 0; r < kept; r++) {
      nucleus[order[r]] = p[order[r]] / cum;
    }
    assertThat(kept).isGreaterThan(1);
    SamplingConfig p6 = SamplingConfig.builder().optTemperature(1.3).optTopP(0.6).optMaxNewTokens(1).optSeed(13)
        .build();
    assertFrequencies(counts(p6, n), nucleus, n);
  }

  @Test
  void reportedLogProbsEqualTeacherForcedOnes() {
    TeacherForcing tf = new TeacherForcing(model);
    SamplingConfig eval = SamplingConfig.builder().optTemperature(0.7).optTopP(0.9).optTopK(20).optMaxNewTokens(9)
        .optSeed(4).build();
    for (SamplingConfig cfg : List.of(eval, greedy(9), sampled(1, 9, 5))) {
      List<GeneratedSequence> s = gen.generate(PROMPTS, cfg, Set.of(2, 7, 11));
      List<int[]> responses = tokens(s);
      try (NDManager m = model.newManager();
          TokenScores scores = tf.score(m, PROMPTS, responses, cfg.temperature(), false)) {
        float[] lp = scores.logProbs().toFloatArray();
        float[] mask = scores.mask().toFloatArray();
        int r = (int) scores.logProbs().getShape().get(1);
        for (int i = 0; i < s.size(); i++) {
          float[] reported = s.get(i).logProbs();
          for (int j = 0; j < r; j++) {
            if (j < reported.length) {
              assertThat(mask[i * r + j]).isEqualTo(1f);
              assertThat(lp[i * r + j]).isCloseTo(reported[j], org.assertj.core.data.Offset.offset(1e-4f));
              assertThat(reported[j]).isLessThanOrEqualTo(0f);
            } else {
              assertThat(mask[i * r + j]).isEqualTo(0f);
              assertThat(lp[i * r + j]).isEqualTo(0f);
            }
          }
        }
      }
    }
  }

  @Test
  void generationLeavesTheWeightsManagerAlone() {
    gen.generate(PROMPTS, sampled(1, 4, 1), Set.of());
    int before = model.weights().manager().getManagedArrays().size();
    gen.generate(PROMPTS, SamplingConfig.evaluation(20).withSeed(3), Set.of(2));
    gen.generate(PROMPTS, greedy(20), Set.of());
    assertThat(model.weights().manager().getManagedArrays()).hasSize(before);
  }

  @Test
  void badInputIsRejected() {
    assertThatThrownBy(() -> gen.generate(List.of(), greedy(3), Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no prompts");
    assertThatThrownBy(() -> gen.generate(List.of(new int[] {1}, new int[0]), greedy(3), Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prompt 1 is empty");
    assertThatThrownBy(() -> gen.generate(List.of(new int[] {1, 97}), greedy(3), Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("97");
    assertThatThrownBy(() -> gen.generate(List.of(new int[] {-1}), greedy(3), Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }

  @Test
  void perRowSeedsReproduceTheRowsOfABatchedCallAndOfOneRowCalls() {
    SamplingConfig s = sampled(1.0, 8, 21);
    List<GeneratedSequence> batched = gen.generate(PROMPTS, s, Set.of());
    long[] seeds = new long[PROMPTS.size()];
    for (int i = 0; i < seeds.length; i++) {
      seeds[i] = Qwen3Generator.rowSeed(21, i);
    }
    List<GeneratedSequence> perRow = gen.generate(PROMPTS, s, Set.of(), seeds);
    assertThat(tokens(perRow)).usingRecursiveComparison().isEqualTo(tokens(batched));
    for (int i = 0; i < seeds.length; i++) {
      // a one-row call with the row's seed samples the same tokens (log-probs may differ in the last bits)
      GeneratedSequence alone = gen.generate(List.of(PROMPTS.get(i)), s.withSeed(seeds[i]), Set.of()).get(0);
      assertThat(alone.tokenIds()).containsExactly(batched.get(i).tokenIds());
    }
    // the interface's default (one row at a time) agrees with the batched override
    TokenGenerator plain = gen::generate;
    assertThat(tokens(plain.generate(PROMPTS, s, Set.of(), seeds))).usingRecursiveComparison()
        .isEqualTo(tokens(batched));
    // distinct seeds give distinct rows for the same prompt (a hot temperature: the fixture is peaked at T = 1)
    List<GeneratedSequence> twins = gen.generate(List.of(PROMPTS.get(0), PROMPTS.get(0)), sampled(50, 8, 0),
        Set.of(), new long[] {1, 2});
    assertThat(twins.get(0).tokenIds()).isNotEqualTo(twins.get(1).tokenIds());
    assertThatThrownBy(() -> gen.generate(PROMPTS, s, Set.of(), new long[] {1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 seeds for " + PROMPTS.size());
  }

  @Test
  void aPrefillCutIntoChunksOfPositionsGivesTheSameTokensAndLogProbs() {
    // 2 slots: the prompts go one or two positions at a time through the cache
    for (long slots : new long[] {1, 2, 5}) {
      Qwen3Generator chunked = Qwen3Generator.builder().setModel(gen.model()).optPrefillTokenSlots(slots).build();
      for (SamplingConfig s : new SamplingConfig[] {greedy(6), sampled(1.0, 6, 9)}) {
        List<GeneratedSequence> whole = gen.generate(PROMPTS, s, Set.of());
        List<GeneratedSequence> parts = chunked.generate(PROMPTS, s, Set.of());
        assertThat(tokens(parts)).as("%d slots", slots).usingRecursiveComparison().isEqualTo(tokens(whole));
        for (int i = 0; i < whole.size(); i++) {
          for (int j = 0; j < whole.get(i).logProbs().length; j++) {
            assertThat(parts.get(i).logProbs()[j]).isCloseTo(whole.get(i).logProbs()[j],
                org.assertj.core.data.Offset.offset(1e-5f));
          }
        }
      }
    }
    assertThatThrownBy(() -> Qwen3Generator.builder().setModel(gen.model()).optPrefillTokenSlots(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefill token slots");
  }

  @Test
  void rowsThatShareAPromptShareOnePrefillAndStillSampleAsRowsAlone() {
    // the prefill runs once per different prompt; each row then decodes with its own seed, as it would alone
    List<int[]> repeated = List.of(PROMPTS.get(0), PROMPTS.get(1), PROMPTS.get(0), PROMPTS.get(0), PROMPTS.get(1));
    SamplingConfig s = sampled(1.0, 8, 33);
    List<GeneratedSequence> batched = gen.generate(repeated, s, Set.of());
    for (int i = 0; i < repeated.size(); i++) {
      GeneratedSequence alone = gen.generate(List.of(repeated.get(i)), s.withSeed(Qwen3Generator.rowSeed(33, i)),
          Set.of()).get(0);
      assertThat(batched.get(i).tokenIds()).as("row %d", i).containsExactly(alone.tokenIds());
      for (int j = 0; j < alone.logProbs().length; j++) {
        assertThat(batched.get(i).logProbs()[j]).as("row %d token %d", i, j)
            .isCloseTo(alone.logProbs()[j], org.assertj.core.data.Offset.offset(1e-5f));
      }
    }
    // greedy rows of one prompt are identical, and equal the cached-off recomputation
    List<GeneratedSequence> greedy = gen.generate(repeated, greedy(8), Set.of());
    Qwen3Generator recompute = Qwen3Generator.builder().setModel(gen.model()).optKvCache(false).build();
    List<GeneratedSequence> reference = recompute.generate(repeated, greedy(8), Set.of());
    assertThat(tokens(greedy)).usingRecursiveComparison().isEqualTo(tokens(reference));
  }

  @Test
  void aTokenListenerSeesEveryTokenAsSampledAndMayEndItsRowEarly() {
    SamplingConfig s = sampled(1.0, 8, 5);
    long[] seeds = {11, 12, 13};
    List<int[]> prompts = PROMPTS.subList(0, 3);
    List<GeneratedSequence> plain = gen.generate(prompts, s, Set.of(), seeds);
    List<List<Integer>> seen = new ArrayList<>();
    for (int i = 0; i < prompts.size(); i++) {
      seen.add(new ArrayList<>());
    }
    // row 1 is ended after its third token; the others run to the limit
    List<GeneratedSequence> listened = gen.generate(prompts, s, Set.of(), seeds, (row, token, logProb) -> {
      seen.get(row).add(token);
      return !(row == 1 && seen.get(row).size() == 3);
    });
    for (int i = 0; i < prompts.size(); i++) {
      int[] told = seen.get(i).stream().mapToInt(Integer::intValue).toArray();
      assertThat(listened.get(i).tokenIds()).as("row %d", i).containsExactly(told);
      int[] expected = plain.get(i).tokenIds();
      assertThat(told).as("row %d", i).containsExactly(i == 1 ? java.util.Arrays.copyOf(expected, 3) : expected);
    }
    assertThat(listened.get(1).finishReason()).isEqualTo(FinishReason.LENGTH);
    // the interface's default tells the tokens after generating, and cuts the row the same way
    TokenGenerator after = gen::generate;
    List<GeneratedSequence> replayed = after.generate(prompts, s, Set.of(), seeds, (row, token, logProb) -> row != 1);
    assertThat(replayed.get(1).tokenIds()).containsExactly(plain.get(1).tokenIds()[0]);
    assertThat(replayed.get(0).tokenIds()).containsExactly(plain.get(0).tokenIds());
  }

  @Test
  void topLogProbsAreTheSortedTopKOfTheReportedDistributionAndLeaveTheTokensAlone() {
    long[] seeds = {3, 4, 5, 6};
    for (SamplingConfig cfg : List.of(sampled(1.0, 6, 0), sampled(0.7, 6, 0),
        SamplingConfig.builder().optTemperature(0.8).optTopK(3).optTopP(0.9).optMaxNewTokens(6).build(),
        greedy(6))) {
      List<GeneratedSequence> plain = gen.generate(PROMPTS, cfg, Set.of(), seeds);
      List<TopLogProbs> told = new ArrayList<>();
      List<GeneratedSequence> withTop = gen.generate(PROMPTS, cfg, Set.of(), seeds,
          new TokenGenerator.TokenListener() {
            @Override
            public boolean onToken(int row, int token, float logProb) {
              throw new AssertionError("the four-argument method is called");
            }

            @Override
            public boolean onToken(int row, int token, float logProb, TopLogProbs top) {
              told.add(top);
              return true;
            }
          }, 5);
      int stepsSeen = 0;
      for (int i = 0; i < PROMPTS.size(); i++) {
        GeneratedSequence s = withTop.get(i);
        assertThat(s.tokenIds()).containsExactly(plain.get(i).tokenIds());
        assertThat(s.logProbs()).containsExactly(plain.get(i).logProbs());
        assertThat(plain.get(i).topLogProbs()).isEmpty();
        assertThat(s.topLogProbs()).hasSize(s.length());
        int inTop = 0;
        for (int j = 0; j < s.length(); j++) {
          TopLogProbs top = s.topLogProbs().get(j);
          assertThat(top.size()).isEqualTo(5);
          float[] lps = top.logProbs();
          for (int k = 1; k < lps.length; k++) {
            assertThat(lps[k]).isLessThanOrEqualTo(lps[k - 1]);
          }
          int at = Arrays.stream(top.tokenIds()).boxed().toList().indexOf(s.tokenIds()[j]);
          if (at >= 0) {
            inTop++;
            assertThat(lps[at]).isEqualTo(s.logProbs()[j]);
          } else {
            assertThat(s.logProbs()[j]).isLessThanOrEqualTo(lps[lps.length - 1]);
          }
          stepsSeen++;
        }
        if (cfg.greedy() || cfg.topK() == 3) {
          assertThat(inTop).isEqualTo(s.length());   // the pick is always among the 5 most likely
        }
      }
      assertThat(told).hasSize(stepsSeen).doesNotContainNull();
    }
    // K beyond the vocabulary gives the whole vocabulary, whose probabilities sum to 1
    List<GeneratedSequence> all = gen.generate(List.of(PROMPTS.get(1)), greedy(1), Set.of(), new long[] {1}, null,
        1_000_000);
    float[] lps = all.get(0).topLogProbs().get(0).logProbs();
    assertThat(lps).hasSize(model.config().vocabSize());
    double sum = 0;
    for (float lp : lps) {
      sum += Math.exp(lp);
    }
    assertThat(sum).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
    assertThatThrownBy(() -> gen.generate(PROMPTS, greedy(1), Set.of(), seeds, null, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("topLogProbs");
  }

  @Test
  void aPromptBeyondTheContextIsRefusedBeforeGeneration() {
    int context = model.config().maxPositionEmbeddings();
    int[] longPrompt = new int[context + 1];
    Arrays.fill(longPrompt, 1);
    assertThatThrownBy(() -> gen.generate(List.of(PROMPTS.get(0), longPrompt), greedy(1), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("prompt 1: the prompt is " + (context + 1) + " tokens, more than the model's context of " + context
            + " tokens (max_position_embeddings in config.json)");
  }
}
