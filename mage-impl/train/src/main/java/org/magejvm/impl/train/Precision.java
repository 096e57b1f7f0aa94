package org.magejvm.impl.train;

import ai.djl.ndarray.types.DataType;
import org.magejvm.api.annotation.Api;

/**
 * The number type a run trains its model in ({@code hardware.precision}). The optimizer state is FLOAT32 either
 * way: in a reduced precision the model's weights, its forward and backward passes and its gradients are in the
 * reduced type, while AdamW keeps a FLOAT32 master copy of every trained weight and its moments in FLOAT32, and the
 * loss is scaled dynamically ({@link org.magejvm.impl.train.update.LossScaling}) so that small gradients survive.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum Precision {
  /** Everything in FLOAT32 (the default, and what every preset uses). */
  FLOAT32(DataType.FLOAT32),
  /**
   * FLOAT16 weights and passes (norms, softmax, log-probabilities and the loss stay FLOAT32), FLOAT32 master weights
   * and optimizer state, dynamic loss scaling.
   */
  FLOAT16(DataType.FLOAT16),
  /**
   * The reference's type; refused: any bfloat16 array aborts the JVM on DJL's PyTorch engine (0.35.1, and 0.36.0
   * too), so it cannot run here. Use {@link #FLOAT16}.
   */
  BFLOAT16(DataType.BFLOAT16);

  /** Why {@link #BFLOAT16} is refused, in one line. */
  static final String BFLOAT16_REFUSED = "hardware.precision bfloat16 cannot run here: any bfloat16 array aborts the"
      + " JVM on DJL's PyTorch engine (DJL 0.35.1, and 0.36.0 too: its JNI knows no bfloat16 type and calls"
      + " std::terminate); use float16, which trains with float32 master weights and dynamic loss scaling";

  private final DataType dataType;

  Precision(DataType dataType) {
    this.dataType = dataType;
  }

  /**
   * The precision of a model loaded in a type.
   *
   * @param type FLOAT32, FLOAT16 or BFLOAT16
   * @return its precision
   * @throws IllegalArgumentException for another type (FLOAT64, the exact tests' type, is no training precision)
   */
  public static Precision of(DataType type) {
    for (Precision p : values()) {
      if (p.dataType == type) {
        return p;
      }
    }
    throw new IllegalArgumentException("no training precision is " + type + "; expected float32 or float16");
  }

  /** @return the model's DJL data type in this precision */
  public DataType dataType() {
    return dataType;
  }

  /** @return whether this is a reduced precision (the optimizer keeps FLOAT32 master weights and scales the loss) */
  public boolean reduced() {
    return this != FLOAT32;
  }
}
