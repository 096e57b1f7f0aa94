package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;

/**
 * The value check {@link ConfigException} has no twin of (a given value and a range are {@link
 * ConfigException#requireGiven} and {@link ConfigException#requireInRange}).
 */
final class ConfigChecks {
  private ConfigChecks() {}

  static void notBlank(String key, String v) {
    if (v == null || v.isBlank()) {
      throw new ConfigException(key, key + " must be a non-empty string, got " + (v == null ? "null" : "''"));
    }
  }
}
