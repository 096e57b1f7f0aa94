package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The exactly rounded sum behind every group mean and variance. */
class ExactSumTest {

  private static double sum(double... values) {
    ExactSum s = new ExactSum();
    for (double v : values) {
      s.add(v);
    }
    return s.value();
  }

  /** The exact sum rounded once: BigDecimal holds every double exactly, doubleValue rounds to nearest. */
  private static double oracle(List<Double> values) {
    BigDecimal total = BigDecimal.ZERO;
    for (double v : values) {
      total = total.add(new BigDecimal(v));
    }
    return total.doubleValue();
  }

  @Test
  void cancellationThatANaiveSumLoses() {
    assertThat(1e16 + 1.0 - 1e16).isEqualTo(0.0);
    assertThat(sum(1e16, 1.0, -1e16)).isEqualTo(1.0);
    assertThat(sum(1e100, 1.0, -1e100, 1e-100)).isEqualTo(1.0);
    assertThat(sum()).isEqualTo(0.0);
    assertThat(sum(-2.5)).isEqualTo(-2.5);
  }

  @Test
  void halfwayCasesRoundToEvenOnTheExactValue() {
    // exact value 1e16 + 1 + 1e-16 lies just above the halfway point between 1e16 and 1e16 + 2
    assertThat(sum(1e16, 1.0, 1e-16)).isEqualTo(10000000000000002.0);
    // exact value 1e16 + 1 is exactly halfway: ties to the even neighbour 1e16
    assertThat(sum(1e16, 1.0)).isEqualTo(1e16);
    double tiny = 1.0 - Math.pow(2, -53);
    assertThat(sum(1e16 - 2.0, tiny, -(1e16 - 2.0), -tiny)).isEqualTo(0.0);
  }

  @Test
  void telescopingSeries() {
    // sum of 1.7^(i+1) - 1.7^i for i < 1000, minus 1.7^1000, is exactly -1 up to the rounding of each term; the
    // oracle gives the exactly rounded reference
    List<Double> terms = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      terms.add(Math.pow(1.7, i + 1) - Math.pow(1.7, i));
    }
    terms.add(-Math.pow(1.7, 1000));
    ExactSum s = new ExactSum();
    terms.forEach(s::add);
    assertThat(s.value()).isEqualTo(oracle(terms));
  }

  @Test
  void matchesBigDecimalInAnyOrder() {
    Random r = new Random(3);
    ExactSum s = new ExactSum();
    for (int round = 0; round < 200; round++) {
      List<Double> values = new ArrayList<>();
      int n = 1 + r.nextInt(60);
      for (int i = 0; i < n; i++) {
        values.add(r.nextGaussian() * Math.pow(10, r.nextInt(30) - 15));
      }
      double expected = oracle(values);
      for (int shuffle = 0; shuffle < 3; shuffle++) {
        Collections.shuffle(values, r);
        s.reset();
        values.forEach(s::add);
        assertThat(s.value()).isEqualTo(expected);
      }
    }
  }
}
