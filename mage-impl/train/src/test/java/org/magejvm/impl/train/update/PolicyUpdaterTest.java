package org.magejvm.impl.train.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.junit.jupiter.api.Test;

/** The policy-gradient update on a tiny float64 model: direction of the update, and micro-batch accumulation. */
class PolicyUpdaterTest {

  private static final Qwen3Config CONFIG = Qwen3Config.builder().setVocabSize(40).setHiddenSize(16)
      .setIntermediateSize(32).setNumHiddenLayers(2).setNumAttentionHeads(2).optNumKeyValueHeads(1)
      .addEosTokenId(3).build();

  private static PolicyOptimizer gigpo(double entropy) {
    OptimizerConfig c = OptimizerConfig.builder().optKlCoefficient(0).optEntropyCoefficient(entropy).build();
    return ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo").create(c);
  }

  private static List<PolicyUpdater.Row> rows() {
    List<PolicyUpdater.Row> rows = new ArrayList<>();
    rows.add(new PolicyUpdater.Row(new int[] {5, 6, 7}, new int[] {9, 10, 3}, null, 1.0));
    rows.add(new PolicyUpdater.Row(new int[] {5, 8}, new int[] {11, 3}, null, 0.5));
    rows.add(new PolicyUpdater.Row(new int[] {12, 6, 7, 9}, new int[] {20, 21, 22, 3}, null, -1.0));
    rows.add(new PolicyUpdater.Row(new int[] {4}, new int[] {30}, null, -0.25));
    rows.add(new PolicyUpdater.Row(new int[] {4, 4}, new int[] {31, 3}, null, 0.0));
    return rows;
  }

  private static double[] sumLogProbs(PolicyUpdater updater, List<PolicyUpdater.Row> rows) {
    List<float[]> lp = updater.oldLogProbs(rows);
    double[] out = new double[lp.size()];
    for (int i = 0; i < out.length; i++) {
      for (float v : lp.get(i)) {
        out[i] += v;
      }
    }
    return out;
  }

  @Test
  void oneUpdateRaisesPositiveAndLowersNegativeAdvantageTokens() {
    try (Qwen3Model model = Qwen3Model.random(CONFIG, 7, Device.cpu(), DataType.FLOAT64)) {
      model.weights().requireGradients(true);
      try (AdamW adamw = new AdamW(model.weights().parameters(),
          AdamWConfig.builder().optLearningRate(1e-2).optWeightDecay(0).build())) {
        PolicyUpdater updater = new PolicyUpdater(model, null, gigpo(0), adamw,
            new PolicyUpdater.Settings(64, 2, 1, true, true));
        List<PolicyUpdater.Row> rows = rows();
        double[] before = sumLogProbs(updater, rows);
        PolicyUpdater.Report report = updater.update(rows);
        double[] after = sumLogProbs(updater, rows);
        assertThat(report.optimizerSteps()).isEqualTo(1);
        assertThat(report.skippedSteps()).isZero();
        assertThat(report.trainedRows()).isEqualTo(4);
        assertThat(report.skippedZeroAdvantage()).isEqualTo(1);
        assertThat(after[0]).isGreaterThan(before[0]);
        assertThat(after[1]).isGreaterThan(before[1]);
        assertThat(after[2]).isLessThan(before[2]);
        assertThat(after[3]).isLessThan(before[3]);
        assertThat(report.diagnostics()).containsKeys("actor/pg_loss", "actor/ppo_kl");
        // on-policy first step: ratio 1 (up to the float32 rounding of the old log-probs), so no clipping, no KL
        assertThat(report.diagnostics().get("actor/pg_clipfrac_low")).isZero();
        assertThat(report.diagnostics().get("actor/ppo_kl")).isCloseTo(0.0, within(1e-6));
      }
    }
  }

