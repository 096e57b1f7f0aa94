package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.magejvm.gigpo.LossArrays.backward;
import static org.magejvm.gigpo.LossArrays.matrix;
import static org.magejvm.gigpo.LossArrays.toMatrix;
import static org.magejvm.gigpo.LossArrays.vector;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.OptimizerConfig;

/** Overflow, invalid input, and what the loss leaves in (and borrows from) the caller's managers. */
class PpoLossRobustnessTest {

  private static final OptimizerConfig DEFAULTS = OptimizerConfig.defaults();

  /**
   * A log-ratio or reference gap far beyond the clip and clamp points: the loss is the clipped constant and the
   * gradient is exactly 0. Computed literally, exp overflows to inf and backward multiplies 0 by inf (NaN).
   */
  @ParameterizedTest
  @EnumSource(value = DataType.class, names = {"FLOAT32", "FLOAT64"})
  void hugeFiniteRatiosAndGapsGiveZeroGradientNotNaN(DataType type) {
    double huge = type == DataType.FLOAT32 ? 100 : 800; // exp overflows in this type
    double[][] old = {{-1, -1}, {-1, -1}};
    double[][] logp = {{-1 + huge, -1}, {-1 + huge, -1}};
    double[][] ref = {{-1 + huge, -1 + huge + huge}, {-1 + huge, -1 - huge}};
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = LossInput.builder()
          .setLogProbs(matrix(m, logp, type))
          .setOldLogProbs(matrix(m, old, type))
          .optRefLogProbs(matrix(m, ref, type))
          .optEntropies(matrix(m, new double[][] {{0, 0}, {0, 0}}, type))
          .setAdvantages(vector(m, 2, -0.5).toType(type, false))
          .setMask(matrix(m, new double[][] {{1, 1}, {1, 1}}, type))
          .setNormalizer(4)
          .build();
      LossDiagnostics d = backward(new PpoLoss(DEFAULTS), in);
      // row 0 (A = 2): -2 * 1.2 and -2 * 1; row 1 (A = -0.5): dual clip 0.5 * 3 and 0.5 * 1
      double pg = (-2.4 - 2 + 1.5 + 0.5) / 4;
      // k3: 0 for the huge ratios' tokens (ref = logp), clamped 10 for the gaps of +-huge
      assertThat(d.pgLoss()).isCloseTo(pg, within(1e-6));
      assertThat(d.klLoss()).isCloseTo(20.0 / 4, within(1e-6));
      assertThat(d.clipFracHigh()).isEqualTo(0.25);
      assertThat(d.clipFracDual()).isEqualTo(0.25);
      double[][] grad = toMatrix(in.logProbs().getGradient());
      assertThat(grad[0][0]).isEqualTo(0.0);
      assertThat(grad[1][0]).isEqualTo(0.0);
      // the other two tokens: ratio 1, -A * ratio, and a clamped k3 (gradient 0)
      assertThat(grad[0][1]).isCloseTo(-2.0 / 4, within(1e-6));
      assertThat(grad[1][1]).isCloseTo(0.5 / 4, within(1e-6));
    }
  }

  @Test
  void missingOptionalInputsAreRejectedWhenTheirCoefficientIsOn() {
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput bare = LossInput.builder()
          .setLogProbs(matrix(m, new double[][] {{-1, -2}}))
          .setOldLogProbs(matrix(m, new double[][] {{-1, -2}}))
          .setAdvantages(vector(m, 1))
          .setMask(matrix(m, new double[][] {{1, 1}}))
          .setNormalizer(2)
          .build();
      assertThatThrownBy(() -> new PpoLoss(OptimizerConfig.builder().optEntropyCoefficient(0).build()).compute(bare))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("refLogProbs is required when klCoefficient > 0 (klCoefficient is 0.1)");
      assertThatThrownBy(() -> new PpoLoss(OptimizerConfig.builder().optKlCoefficient(0).build()).compute(bare))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("entropies are required when entropyCoefficient > 0 (entropyCoefficient is 0.001)");
      PpoLoss pgOnly = new PpoLoss(OptimizerConfig.builder().optEntropyCoefficient(0).optKlCoefficient(0).build());
      try (LossResult r = pgOnly.compute(bare)) {
        assertThat(r.diagnostics().loss()).isCloseTo(-1, within(1e-12));
        assertThat(r.diagnostics().toMap()).doesNotContainKeys(LossDiagnostics.ENTROPY, LossDiagnostics.KL_LOSS);
      }
    }
  }

  @Test
  void maskValuesOtherThanZeroAndOneAreRejected() {
    PpoLoss pgOnly = new PpoLoss(OptimizerConfig.builder().optEntropyCoefficient(0).optKlCoefficient(0).build());
    try (NDManager m = NDManager.newBaseManager()) {
      for (double bad : new double[] {0.5, -1, Double.NaN, 2}) {
        LossInput in = LossInput.builder()
            .setLogProbs(matrix(m, new double[][] {{-1, -2, -3}}))
            .setOldLogProbs(matrix(m, new double[][] {{-1, -2, -3}}))
            .setAdvantages(vector(m, 1))
            .setMask(matrix(m, new double[][] {{1, bad, 0}}))
            .setNormalizer(3)
            .build();
        assertThatThrownBy(() -> pgOnly.compute(in)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("mask must hold only 0 and 1, found 1 other values");
      }
    }
  }

  @Test
  void aNormalizerBelowTheMicroBatchsOwnCountIsRejected() {
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = LossInput.builder()
          .setLogProbs(matrix(m, new double[][] {{-1, -2, -3}, {-1, -1, -1}}))
          .setOldLogProbs(matrix(m, new double[][] {{-1, -2, -3}, {-1, -1, -1}}))
          .setAdvantages(vector(m, 1, 2))
          .setMask(matrix(m, new double[][] {{1, 1, 0}, {1, 0, 0}}))
          .setNormalizer(2)
          .build();
      OptimizerConfig.Builder pgOnly = OptimizerConfig.builder().optEntropyCoefficient(0).optKlCoefficient(0);
      assertThatThrownBy(() -> new PpoLoss(pgOnly.build()).compute(in))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("normalizer 2.0 is smaller than this micro-batch's 3 response tokens; pass the count of the "
              + "whole minibatch");
      // 2 sequences: fine for seq-mean-token-mean
      PpoLoss seq = new PpoLoss(pgOnly.optLossAggregation(LossAggregation.SEQ_MEAN_TOKEN_MEAN).build());
      try (LossResult r = seq.compute(in)) {
        assertThat(r.diagnostics().sequences()).isEqualTo(2);
      }
    }
  }

  @Test
  void onlyTheLossIsLeftInTheCallersManagers() {
    try (NDManager m = NDManager.newBaseManager(); NDManager constants = m.newSubManager()) {
      LossInput in = LossInput.builder()
          .setLogProbs(matrix(m, PpoLossHandComputedTest.logProbs()))
          .setOldLogProbs(matrix(constants, PpoLossHandComputedTest.oldLogProbs()))
          .optRefLogProbs(matrix(constants, PpoLossHandComputedTest.refLogProbs()))
          .optEntropies(matrix(m, PpoLossHandComputedTest.ENTROPIES))
          .setAdvantages(vector(constants, PpoLossHandComputedTest.ADVANTAGES))
          .setMask(matrix(constants, PpoLossHandComputedTest.MASK))
          .setNormalizer(8)
          .build();
      Set<String> before = uids(m);
      Set<String> constantsBefore = uids(constants);
      LossResult r = new PpoLoss(DEFAULTS).compute(in);
      assertThat(r.loss().getManager()).isSameAs(m);
      assertThat(r.loss().getShape().dimension()).isZero();
      Set<String> after = uids(m);
      after.removeAll(before);
      assertThat(after).containsExactly(r.loss().getUid());
      assertThat(uids(constants)).isEqualTo(constantsBefore);
      r.close();
      assertThat(uids(m)).isEqualTo(before);
    }
  }

  /** The ids of the arrays a manager (and its sub-managers) holds; NDArray.equals compares contents. */
  private static Set<String> uids(NDManager m) {
    Set<String> out = new HashSet<>();
    for (NDArray a : m.getManagedArrays()) {
      out.add(a.getUid());
    }
    return out;
  }

  /**
   * The graph keeps no array borrowed from Java memory: the constant inputs can be closed (and their memory reused)
   * between compute and backward without changing the gradient.
   */
  @Test
  void constantInputsMayBeClosedBeforeBackward() {
    PpoLoss loss = new PpoLoss(OptimizerConfig.builder().optEntropyCoefficient(0.01).build());
    double[][] expected;
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = LossInput.builder()
          .setLogProbs(matrix(m, PpoLossHandComputedTest.logProbs()))
          .setOldLogProbs(matrix(m, PpoLossHandComputedTest.oldLogProbs()))
          .optRefLogProbs(matrix(m, PpoLossHandComputedTest.refLogProbs()))
          .optEntropies(matrix(m, PpoLossHandComputedTest.ENTROPIES))
          .setAdvantages(vector(m, PpoLossHandComputedTest.ADVANTAGES))
          .setMask(matrix(m, PpoLossHandComputedTest.MASK))
          .setNormalizer(8)
          .build();
      backward(loss, in);
      expected = toMatrix(in.logProbs().getGradient());
    }
    try (NDManager m = NDManager.newBaseManager()) {
      NDArray logp = matrix(m, PpoLossHandComputedTest.logProbs());
      NDArray entropies = matrix(m, PpoLossHandComputedTest.ENTROPIES);
      logp.setRequiresGradient(true);
      entropies.setRequiresGradient(true);
      try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
        LossResult r;
        try (NDManager constants = m.newSubManager()) {
          r = loss.compute(LossInput.builder()
              .setLogProbs(logp)
              .setOldLogProbs(matrix(constants, PpoLossHandComputedTest.oldLogProbs()))
              .optRefLogProbs(matrix(constants, PpoLossHandComputedTest.refLogProbs()))
              .optEntropies(entropies)
              .setAdvantages(vector(constants, PpoLossHandComputedTest.ADVANTAGES))
              .setMask(matrix(constants, PpoLossHandComputedTest.MASK))
              .setNormalizer(8)
              .build());
        }
        scribbleOverFreedMemory();
        try (r) {
          collector.backward(r.loss());
        }
      }
      double[][] actual = toMatrix(logp.getGradient());
      for (int b = 0; b < expected.length; b++) {
        assertThat(actual[b]).containsExactly(expected[b]);
      }
    }
  }

  /** Lets the collector free the closed arrays' direct buffers, then fills fresh ones with NaN bit patterns. */
  private static void scribbleOverFreedMemory() {
    List<ByteBuffer> keep = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      System.gc();
      for (int i = 0; i < 200; i++) {
        ByteBuffer b = ByteBuffer.allocateDirect(128 + 8 * (i % 16));
        while (b.remaining() >= 8) {
          b.putLong(0x7ff8dead7ff8deadL);
        }
        keep.add(b);
      }
    }
    assertThat(keep).isNotEmpty();
  }
}
