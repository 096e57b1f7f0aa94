package org.magejvm.api.plugin;

import org.magejvm.api.annotation.Api;

/** A plugin could not be loaded or registered: a duplicate id, a malformed id, or a provider that failed to load. */
@Api(status = Api.Status.STABLE)
public class PluginException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, naming the provider classes and jars involved
   */
  public PluginException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying error
   */
  public PluginException(String message, Throwable cause) {
    super(message, cause);
  }
}
