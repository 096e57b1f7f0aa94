package org.magejvm.impl.openai;

import org.magejvm.api.annotation.Api;

/**
 * A remote inference server could not answer: a 4xx status other than a rejected prompt (named with the endpoint,
 * the status and the server's own error message), a 5xx status or a connection error that outlasted every retry, a
 * timeout, or a response without the fields a policy needs. Nothing of the batch is returned when it is thrown.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public class RemotePolicyException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** The endpoint's base URL. */
  private final String endpoint;
  /** The HTTP status, or -1 when no response came (connection error, timeout). */
  private final int status;

  /**
   * @param endpoint the endpoint's base URL
   * @param status the HTTP status, or -1 when no response came
   * @param message the whole message (naming the endpoint, the status and the server's error message)
   * @param cause the underlying error, or null
   */
  public RemotePolicyException(String endpoint, int status, String message, Throwable cause) {
    super(message, cause);
    this.endpoint = endpoint;
    this.status = status;
  }

  /** @return the base URL of the endpoint that failed last */
  public String endpoint() {
    return endpoint;
  }

  /** @return the HTTP status of the last answer, or -1 when no response came (connection error, timeout) */
  public int status() {
    return status;
  }
}
