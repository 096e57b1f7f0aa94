package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;

/** Value checks whose messages name the key. */
final class ConfigChecks {
  private ConfigChecks() {}

  static <T> T notNull(String key, T v) {
    if (v == null) {
      throw new ConfigException(key, key + " must be given, got null");
    }
    return v;
  }

  static void notBlank(String key, String v) {
    if (v == null || v.isBlank()) {
      throw new ConfigException(key, key + " must be a non-empty string, got " + (v == null ? "null" : "''"));
    }
  }

  static void range(String key, long v, long min, long max) {
    if (v < min || v > max) {
      throw new ConfigException(key, key + " must be in [" + min + ", " + max + "], got " + v);
    }
  }

  static void range(String key, double v, double min, double max) {
    if (!(v >= min && v <= max)) {
      throw new ConfigException(key, key + " must be in [" + min + ", " + max + "], got " + v);
    }
  }
}