  /** One two-epoch, two-minibatch update of a fresh model; returns the report and the log-probs of all rows after. */
  private static PolicyUpdater.Report updateOnce(double lr, double limit, List<List<float[]>> scores) {
    try (Qwen3Model model = Qwen3Model.random(CONFIG, 7, Device.cpu(), DataType.FLOAT64)) {
      model.weights().requireGradients(true);
      try (AdamW adamw = new AdamW(model.weights().parameters(),
          AdamWConfig.builder().optLearningRate(lr).optWeightDecay(0.01).build())) {
        PolicyUpdater updater = new PolicyUpdater(model, null, gigpo(0.01), adamw,
            new PolicyUpdater.Settings(2, 2, 2, true, true, limit));
        List<PolicyUpdater.Row> rows = rows();
        scores.add(updater.oldLogProbs(rows));
        PolicyUpdater.Report report = updater.update(rows);
        scores.add(updater.oldLogProbs(rows));
        assertThat(adamw.stepCount()).isEqualTo(report.optimizerSteps());
        return report;
      }
    }
  }

  @Test
  void theUpdateCheckMeasuresEveryTurnAndHalvesTheRateOfAnUpdateThatMovesTooFar() {
    // no check: nothing measured
    List<List<float[]>> plain = new ArrayList<>();
    PolicyUpdater.Report off = updateOnce(1e-2, 0, plain);
    assertThat(off.updateKl()).isNaN();
    assertThat(off.backtracks()).isZero();
    assertThat(off.stepScale()).isEqualTo(1.0);
    // a limit never reached: the same update, and its KL over all five turns (the zero-advantage one included)
    List<List<float[]>> loose = new ArrayList<>();
    PolicyUpdater.Report kept = updateOnce(1e-2, 1e6, loose);
    assertThat(kept.optimizerSteps()).isEqualTo(4); // two epochs of two minibatches, all checked as one update
    assertThat(kept.backtracks()).isZero();
    assertThat(kept.stepScale()).isEqualTo(1.0);
    assertThat(kept.updateKl()).isPositive().isEqualTo(PolicyUpdater.meanKl(loose.get(0), loose.get(1)));
    assertThat(kept.updateKl()).isNotEqualTo(PolicyUpdater.meanKl(loose.get(0).subList(0, 4),
        loose.get(1).subList(0, 4)));
    for (int i = 0; i < 5; i++) {
      assertThat(loose.get(1).get(i)).as("row %d", i).containsExactly(plain.get(1).get(i));
    }
    // a limit no update meets: three halvings, and the kept try is exactly an update at an eighth of the rate
    List<List<float[]>> tight = new ArrayList<>();
    PolicyUpdater.Report last = updateOnce(1e-2, 1e-12, tight);
    assertThat(last.backtracks()).isEqualTo(PolicyUpdater.MAX_BACKTRACKS);
    assertThat(last.stepScale()).isEqualTo(0.125);
    List<List<float[]>> eighth = new ArrayList<>();
    updateOnce(1e-2 * 0.125, 0, eighth);
    for (int i = 0; i < 5; i++) {
      assertThat(tight.get(1).get(i)).as("row %d", i).containsExactly(eighth.get(1).get(i));
    }
    assertThat(last.updateKl()).isEqualTo(PolicyUpdater.meanKl(tight.get(0), tight.get(1)))
        .isLessThan(kept.updateKl());
    // a limit between the two: the first try that meets it is kept
    double between = Math.sqrt(kept.updateKl() * last.updateKl());
    PolicyUpdater.Report middle = updateOnce(1e-2, between, new ArrayList<>());
    assertThat(middle.backtracks()).isBetween(1, PolicyUpdater.MAX_BACKTRACKS);
    assertThat(middle.updateKl()).isLessThanOrEqualTo(between);
  }

