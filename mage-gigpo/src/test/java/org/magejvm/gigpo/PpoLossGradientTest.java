package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.magejvm.gigpo.LossArrays.backward;
import static org.magejvm.gigpo.LossArrays.matrix;
import static org.magejvm.gigpo.LossArrays.toMatrix;
import static org.magejvm.gigpo.LossArrays.vector;

import ai.djl.ndarray.NDManager;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossInput;
import org.magejvm.api.OptimizerConfig;

/**
 * Autograd's d loss / d logp against central finite differences in float64, on a random batch that visits every
 * branch (inside the clip, clipped low and high, dual clip, clamped and unclamped k3) with the entropy bonus and the
 * KL penalty on. Masked positions hold NaN and infinities and must get an exact zero gradient.
 */
class PpoLossGradientTest {

  private static final int B = 6;
  private static final int T = 7;
  private static final double H = 1e-6;

  private static final class Batch {
    final double[][] logp = new double[B][T];
    final double[][] old = new double[B][T];
    final double[][] ref = new double[B][T];
    final double[][] entropies = new double[B][T];
    final double[][] mask = new double[B][T];
    final double[] advantages = new double[B];
  }

  /** Log-ratios drawn from regions away from the kinks at ln 0.8, ln 1.2 and ln 3 (and k3's clamp points). */
  private static Batch batch(long seed) {
    Random r = new Random(seed);
    Batch x = new Batch();
    double[][] regions = {{-0.15, 0.15}, {-1.5, -0.4}, {0.3, 0.9}, {1.4, 3.0}, {-6, -3}};
    for (int b = 0; b < B; b++) {
      x.advantages[b] = (b % 2 == 0 ? 1 : -1) * (0.2 + 2 * r.nextDouble());
      int length = b == 1 ? 0 : 1 + r.nextInt(T);
      for (int t = 0; t < T; t++) {
        x.mask[b][t] = t < length ? 1 : 0;
        double[] region = regions[r.nextInt(regions.length)];
        double logRatio = region[0] + (region[1] - region[0]) * r.nextDouble();
        x.old[b][t] = -0.1 - 3 * r.nextDouble();
        x.logp[b][t] = x.old[b][t] + logRatio;
        double gap = r.nextInt(6) == 0 ? (r.nextBoolean() ? 4 : -14) : -1.5 + 3 * r.nextDouble();
        x.ref[b][t] = x.logp[b][t] + gap;
        x.entropies[b][t] = 3 * r.nextDouble();
        if (x.mask[b][t] == 0) {
          x.logp[b][t] = t % 3 == 0 ? Double.NaN : Double.NEGATIVE_INFINITY;
          x.old[b][t] = t % 2 == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
          x.ref[b][t] = Double.NaN;
          x.entropies[b][t] = Double.POSITIVE_INFINITY;
        }
      }
    }
    x.advantages[1] = Double.NaN; // the empty row's advantage is never read
    return x;
  }

  private static LossInput input(NDManager m, Batch x, double[][] logp, double normalizer) {
    return LossInput.builder()
        .setLogProbs(matrix(m, logp))
        .setOldLogProbs(matrix(m, x.old))
        .optRefLogProbs(matrix(m, x.ref))
        .optEntropies(matrix(m, x.entropies))
        .setAdvantages(vector(m, x.advantages))
        .setMask(matrix(m, x.mask))
        .setNormalizer(normalizer)
        .build();
  }

  @ParameterizedTest
  @EnumSource(LossAggregation.class)
  void gradientMatchesCentralDifferences(LossAggregation aggregation) {
    PpoLoss loss = new PpoLoss(OptimizerConfig.builder().optEntropyCoefficient(0.05).optKlCoefficient(0.3)
        .optLossAggregation(aggregation).build());
    Batch x = batch(7);
    try (NDManager m = NDManager.newBaseManager()) {
      double normalizer = aggregation.units(matrix(m, x.mask));
      LossInput in = input(m, x, x.logp, normalizer);
      var d = backward(loss, in);
      assertThat(d.clipFracLow()).isPositive();
      assertThat(d.clipFracHigh()).isPositive();
      assertThat(d.clipFracDual()).isPositive();
      double[][] grad = toMatrix(in.logProbs().getGradient());

      int checked = 0;
      for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
          if (x.mask[b][t] == 0) {
            assertThat(grad[b][t]).as("masked d loss / d logp[%d][%d]", b, t).isEqualTo(0.0);
            continue;
          }
          double[][] plus = copy(x.logp);
          double[][] minus = copy(x.logp);
          plus[b][t] += H;
          minus[b][t] -= H;
          double numeric;
          try (NDManager step = m.newSubManager()) {
            numeric = (LossArrays.value(loss, input(step, x, plus, normalizer))
                - LossArrays.value(loss, input(step, x, minus, normalizer))) / (2 * H);
          }
          assertThat(grad[b][t]).as("d loss / d logp[%d][%d]", b, t).isCloseTo(numeric, within(1e-8));
          checked++;
        }
      }
      assertThat(checked).isGreaterThan(B * T / 3);
    }
  }

  private static double[][] copy(double[][] v) {
    double[][] out = new double[v.length][];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i].clone();
    }
    return out;
  }
}
