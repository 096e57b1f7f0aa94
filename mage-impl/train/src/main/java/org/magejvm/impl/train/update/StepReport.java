package org.magejvm.impl.train.update;

/**
 * What one {@link AdamW#step()} call did.
 *
 * @param step the number of the update this call applied, counted from 1 (equal to {@link AdamW#stepCount()}
 *     after the call); for a skipped call, the number the next applied update will get
 * @param learningRate the scheduled learning rate of that update (for a skipped call nothing was applied)
 * @param gradNorm the global L2 norm of all gradients before clipping (NaN or infinite for a skipped call)
 * @param clipped whether the gradients were scaled down to the clip norm
 * @param skipped whether the update was skipped because a gradient was not finite
 */
public record StepReport(long step, double learningRate, double gradNorm, boolean clipped, boolean skipped) {

  /**
   * Validates.
   *
   * @param step update number
   * @param learningRate learning rate
   * @param gradNorm gradient norm before clipping
   * @param clipped whether clipped
   * @param skipped whether skipped
   * @throws IllegalArgumentException when the step is below 1 or a skipped step claims to be clipped
   */
  public StepReport {
    if (step < 1) {
      throw new IllegalArgumentException("step must be >= 1, got " + step);
    }
    if (skipped && clipped) {
      throw new IllegalArgumentException("a skipped step cannot be clipped");
    }
  }
}