  @Test
  void anUpdateThatLowersTheAnchorsIsRetriedAndFinallyUndoneWhileOneThatRaisesThemIsKept() {
    List<PolicyUpdater.Row> rows = rows();
    // rows 2 and 3 have negative advantages: the update lowers them; rows 0 and 1 positive: it raises them
    List<PolicyUpdater.Row> lowered = rows.subList(2, 4);
    List<PolicyUpdater.Row> raised = rows.subList(0, 2);
    for (List<PolicyUpdater.Row> anchors : List.of(lowered, raised)) {
      try (Qwen3Model model = Qwen3Model.random(CONFIG, 7, Device.cpu(), DataType.FLOAT64)) {
        model.weights().requireGradients(true);
        try (AdamW adamw = new AdamW(model.weights().parameters(),
            AdamWConfig.builder().optLearningRate(1e-2).optWeightDecay(0).build())) {
          PolicyUpdater updater = new PolicyUpdater(model, null, gigpo(0), adamw,
              new PolicyUpdater.Settings(64, 2, 1, true, true, 0, 1e-12), anchors);
          List<float[]> before = updater.oldLogProbs(rows);
          PolicyUpdater.Report report = updater.update(rows);
          List<float[]> after = updater.oldLogProbs(rows);
          assertThat(report.updateKl()).isNaN();
          if (anchors == lowered) {
            assertThat(report.undone()).isTrue();
            assertThat(report.backtracks()).isEqualTo(PolicyUpdater.MAX_BACKTRACKS);
            assertThat(report.anchorChange()).isNegative();
            assertThat(adamw.stepCount()).isZero();
            for (int i = 0; i < rows.size(); i++) {
              assertThat(after.get(i)).as("row %d after the undone update", i).containsExactly(before.get(i));
            }
          } else {
            assertThat(report.undone()).isFalse();
            assertThat(report.backtracks()).isZero();
            assertThat(report.stepScale()).isEqualTo(1.0);
            assertThat(report.anchorChange()).isPositive()
                .isEqualTo(PolicyUpdater.meanChange(before.subList(0, 2), after.subList(0, 2)));
            assertThat(adamw.stepCount()).isEqualTo(1);
          }
        }
      }
    }
  }

  /**
   * The anchors' scores kept from one update serve as the next update's baseline: they equal, bit for bit, the
   * anchors scored again on the same weights, after a kept update as after an undone one, and they are dropped when
   * the weights change outside the updater.
   */
  @Test
  void theAnchorsKeptFromTheLastUpdateAreExactlyTheirScoresOnTheCurrentWeights() {
    List<PolicyUpdater.Row> rows = rows();
    for (List<PolicyUpdater.Row> anchors : List.of(rows.subList(0, 2), rows.subList(2, 4))) {
      try (Qwen3Model model = Qwen3Model.random(CONFIG, 7, Device.cpu(), DataType.FLOAT64)) {
        model.weights().requireGradients(true);
        try (AdamW adamw = new AdamW(model.weights().parameters(),
            AdamWConfig.builder().optLearningRate(1e-2).optWeightDecay(0).build())) {
          PolicyUpdater updater = new PolicyUpdater(model, null, gigpo(0), adamw,
              new PolicyUpdater.Settings(64, 2, 1, true, true, 0, 1e-12), anchors);
          assertThat(updater.keptAnchorScores()).isNull();
          for (int round = 0; round < 2; round++) {
            updater.update(rows);
            List<float[]> kept = updater.keptAnchorScores();
            assertThat(kept).as("round %d", round).isNotNull().hasSize(2);
            List<float[]> fresh = updater.oldLogProbs(anchors);
            for (int i = 0; i < 2; i++) {
              assertThat(kept.get(i)).as("round %d anchor %d", round, i).containsExactly(fresh.get(i));
            }
          }
          updater.forgetAnchorScores();
          assertThat(updater.keptAnchorScores()).isNull();
        }
      }
    }
  }

