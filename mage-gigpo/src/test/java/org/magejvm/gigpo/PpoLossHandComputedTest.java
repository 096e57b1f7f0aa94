package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.magejvm.gigpo.LossArrays.backward;
import static org.magejvm.gigpo.LossArrays.matrix;
import static org.magejvm.gigpo.LossArrays.toMatrix;
import static org.magejvm.gigpo.LossArrays.vector;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.OptimizerConfig;

/**
 * Every branch of the clipped objective, the entropy bonus and the k3 KL on a 4 x 4 batch whose numbers are worked
 * out by hand below. Masked positions hold -inf, +inf and NaN in every input, and row 3 is entirely masked.
 *
 * <pre>
 * clip 0.2 / 0.2, dual clip c = 3; logp_old = -1 and logp = -1 + ln(ratio) on response tokens
 * row  A     ratios (mask)              per-token loss L                                  branch
 * 0    +1    1.1   1.5   0.5   (pad)    -1.1   -max(1.5,1.2)=-1.2   -max(.5,.8)→-0.5       inside, clipped high, unclipped
 * 1    -2    0.5   1.1   4.0   2.0      max(1,1.6)=1.6   2.2   min(8,6)=6   min(4,6)=4      clipped low, inside, dual, unclipped
 * 2    +0.5  1.0   (pad) (pad) (pad)    -0.5                                               inside
 * 3    NaN   (pad) (pad) (pad) (pad)    -                                                  empty row
 * token-mean: sum L = 10.5 over 8 tokens
 * </pre>
 */
class PpoLossHandComputedTest {

  private static final double NEG_INF = Double.NEGATIVE_INFINITY;
  private static final double INF = Double.POSITIVE_INFINITY;
  private static final double NAN = Double.NaN;
  private static final double EPS = 1e-12;

  static final double[][] RATIOS = {{1.1, 1.5, 0.5, 1}, {0.5, 1.1, 4.0, 2.0}, {1.0, 1, 1, 1}, {1, 1, 1, 1}};
  static final double[][] MASK = {{1, 1, 1, 0}, {1, 1, 1, 1}, {1, 0, 0, 0}, {0, 0, 0, 0}};
  static final double[] ADVANTAGES = {1, -2, 0.5, NAN};
  /** ref - logp on response tokens. */
  static final double[][] REF_GAPS = {{0.5, 5, -15, 0}, {-0.3, 0, 1, 0}, {2, 0, 0, 0}, {0, 0, 0, 0}};
  static final double[][] ENTROPIES = {{0.5, 1.0, 1.5, NAN}, {2, 2, 2, 2}, {0.25, INF, NAN, NEG_INF},
      {NAN, NAN, INF, NAN}};

  /** Garbage for masked positions of the log-probabilities, old and reference log-probabilities. */
  private static final double[][] LOGP_GARBAGE = {{0, 0, 0, NEG_INF}, {0, 0, 0, 0}, {0, NAN, NAN, INF},
      {NEG_INF, NAN, INF, NEG_INF}};
  private static final double[][] OLD_GARBAGE = {{0, 0, 0, NEG_INF}, {0, 0, 0, 0}, {0, 0, NEG_INF, NAN},
      {NAN, INF, NEG_INF, 0}};
  private static final double[][] REF_GARBAGE = {{0, 0, 0, INF}, {0, 0, 0, 0}, {0, NAN, INF, NEG_INF},
      {INF, NEG_INF, NAN, NAN}};

  static double[][] logProbs() {
    double[][] v = new double[4][4];
    for (int b = 0; b < 4; b++) {
      for (int t = 0; t < 4; t++) {
        v[b][t] = MASK[b][t] == 1 ? -1 + Math.log(RATIOS[b][t]) : LOGP_GARBAGE[b][t];
      }
    }
    return v;
  }

  static double[][] oldLogProbs() {
    double[][] v = new double[4][4];
    for (int b = 0; b < 4; b++) {
      for (int t = 0; t < 4; t++) {
        v[b][t] = MASK[b][t] == 1 ? -1 : OLD_GARBAGE[b][t];
      }
    }
    return v;
  }

