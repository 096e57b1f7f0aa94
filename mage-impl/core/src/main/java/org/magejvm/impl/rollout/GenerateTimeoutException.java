package org.magejvm.impl.rollout;

import java.time.Duration;
import org.magejvm.api.annotation.Api;

/**
 * A batched {@link org.magejvm.api.LanguagePolicy#generate} call did not return within {@link
 * RolloutConfig#generateTimeout()}, or the policy was still busy with such a call when the next batch needed it. The
 * meta-episodes of the batch failed with this as their {@link WorkerFailure#error()} (stage {@code policy}); the
 * rest of the run went on.
 *
 * <p>Java cannot kill a thread, and a native generation (libtorch) does not look at interrupts: the stuck call was
 * interrupted and left running on its own daemon thread. Policies are not thread-safe, so the run does not call the
 * policy again while that call runs: a later batch first waits up to the timeout for it to end, and fails with this
 * exception if it has not.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class GenerateTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The limit that was exceeded. */
  private final transient Duration timeout;

  /**
   * @param message what happened, naming the policy, the step and the thread
   * @param timeout the limit that was exceeded
   */
  public GenerateTimeoutException(String message, Duration timeout) {
    super(message);
    this.timeout = timeout;
  }

  /** @return the limit that was exceeded */
  public Duration timeout() {
    return timeout;
  }
}
