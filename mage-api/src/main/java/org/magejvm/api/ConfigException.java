package org.magejvm.api;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * A training configuration that cannot be used: an unknown or misspelt key, a value of the wrong type, or a value out
 * of range. The message is one line that names the key in its dotted form ({@code rollout.tasks}), and where a key is
 * unknown it suggests the closest known one.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class ConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The dotted key the error is about. */
  private final String key;

  /**
   * Creates the error.
   *
   * @param key the dotted key ({@code adamw.learning_rate})
   * @param message the whole one-line message (it names the key)
   */
  public ConfigException(String key, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.key = Objects.requireNonNull(key, "key");
  }

  /** @return the dotted key the error is about */
  public String key() {
    return key;
  }

  /**
   * The same error with a source (a file name or {@code --set}) in front of its message.
   *
   * @param source where the value came from
   * @return the new error
   */
  public ConfigException in(String source) {
    ConfigException e = new ConfigException(key, source + ": " + getMessage());
    e.initCause(this);
    return e;
  }
}
