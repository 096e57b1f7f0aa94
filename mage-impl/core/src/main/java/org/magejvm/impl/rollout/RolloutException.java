package org.magejvm.impl.rollout;

import org.magejvm.api.annotation.Api;

/**
 * A rollout could not go on as a whole: the policy threw or answered with the wrong number of generations, or the
 * environments could not be created. (An environment that throws or times out during play, and a request the policy
 * rejects with a {@link org.magejvm.api.PolicyRequestException}, stop only their own meta-episode; see {@link
 * WorkerFailure}.)
 */
@Api(status = Api.Status.STABLE)
public class RolloutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what went wrong, naming the policy or environment and the step */
  public RolloutException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying error
   */
  public RolloutException(String message, Throwable cause) {
    super(message, cause);
  }
}