  static double[][] refLogProbs() {
    double[][] logp = logProbs();
    double[][] v = new double[4][4];
    for (int b = 0; b < 4; b++) {
      for (int t = 0; t < 4; t++) {
        v[b][t] = MASK[b][t] == 1 ? logp[b][t] + REF_GAPS[b][t] : REF_GARBAGE[b][t];
      }
    }
    return v;
  }

  /** Hand-computed per-token clipped losses (0 at padding). */
  private static final double[][] PER_TOKEN = {{-1.1, -1.2, -0.5, 0}, {1.6, 2.2, 6, 4}, {-0.5, 0, 0, 0},
      {0, 0, 0, 0}};
  /** Hand-computed d L / d logp per token: -A * ratio where the unclipped branch is active, else 0. */
  private static final double[][] PER_TOKEN_GRAD = {{-1.1, 0, -0.5, 0}, {0, 2.2, 0, 4}, {-0.5, 0, 0, 0},
      {0, 0, 0, 0}};

  private static PpoLoss loss(double entropy, double kl, LossAggregation aggregation) {
    return new PpoLoss(OptimizerConfig.builder().optEntropyCoefficient(entropy).optKlCoefficient(kl)
        .optLossAggregation(aggregation).build());
  }

  private static LossInput input(NDManager m, boolean withRef, boolean withEntropies, double normalizer) {
    LossInput.Builder b = LossInput.builder()
        .setLogProbs(matrix(m, logProbs()))
        .setOldLogProbs(matrix(m, oldLogProbs()))
        .setAdvantages(vector(m, ADVANTAGES))
        .setMask(matrix(m, MASK))
        .setNormalizer(normalizer);
    if (withRef) {
      b.optRefLogProbs(matrix(m, refLogProbs()));
    }
    if (withEntropies) {
      b.optEntropies(matrix(m, ENTROPIES));
    }
    return b.build();
  }

  private static double k3(double gap) {
    return Math.max(-10, Math.min(10, Math.exp(gap) - gap - 1));
  }

