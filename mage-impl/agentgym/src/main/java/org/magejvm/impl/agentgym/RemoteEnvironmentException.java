package org.magejvm.impl.agentgym;

/**
 * A remote environment server could not be reached, answered with an HTTP error, or answered with something that is
 * not what the protocol promises. The message names the method, the URL, the request body (cut to a few hundred
 * characters) and what went wrong, for example {@code POST http://127.0.0.1:36001/step {"id":3,"action":"..."}:
 * HTTP 500: {"error":"..."}}.
 *
 * <p>Thrown from inside an {@link org.magejvm.spi.Environment} call, it fails only the meta-episode that made the
 * call: the rollout engine records it as that meta-episode's failure and the others go on.
 */
public final class RemoteEnvironmentException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  /**
   * @param message what failed, naming the URL and the request
   * @param status the HTTP status, or -1 when there was no HTTP answer
   * @param cause the underlying error, or null
   */
  public RemoteEnvironmentException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** @return the HTTP status of the answer, or -1 when there was none (connection refused, timeout) */
  public int status() {
    return status;
  }
}
