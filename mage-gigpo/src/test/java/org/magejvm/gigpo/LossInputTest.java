package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.magejvm.gigpo.LossArrays.matrix;
import static org.magejvm.gigpo.LossArrays.vector;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Test;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossInput;

/** {@link LossInput}'s checks (mage-api has no engine to create arrays, so they are tested here). */
class LossInputTest {

  private static LossInput.Builder valid(NDManager m) {
    return LossInput.builder()
        .setLogProbs(m.zeros(new Shape(2, 3), DataType.FLOAT64))
        .setOldLogProbs(m.zeros(new Shape(2, 3), DataType.FLOAT64))
        .setAdvantages(m.zeros(new Shape(2), DataType.FLOAT64))
        .setMask(m.ones(new Shape(2, 3), DataType.FLOAT64))
        .setNormalizer(6);
  }

  @Test
  void aValidInputKeepsItsArrays() {
    try (NDManager m = NDManager.newBaseManager()) {
      NDArray ref = m.zeros(new Shape(2, 3), DataType.FLOAT64);
      NDArray entropies = m.zeros(new Shape(2, 3), DataType.FLOAT64);
      LossInput in = valid(m).optRefLogProbs(ref).optEntropies(entropies).build();
      assertThat(in.refLogProbs()).isSameAs(ref);
      assertThat(in.entropies()).isSameAs(entropies);
      assertThat(in.batchSize()).isEqualTo(2);
      assertThat(in.responseLength()).isEqualTo(3);
      assertThat(in.normalizer()).isEqualTo(6);
      LossInput bare = valid(m).build();
      assertThat(bare.refLogProbs()).isNull();
      assertThat(bare.entropies()).isNull();
      // per-token advantages
      assertThat(valid(m).setAdvantages(m.zeros(new Shape(2, 3), DataType.FLOAT64)).build().advantages().getShape())
          .isEqualTo(new Shape(2, 3));
    }
  }

  @Test
  void requiredArraysMustBePresent() {
    try (NDManager m = NDManager.newBaseManager()) {
      assertThatThrownBy(() -> valid(m).setLogProbs(null).build())
          .isInstanceOf(NullPointerException.class).hasMessage("logProbs");
      assertThatThrownBy(() -> valid(m).setOldLogProbs(null).build())
          .isInstanceOf(NullPointerException.class).hasMessage("oldLogProbs");
      assertThatThrownBy(() -> valid(m).setAdvantages(null).build())
          .isInstanceOf(NullPointerException.class).hasMessage("advantages");
      assertThatThrownBy(() -> valid(m).setMask(null).build())
          .isInstanceOf(NullPointerException.class).hasMessage("mask");
    }
  }

  @Test
  void shapesMustAgree() {
    try (NDManager m = NDManager.newBaseManager()) {
      assertThatThrownBy(() -> valid(m).setLogProbs(m.zeros(new Shape(6), DataType.FLOAT64)).build())
          .isInstanceOf(IllegalArgumentException.class).hasMessage("logProbs must have shape (B, T), got (6)");
      assertThatThrownBy(() -> valid(m).setOldLogProbs(m.zeros(new Shape(3, 2), DataType.FLOAT64)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("oldLogProbs must have the shape of logProbs (2, 3), got (3, 2)");
      assertThatThrownBy(() -> valid(m).setMask(m.ones(new Shape(2, 4), DataType.FLOAT64)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("mask must have the shape of logProbs (2, 3), got (2, 4)");
      assertThatThrownBy(() -> valid(m).optRefLogProbs(m.zeros(new Shape(1, 3), DataType.FLOAT64)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("refLogProbs must have the shape of logProbs (2, 3), got (1, 3)");
      assertThatThrownBy(() -> valid(m).optEntropies(m.zeros(new Shape(2, 3, 1), DataType.FLOAT64)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("entropies must have the shape of logProbs (2, 3), got (2, 3, 1)");
      assertThatThrownBy(() -> valid(m).setAdvantages(m.zeros(new Shape(3), DataType.FLOAT64)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("advantages must have shape (2) or (2, 3), got (3)");
    }
  }

  @Test
  void dataTypesMustAgreeAndBeFloatingPoint() {
    try (NDManager m = NDManager.newBaseManager()) {
      assertThatThrownBy(() -> valid(m).setMask(m.ones(new Shape(2, 3), DataType.FLOAT32)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("mask must have the data type of logProbs (float64), got float32");
      assertThatThrownBy(() -> valid(m).setAdvantages(m.zeros(new Shape(2), DataType.FLOAT32)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("advantages must have the data type of logProbs (float64), got float32");
      assertThatThrownBy(() -> valid(m).setLogProbs(m.zeros(new Shape(2, 3), DataType.INT32)).build())
          .isInstanceOf(IllegalArgumentException.class).hasMessage("logProbs must be floating point, got int32");
    }
  }

  @Test
  void normalizerMustBeFiniteAndPositive() {
    try (NDManager m = NDManager.newBaseManager()) {
      for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
        assertThatThrownBy(() -> valid(m).setNormalizer(bad).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("normalizer must be finite and > 0, got " + bad);
      }
      assertThatThrownBy(() -> LossInput.builder().setLogProbs(m.zeros(new Shape(2, 3), DataType.FLOAT64))
          .setOldLogProbs(m.zeros(new Shape(2, 3), DataType.FLOAT64)).setAdvantages(m.zeros(new Shape(2),
              DataType.FLOAT64)).setMask(m.ones(new Shape(2, 3), DataType.FLOAT64)).build())
          .as("a normalizer that was never set").hasMessage("normalizer must be finite and > 0, got NaN");
    }
  }

  @Test
  void unitsCountTokensOrNonEmptySequences() {
    try (NDManager m = NDManager.newBaseManager()) {
      NDArray mask = matrix(m, new double[][] {{1, 1, 0}, {0, 0, 0}, {1, 0, 1}, {1, 1, 1}});
      assertThat(LossAggregation.TOKEN_MEAN.units(mask)).isEqualTo(7);
      assertThat(LossAggregation.SEQ_MEAN_TOKEN_MEAN.units(mask)).isEqualTo(3);
      try (NDArray f32 = mask.toType(DataType.FLOAT32, false)) {
        assertThat(LossAggregation.TOKEN_MEAN.units(f32)).isEqualTo(7);
      }
      assertThatThrownBy(() -> LossAggregation.TOKEN_MEAN.units(vector(m, 1, 1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessage("mask must have shape (B, T), got (2)");
      // counting leaves nothing behind in the mask's manager
      assertThat(m.getManagedArrays()).hasSize(2);
    }
  }
}