  /**
   * After a checkpoint is restored, the anchors are scored again: not counted in {@code tokens/update_checks} when the
   * run that wrote the checkpoint held their scores (its next update did not score them), counted otherwise.
   */
  @Test
  void theAnchorsScoredAgainAfterARestoreAreCountedOnlyWhenTheRunBeingContinuedDidNotHoldThem() {
    List<PolicyUpdater.Row> rows = rows();
    List<PolicyUpdater.Row> anchors = rows.subList(0, 2);
    long anchorTokens = 0;
    for (PolicyUpdater.Row a : anchors) {
      anchorTokens += a.prompt().length + a.response().length;
    }
    long[] checkTokens = new long[3];
    for (int mode = 0; mode < 3; mode++) {
      try (Qwen3Model model = Qwen3Model.random(CONFIG, 7, Device.cpu(), DataType.FLOAT64)) {
        model.weights().requireGradients(true);
        try (AdamW adamw = new AdamW(model.weights().parameters(),
            AdamWConfig.builder().optLearningRate(1e-2).optWeightDecay(0).build())) {
          PolicyUpdater updater = new PolicyUpdater(model, null, gigpo(0), adamw,
              new PolicyUpdater.Settings(64, 2, 1, true, true, 0, 10), anchors);
          updater.update(rows);
          assertThat(updater.holdsAnchorScores()).isTrue();
          if (mode == 1) {
            updater.forgetAnchorScores(true);
            assertThat(updater.holdsAnchorScores()).as("as the run being continued").isTrue();
          } else if (mode == 2) {
            updater.forgetAnchorScores(false);
            assertThat(updater.holdsAnchorScores()).isFalse();
          }
          checkTokens[mode] = updater.update(rows).timing().checkTokens();
        }
      }
    }
    assertThat(checkTokens[0]).isPositive();
    assertThat(checkTokens[1]).as("held before the restore: the scoring again is not counted")
        .isEqualTo(checkTokens[0]);
    assertThat(checkTokens[2]).as("not held: counted").isEqualTo(checkTokens[0] + anchorTokens);
  }

  @Test
  void meanChangeAveragesOverTokensAndAnEmptyAnchorIsRefused() {
    List<float[]> before = List.of(new float[] {-1f, -2f}, new float[] {-0.5f});
    List<float[]> now = List.of(new float[] {-1.5f, -2f}, new float[] {-0.25f});
    assertThat(PolicyUpdater.meanChange(before, now)).isCloseTo((-0.5 + 0 + 0.25) / 3, within(1e-7));
    assertThat(PolicyUpdater.meanChange(before, List.of(new float[] {Float.NEGATIVE_INFINITY, 0f},
        new float[] {0f}))).isNaN();
    try (Qwen3Model model = Qwen3Model.random(CONFIG, 7, Device.cpu(), DataType.FLOAT64)) {
      model.weights().requireGradients(true);
      try (AdamW adamw = new AdamW(model.weights().parameters(), AdamWConfig.defaults())) {
        assertThatThrownBy(() -> new PolicyUpdater(model, null, gigpo(0), adamw, PolicyUpdater.Settings.defaults(),
            List.of(new PolicyUpdater.Row(new int[] {4}, new int[0], null, 0))))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("anchor turn 0");
      }
    }
    for (double bad : new double[] {-1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> new PolicyUpdater.Settings(64, 8, 1, true, true, 0, bad))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAnchorDrop");
    }
  }

  @Test
  void meanKlIsTheK3EstimateOverAllTokens() {
    List<float[]> old = List.of(new float[] {(float) Math.log(0.5), 0f}, new float[] {(float) Math.log(0.25)});
    List<float[]> now = List.of(new float[] {(float) Math.log(0.25), 0f}, new float[] {(float) Math.log(0.25)});
    // r = 0.5 on the first token: 0.5 - 1 - log 0.5 = 0.19315; the other two tokens did not move
    assertThat(PolicyUpdater.meanKl(old, now)).isCloseTo((0.5 - 1 - Math.log(0.5)) / 3, within(1e-7));
    assertThat(PolicyUpdater.meanKl(old, List.of(new float[] {Float.NaN, 0f}, new float[] {0f}))).isNaN();
    assertThat(PolicyUpdater.meanKl(List.of(), List.of())).isZero();
  }

  @Test
  void theKlLimitMustBeFiniteAndNotNegative() {
    for (double bad : new double[] {-0.1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> new PolicyUpdater.Settings(64, 8, 1, true, true, bad))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxUpdateKl");
    }
    assertThat(PolicyUpdater.Settings.defaults().maxUpdateKl()).isZero();
    assertThat(PolicyUpdater.Settings.defaults().withMaxUpdateKl(0.05).maxUpdateKl()).isEqualTo(0.05);
  }

