package org.magejvm.impl.train.common;

/** A training run cannot go on: too many failed meta-episodes, a refused checkpoint, an inconsistent resume. */
public final class TrainingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what went wrong, naming the iteration, file or setting */
  public TrainingException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public TrainingException(String message, Throwable cause) {
    super(message, cause);
  }
}
