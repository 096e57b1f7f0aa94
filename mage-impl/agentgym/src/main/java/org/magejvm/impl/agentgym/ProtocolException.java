package org.magejvm.impl.agentgym;

/**
 * A JSON message of the env-server protocol lacks a field or has one of the wrong kind. The env server answers it
 * with HTTP 400 and a JSON error naming {@link #field()}; a client turns it into a {@link
 * RemoteEnvironmentException}.
 */
public final class ProtocolException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  /**
   * @param field the field, as a path such as {@code context.steps[2].number}
   * @param message what is wrong with it
   */
  public ProtocolException(String field, String message) {
    super(message);
    this.field = field;
  }

  /** @return the field, as a path such as {@code context.steps[2].number} */
  public String field() {
    return field;
  }
}