  @Test
  void microBatchesAccumulateTheGradientOfOnePass() {
    Map<String, double[]> one = gradients(5);
    Map<String, double[]> split = gradients(2);
    Map<String, double[]> single = gradients(1);
    for (String name : one.keySet()) {
      assertClose(name, split.get(name), one.get(name));
      assertClose(name, single.get(name), one.get(name));
    }
  }

  @Test
  void rowsAreCutIntoMicroBatchesByLengthAndScoresComeBackInTheirOrder() {
    List<PolicyUpdater.Row> rows = rows();
    // lengths 6, 4, 8, 2, 4: shortest first, ties in the given order
    assertThat(PolicyUpdater.byLength(rows)).containsExactly(3, 1, 4, 0, 2);
    try (Qwen3Model model = Qwen3Model.random(CONFIG, 5, Device.cpu(), DataType.FLOAT64)) {
      model.weights().requireGradients(true);
      try (AdamW adamw = new AdamW(model.weights().parameters(), AdamWConfig.builder().build())) {
        List<float[]> batched = new PolicyUpdater(model, null, gigpo(0), adamw,
            new PolicyUpdater.Settings(64, 2, 1, true, false)).oldLogProbs(rows);
        List<float[]> alone = new PolicyUpdater(model, null, gigpo(0), adamw,
            new PolicyUpdater.Settings(64, 1, 1, true, false)).oldLogProbs(rows);
        assertThat(batched).hasSameSizeAs(rows);
        for (int i = 0; i < rows.size(); i++) {
          assertThat(batched.get(i)).hasSize(rows.get(i).response().length);
          for (int j = 0; j < batched.get(i).length; j++) {
            assertThat(batched.get(i)[j]).as("row %d token %d", i, j).isCloseTo(alone.get(i)[j], within(1e-6f));
          }
        }
      }
    }
  }

  private static void assertClose(String name, double[] actual, double[] expected) {
    double scale = 0;
    double diff = 0;
    for (int i = 0; i < expected.length; i++) {
      scale = Math.max(scale, Math.abs(expected[i]));
      diff = Math.max(diff, Math.abs(actual[i] - expected[i]));
    }
    assertThat(scale).as(name + " has a gradient").isGreaterThan(0);
    assertThat(diff / scale).as(name).isLessThan(1e-6);
  }

