package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.magejvm.gigpo.LossArrays.backward;
import static org.magejvm.gigpo.LossArrays.matrix;
import static org.magejvm.gigpo.LossArrays.toMatrix;
import static org.magejvm.gigpo.LossArrays.vector;

import ai.djl.ndarray.NDManager;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.OptimizerConfig;

/**
 * Gradient accumulation: a minibatch split into two micro-batches of unequal token counts, each computed with the
 * minibatch's normalizer, gives the loss, the gradient and the diagnostics of one call on the whole minibatch.
 */
class PpoLossMicroBatchTest {

  private static final int B = 8;
  private static final int T = 6;
  private static final int SPLIT = 3;

  private final double[][] logp = new double[B][T];
  private final double[][] old = new double[B][T];
  private final double[][] ref = new double[B][T];
  private final double[][] entropies = new double[B][T];
  private final double[][] mask = new double[B][T];
  private final double[] advantages = new double[B];

  PpoLossMicroBatchTest() {
    Random r = new Random(42);
    for (int b = 0; b < B; b++) {
      advantages[b] = r.nextGaussian() * 1.5;
      int length = b == 5 ? 0 : 1 + r.nextInt(T); // one empty row, in the second micro-batch
      for (int t = 0; t < T; t++) {
        mask[b][t] = t < length ? 1 : 0;
        old[b][t] = -0.1 - 3 * r.nextDouble();
        logp[b][t] = old[b][t] + 2 * r.nextGaussian();
        ref[b][t] = logp[b][t] + 3 * r.nextGaussian();
        entropies[b][t] = 3 * r.nextDouble();
        if (mask[b][t] == 0) {
          logp[b][t] = Double.NEGATIVE_INFINITY;
        }
      }
    }
  }

  private LossInput input(NDManager m, int from, int to, double normalizer) {
    return LossInput.builder()
        .setLogProbs(matrix(m, Arrays.copyOfRange(logp, from, to)))
        .setOldLogProbs(matrix(m, Arrays.copyOfRange(old, from, to)))
        .optRefLogProbs(matrix(m, Arrays.copyOfRange(ref, from, to)))
        .optEntropies(matrix(m, Arrays.copyOfRange(entropies, from, to)))
        .setAdvantages(vector(m, Arrays.copyOfRange(advantages, from, to)))
        .setMask(matrix(m, Arrays.copyOfRange(mask, from, to)))
        .setNormalizer(normalizer)
        .build();
  }

  @ParameterizedTest
  @EnumSource(LossAggregation.class)
  void microBatchesAddUpToTheMinibatch(LossAggregation aggregation) {
    PpoLoss loss = new PpoLoss(OptimizerConfig.builder().optEntropyCoefficient(0.01).optKlCoefficient(0.1)
        .optLossAggregation(aggregation).build());
    try (NDManager m = NDManager.newBaseManager()) {
      long first = aggregation.units(matrix(m, Arrays.copyOfRange(mask, 0, SPLIT)));
      long second = aggregation.units(matrix(m, Arrays.copyOfRange(mask, SPLIT, B)));
      long whole = aggregation.units(matrix(m, mask));
      assertThat(first + second).isEqualTo(whole);
      assertThat(first).isNotEqualTo(second);

      LossInput all = input(m, 0, B, whole);
      LossInput a = input(m, 0, SPLIT, whole);
      LossInput b = input(m, SPLIT, B, whole);
      LossDiagnostics dAll = backward(loss, all);
      LossDiagnostics dA = backward(loss, a);
      LossDiagnostics dB = backward(loss, b);
      LossDiagnostics sum = LossDiagnostics.zero().plus(dA).plus(dB);

      assertThat(sum.loss()).isCloseTo(dAll.loss(), within(1e-12));
      assertThat(sum.pgLoss()).isCloseTo(dAll.pgLoss(), within(1e-12));
      assertThat(sum.clipFracLow()).isCloseTo(dAll.clipFracLow(), within(1e-12));
      assertThat(sum.clipFracHigh()).isCloseTo(dAll.clipFracHigh(), within(1e-12));
      assertThat(sum.clipFracDual()).isCloseTo(dAll.clipFracDual(), within(1e-12));
      assertThat(sum.ppoKl()).isCloseTo(dAll.ppoKl(), within(1e-12));
      assertThat(sum.entropy()).isCloseTo(dAll.entropy(), within(1e-12));
      assertThat(sum.klLoss()).isCloseTo(dAll.klLoss(), within(1e-12));
      assertThat(sum.tokens()).isEqualTo(dAll.tokens());
      assertThat(sum.sequences()).isEqualTo(dAll.sequences()).isEqualTo(B - 1);

      double[][] gAll = toMatrix(all.logProbs().getGradient());
      double[][] gA = toMatrix(a.logProbs().getGradient());
      double[][] gB = toMatrix(b.logProbs().getGradient());
      double[][] eAll = toMatrix(all.entropies().getGradient());
      double[][] eA = toMatrix(a.entropies().getGradient());
      double[][] eB = toMatrix(b.entropies().getGradient());
      for (int row = 0; row < B; row++) {
        double[] g = row < SPLIT ? gA[row] : gB[row - SPLIT];
        double[] e = row < SPLIT ? eA[row] : eB[row - SPLIT];
        for (int t = 0; t < T; t++) {
          assertThat(g[t]).as("d loss / d logp[%d][%d]", row, t).isCloseTo(gAll[row][t], within(1e-12));
          assertThat(e[t]).as("d loss / d entropy[%d][%d]", row, t).isCloseTo(eAll[row][t], within(1e-12));
        }
      }
    }
  }
}
