package org.magejvm.impl.rollout;

import java.time.Duration;
import org.magejvm.api.annotation.Api;

/**
 * A call into an environment plugin did not return within {@link RolloutConfig#stepTimeout()}. Its meta-episode
 * failed with this as its {@link WorkerFailure#error()}; the rest of the run went on.
 *
 * <p>Java cannot kill a thread: the stuck call was interrupted and left running on its own daemon thread, which no
 * later call uses. If it ever returns, its result is discarded and the environment is closed on that thread.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class StepTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The limit that was exceeded. */
  private final transient Duration timeout;

  /**
   * @param call the plugin call, for example {@code step()}
   * @param timeout the limit that was exceeded
   * @param thread the name of the thread left running the call
   */
  public StepTimeoutException(String call, Duration timeout, String thread) {
    super(call + " did not return within " + timeout.toMillis() + " ms (stepTimeout); it was interrupted and "
        + "abandoned on daemon thread '" + thread + "'");
    this.timeout = timeout;
  }

  /** @return the limit that was exceeded */
  public Duration timeout() {
    return timeout;
  }
}