  @Test
  void tokenMeanPolicyGradientTermEveryBranch() {
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = input(m, false, false, 8);
      LossDiagnostics d = backward(loss(0, 0, LossAggregation.TOKEN_MEAN), in);

      assertThat(d.loss()).isCloseTo(10.5 / 8, within(EPS));
      assertThat(d.pgLoss()).isCloseTo(10.5 / 8, within(EPS));
      assertThat(d.clipFracHigh()).isCloseTo(1.0 / 8, within(EPS)); // row 0, ratio 1.5, A > 0
      assertThat(d.clipFracLow()).isCloseTo(1.0 / 8, within(EPS)); // row 1, ratio 0.5, A < 0
      assertThat(d.clipFracDual()).isCloseTo(1.0 / 8, within(EPS)); // row 1, ratio 4, A < 0
      double logRatioSum = Math.log(1.1 * 1.5 * 0.5 * 0.5 * 1.1 * 4 * 2 * 1);
      assertThat(d.ppoKl()).isCloseTo(-logRatioSum / 8, within(EPS));
      assertThat(d.entropy()).isNaN();
      assertThat(d.klLoss()).isNaN();
      assertThat(d.tokens()).isEqualTo(8);
      assertThat(d.sequences()).isEqualTo(3);

      double[][] grad = toMatrix(in.logProbs().getGradient());
      for (int b = 0; b < 4; b++) {
        for (int t = 0; t < 4; t++) {
          assertThat(grad[b][t]).as("d loss / d logp[%d][%d]", b, t).isCloseTo(PER_TOKEN_GRAD[b][t] / 8, within(EPS));
        }
      }
    }
  }

  @Test
  void seqMeanTokenMeanWeighsEverySequenceTheSame() {
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = input(m, false, false, 3); // 3 non-empty rows; the empty row contributes nothing
      LossDiagnostics d = backward(loss(0, 0, LossAggregation.SEQ_MEAN_TOKEN_MEAN), in);

      double expected = ((-1.1 - 1.2 - 0.5) / 3 + (1.6 + 2.2 + 6 + 4) / 4 + (-0.5) / 1) / 3;
      assertThat(d.loss()).isCloseTo(expected, within(EPS));
      assertThat(d.pgLoss()).isCloseTo(expected, within(EPS));
      assertThat(d.clipFracHigh()).isCloseTo((1.0 / 3) / 3, within(EPS));
      assertThat(d.clipFracLow()).isCloseTo((1.0 / 4) / 3, within(EPS));
      assertThat(d.clipFracDual()).isCloseTo((1.0 / 4) / 3, within(EPS));
      double ppoKl = (-Math.log(1.1 * 1.5 * 0.5) / 3 - Math.log(0.5 * 1.1 * 4 * 2) / 4 - Math.log(1.0)) / 3;
      assertThat(d.ppoKl()).isCloseTo(ppoKl, within(EPS));
      assertThat(d.tokens()).isEqualTo(8);
      assertThat(d.sequences()).isEqualTo(3);

      double[] rowTokens = {3, 4, 1, 1};
      double[][] grad = toMatrix(in.logProbs().getGradient());
      for (int b = 0; b < 4; b++) {
        for (int t = 0; t < 4; t++) {
          assertThat(grad[b][t]).as("d loss / d logp[%d][%d]", b, t)
              .isCloseTo(PER_TOKEN_GRAD[b][t] / (rowTokens[b] * 3), within(EPS));
        }
      }
    }
  }

  @Test
  void entropyBonusAndClampedK3Penalty() {
    double entropyCoefficient = 0.01;
    double klCoefficient = 0.1;
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = input(m, true, true, 8);
      LossDiagnostics d = backward(loss(entropyCoefficient, klCoefficient, LossAggregation.TOKEN_MEAN), in);

      double entropy = (0.5 + 1.0 + 1.5 + 4 * 2 + 0.25) / 8;
      // gaps 5 and -15 give e^5 - 6 = 142.4 and e^-15 + 14 = 14.0: both clamped to 10
      double klSum = k3(0.5) + 10 + 10 + k3(-0.3) + k3(0) + k3(1) + k3(0) + k3(2);
      assertThat(k3(5)).isEqualTo(10);
      assertThat(k3(-15)).isEqualTo(10);
      assertThat(klSum).isCloseTo(
          (Math.exp(0.5) - 1.5) + 20 + (Math.exp(-0.3) - 0.7) + (Math.E - 2) + (Math.exp(2) - 3), within(EPS));
      double kl = klSum / 8;
      assertThat(d.pgLoss()).isCloseTo(10.5 / 8, within(EPS));
      assertThat(d.entropy()).isCloseTo(entropy, within(EPS));
      assertThat(d.klLoss()).isCloseTo(kl, within(EPS));
      assertThat(d.loss()).isCloseTo(10.5 / 8 - entropyCoefficient * entropy + klCoefficient * kl, within(EPS));
      assertThat(d.toMap()).containsKeys(LossDiagnostics.ENTROPY, LossDiagnostics.KL_LOSS);

      // d k3 / d logp = 1 - e^gap inside the clamp, 0 where it is clamped
      double[][] grad = toMatrix(in.logProbs().getGradient());
      double[][] entropyGrad = toMatrix(in.entropies().getGradient());
      for (int b = 0; b < 4; b++) {
        for (int t = 0; t < 4; t++) {
          double gap = REF_GAPS[b][t];
          double klGrad = MASK[b][t] == 1 && Math.abs(gap) < 3 ? (1 - Math.exp(gap)) : 0;
          assertThat(grad[b][t]).as("d loss / d logp[%d][%d]", b, t)
              .isCloseTo((PER_TOKEN_GRAD[b][t] + klCoefficient * klGrad) / 8, within(EPS));
          assertThat(entropyGrad[b][t]).as("d loss / d entropy[%d][%d]", b, t)
              .isCloseTo(-entropyCoefficient * MASK[b][t] / 8, within(EPS));
        }
      }
    }
  }

  @Test
  void measuredButUnweightedEntropyAndKlDoNotChangeTheLoss() {
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = input(m, true, true, 8);
      LossDiagnostics d = backward(loss(0, 0, LossAggregation.TOKEN_MEAN), in);
      assertThat(d.loss()).isCloseTo(10.5 / 8, within(EPS));
      assertThat(d.entropy()).isCloseTo(11.25 / 8, within(EPS));
      assertThat(d.klLoss()).isGreaterThan(0);
      double[][] grad = toMatrix(in.logProbs().getGradient());
      for (int b = 0; b < 4; b++) {
        for (int t = 0; t < 4; t++) {
          assertThat(grad[b][t]).isCloseTo(PER_TOKEN_GRAD[b][t] / 8, within(EPS));
        }
      }
      // no gradient flows into entropies whose coefficient is 0
      for (double[] row : toMatrix(in.entropies().getGradient())) {
        assertThat(row).containsOnly(0.0);
      }
    }
  }

  @Test
  void perTokenAdvantagesEqualBroadcastRowAdvantages() {
    double[][] perToken = new double[4][4];
    for (int b = 0; b < 4; b++) {
      Arrays.fill(perToken[b], ADVANTAGES[b]);
    }
    try (NDManager m = NDManager.newBaseManager()) {
      PpoLoss loss = loss(0.01, 0.1, LossAggregation.TOKEN_MEAN);
      LossInput rows = input(m, true, true, 8);
      LossInput tokens = LossInput.builder().setLogProbs(rows.logProbs()).setOldLogProbs(rows.oldLogProbs())
          .optRefLogProbs(rows.refLogProbs()).optEntropies(rows.entropies()).setMask(rows.mask())
          .setAdvantages(matrix(m, perToken)).setNormalizer(8).build();
      try (LossResult a = loss.compute(rows); LossResult b = loss.compute(tokens)) {
        assertThat(b.diagnostics()).isEqualTo(a.diagnostics());
      }
    }
  }

  @Test
  void perTokenLossesMatchTheTableInTheClassComment() {
    // one token at a time: a 1-token batch has loss = its per-token L
    PpoLoss loss = loss(0, 0, LossAggregation.TOKEN_MEAN);
    try (NDManager m = NDManager.newBaseManager()) {
      for (int b = 0; b < 3; b++) {
        for (int t = 0; t < 4; t++) {
          if (MASK[b][t] == 0) {
            continue;
          }
          LossInput one = LossInput.builder()
              .setLogProbs(matrix(m, new double[][] {{-1 + Math.log(RATIOS[b][t])}}))
              .setOldLogProbs(matrix(m, new double[][] {{-1}}))
              .setAdvantages(vector(m, ADVANTAGES[b]))
              .setMask(matrix(m, new double[][] {{1}}))
              .setNormalizer(1)
              .build();
          assertThat(LossArrays.value(loss, one)).as("L[%d][%d]", b, t).isCloseTo(PER_TOKEN[b][t], within(EPS));
        }
      }
    }
  }

  @Test
  void float32InputsGiveTheSameNumbers() {
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput in = LossInput.builder()
          .setLogProbs(matrix(m, logProbs(), DataType.FLOAT32))
          .setOldLogProbs(matrix(m, oldLogProbs(), DataType.FLOAT32))
          .optRefLogProbs(matrix(m, refLogProbs(), DataType.FLOAT32))
          .optEntropies(matrix(m, ENTROPIES, DataType.FLOAT32))
          .setAdvantages(vector(m, ADVANTAGES).toType(DataType.FLOAT32, false))
          .setMask(matrix(m, MASK, DataType.FLOAT32))
          .setNormalizer(8)
          .build();
      LossDiagnostics d = backward(loss(0.01, 0.1, LossAggregation.TOKEN_MEAN), in);
      try (NDManager m64 = NDManager.newBaseManager()) {
        LossInput wide = input(m64, true, true, 8);
        LossDiagnostics expected = backward(loss(0.01, 0.1, LossAggregation.TOKEN_MEAN), wide);
        assertThat(d.loss()).isCloseTo(expected.loss(), within(1e-5));
        assertThat(d.klLoss()).isCloseTo(expected.klLoss(), within(1e-5));
        assertThat(in.logProbs().getGradient().getDataType()).isEqualTo(DataType.FLOAT32);
        double[][] g32 = toMatrix(in.logProbs().getGradient());
        double[][] g64 = toMatrix(wide.logProbs().getGradient());
        for (int b = 0; b < 4; b++) {
          for (int t = 0; t < 4; t++) {
            assertThat(g32[b][t]).isCloseTo(g64[b][t], within(1e-6));
          }
        }
      }
    }
  }
}
