package org.magejvm.impl.train.update;

import org.magejvm.api.annotation.Api;

/**
 * Dynamic loss scaling for FLOAT16 training, as PyTorch's {@code torch.amp.GradScaler} does it: the loss is multiplied
 * by the current scale before the backward pass (so that small gradients do not underflow FLOAT16's range), {@link
 * AdamW} divides the gradients by it again before it uses them, and the scale adapts: a step whose gradients hold an
 * infinity or a NaN (an overflow) is skipped and the scale halved; after {@code growthInterval} applied steps in a
 * row it doubles. Every scale is a power of two, so scaling and unscaling are exact.
 *
 * @param initialScale the scale of the first step: a power of two in [{@value #MIN_SCALE}, {@value #MAX_SCALE}]
 * @param growthInterval applied steps in a row after which the scale doubles, at least 1
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record LossScaling(double initialScale, int growthInterval) {

  /** The first scale of {@link #dynamic()}: 2^16, GradScaler's default. */
  public static final double DEFAULT_INITIAL_SCALE = 65536;
  /** The growth interval of {@link #dynamic()}: 2000 steps, GradScaler's default. */
  public static final int DEFAULT_GROWTH_INTERVAL = 2000;
  /** The largest scale: 2^24. */
  public static final double MAX_SCALE = 16777216;
  /** The smallest scale: 2^-16 (an overflow at this scale is a diverged run, not a scaling problem). */
  public static final double MIN_SCALE = 1.0 / 65536;

  /**
   * Validates.
   *
   * @param initialScale the first scale
   * @param growthInterval the growth interval
   * @throws IllegalArgumentException when the scale is not a power of two in range or the interval is below 1
   */
  public LossScaling {
    if (!(initialScale >= MIN_SCALE && initialScale <= MAX_SCALE)
        || Math.scalb(1.0, Math.getExponent(initialScale)) != initialScale) {
      throw new IllegalArgumentException("the initial loss scale must be a power of two in [2^-16, 2^24], got "
          + initialScale);
    }
    if (growthInterval < 1) {
      throw new IllegalArgumentException("the loss scale's growth interval must be at least 1 step, got "
          + growthInterval);
    }
  }

  /** @return GradScaler's defaults: 2^16 at first, doubled after 2000 applied steps in a row */
  public static LossScaling dynamic() {
    return new LossScaling(DEFAULT_INITIAL_SCALE, DEFAULT_GROWTH_INTERVAL);
  }

  /**
   * @param scale the current scale
   * @return the scale after an overflow: half of it, but not below {@link #MIN_SCALE}
   */
  static double backedOff(double scale) {
    return Math.max(MIN_SCALE, scale / 2);
  }

  /**
   * @param scale the current scale
   * @return the scale after {@link #growthInterval()} applied steps: twice it, but not above {@link #MAX_SCALE}
   */
  static double grown(double scale) {
    return Math.min(MAX_SCALE, scale * 2);
  }
}
