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

  /**
   * Checks that a setting is given.
   *
   * @param key the dotted key
   * @param value the value
   * @param <T> its type
   * @return the value
   * @throws ConfigException naming the key when the value is null
   */
  public static <T> T requireGiven(String key, T value) {
    if (value == null) {
      throw new ConfigException(key, key + " must be given, got null");
    }
    return value;
  }

  /**
   * Checks that a whole-number setting lies in a closed range.
   *
   * @param key the dotted key
   * @param value the value
   * @param min the smallest value allowed
   * @param max the largest value allowed
   * @throws ConfigException naming the key and the range when the value is outside it
   */
  public static void requireInRange(String key, long value, long min, long max) {
    if (value < min || value > max) {
      throw new ConfigException(key, key + " must be in [" + min + ", " + max + "], got " + value);
    }
  }

  /**
   * Checks that a setting lies in a closed range.
   *
   * @param key the dotted key
   * @param value the value
   * @param min the smallest value allowed
   * @param max the largest value allowed
   * @throws ConfigException naming the key and the range when the value is outside it or NaN
   */
  public static void requireInRange(String key, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      throw new ConfigException(key, key + " must be in [" + min + ", " + max + "], got " + value);
    }
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