  @Test
  void aTokenLimitCutsMicroBatchesOfLongRowsShorterAndLeavesTheGradientAlone() {
    // rows sorted by length: 2, 4, 4, 6, 8 tokens (see rows()); padded slots = rows x (longest prompt + response)
    List<PolicyUpdater.Row> rows = new ArrayList<>();
    for (int i : PolicyUpdater.byLength(rows())) {
      rows.add(rows().get(i));
    }
    try (Qwen3Model model = Qwen3Model.random(CONFIG, 5, Device.cpu(), DataType.FLOAT64)) {
      model.weights().requireGradients(true);
      AdamW adamw = new AdamW(model.weights().parameters(), AdamWConfig.builder().build());
      java.util.function.IntFunction<List<String>> cuts = tokens -> new PolicyUpdater(model, null, gigpo(0), adamw,
          new PolicyUpdater.Settings(64, 4, 1, true, false, 0, 0, tokens)).cuts(rows).stream()
          .map(java.util.Arrays::toString).toList();
      assertThat(cuts.apply(0)).containsExactly("[0, 4]", "[4, 5]");
      // 8 slots: {2, 4} is 2 x 4 = 8; adding the second 4-token row makes 3 x 4 = 12
      assertThat(cuts.apply(8)).containsExactly("[0, 2]", "[2, 3]", "[3, 4]", "[4, 5]");
      // 12 slots: {2, 4, 4} = 12, then {6} (2 x 8 = 16 with the 8-token row), then {8}
      assertThat(cuts.apply(12)).containsExactly("[0, 3]", "[3, 4]", "[4, 5]");
      // a limit below every row: one row per micro-batch, none dropped
      assertThat(cuts.apply(1)).hasSize(5);
      adamw.close();
    }
    assertThatThrownBy(() -> new PolicyUpdater.Settings(64, 4, 1, true, false, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("microBatchTokens");
    Map<String, double[]> one = gradients(5, 0);
    Map<String, double[]> limited = gradients(5, 8);
    for (String name : one.keySet()) {
      assertClose(name, limited.get(name), one.get(name));
    }
  }

  /** The accumulated gradient of one minibatch (all rows) computed in micro-batches of {@code micro} rows. */
  private static Map<String, double[]> gradients(int micro) {
    return gradients(micro, 0);
  }

  /** {@link #gradients(int)} with a token-slot limit per micro-batch. */
  private static Map<String, double[]> gradients(int micro, int tokens) {
    try (Qwen3Model model = Qwen3Model.random(CONFIG, 11, Device.cpu(), DataType.FLOAT64)) {
      model.weights().requireGradients(true);
      try (AdamW adamw = new AdamW(model.weights().parameters(), AdamWConfig.builder().build())) {
        PolicyUpdater updater = new PolicyUpdater(model, null, gigpo(0.01), adamw,
            new PolicyUpdater.Settings(64, micro, 1, true, false, 0, 0, tokens));
        List<PolicyUpdater.Row> rows = rows();
        // an off-policy old distribution (perturbed) so the clipped branches take part too
        List<float[]> old = new ArrayList<>();
        for (float[] lp : updater.oldLogProbs(rows)) {
          float[] o = lp.clone();
          for (int i = 0; i < o.length; i++) {
            o[i] += (i % 2 == 0 ? 0.3f : -0.4f);
          }
          old.add(o);
        }
        updater.accumulate(new TeacherForcing(model), rows, old, null);
        Map<String, double[]> out = new LinkedHashMap<>();
        for (Map.Entry<String, NDArray> e : model.weights().parameters().entrySet()) {
          out.put(e.getKey(), e.getValue().getGradient().toDoubleArray());
        }
        adamw.zeroGradients();
        return out;
      }
    }
  }

  @Test
  void loraKlReferenceIsTheBaseModelWithTheAdapterOff() {
    try (Qwen3Model model = Qwen3Model.random(CONFIG, 5, Device.cpu(), DataType.FLOAT64);
        LoraAdapter adapter = LoraAdapter.create(model, LoraConfig.builder().setRank(2).optAllLinear().build(), 3);
        FineTuning ft = FineTuning.lora(model, adapter, FineTuning.KlReference.BASE_WEIGHTS)) {
      OptimizerConfig c = OptimizerConfig.builder().optKlCoefficient(0.1).optEntropyCoefficient(0).build();
      PolicyOptimizer gigpo = ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo").create(c);
      try (AdamW adamw = new AdamW(ft.trainableParameters(),
          AdamWConfig.builder().optLearningRate(5e-2).optWeightDecay(0).build())) {
        PolicyUpdater updater = new PolicyUpdater(model, ReferencePolicy.of(ft), gigpo, adamw,
            new PolicyUpdater.Settings(64, 4, 1, true, true));
        List<PolicyUpdater.Row> rows = rows();
        // a fresh adapter changes nothing: the policy is its own reference, so the KL term is zero
        PolicyUpdater.Report first = updater.update(rows);
        assertThat(first.diagnostics().get("actor/kl_loss")).isCloseTo(0.0, within(1e-9));
        // after a step the adapter has moved the policy away from the base weights: the KL term sees it
        PolicyUpdater.Report second = updater.update(rows);
        assertThat(second.diagnostics().get("actor/kl_loss")).isGreaterThan(1e-8);
        assertThat(adapter.isEnabled()).as("the adapter is switched back on after reference scoring").isTrue();
        // the reference scores equal the base model's: the adapter switched off by hand gives the same numbers
        List<float[]> viaReference = ReferencePolicy.of(ft).apply(m -> updater.oldLogProbs(rows));
        adapter.setEnabled(false);
        List<float[]> base = updater.oldLogProbs(rows);
        adapter.setEnabled(true);
        for (int i = 0; i < rows.size(); i++) {
          assertThat(viaReference.get(i)).containsExactly(base.get(i));
        }
        assertThat(updater.oldLogProbs(rows).get(0)).isNotEqualTo(base.get(0));
      }
    }
  }
}
