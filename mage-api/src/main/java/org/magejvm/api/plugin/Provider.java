package org.magejvm.api.plugin;

import org.magejvm.api.annotation.Api;

/**
 * A plugin that describes itself. Ids are lower-case words joined by {@code -}, {@code .} or {@code _}; ids starting
 * with {@code mage-} are reserved for the providers built into this library.
 */
@Api(status = Api.Status.STABLE)
public interface Provider {

  /** @return the unique id, for example {@code mage-tictactoe} */
  String id();

  /** @return the provider's version, shown in listings and saved with checkpoints */
  String version();

  /** @return a one-line description; empty by default */
  default String description() {
    return "";
  }
}
