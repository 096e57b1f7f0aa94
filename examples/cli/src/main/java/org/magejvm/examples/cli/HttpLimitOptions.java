package org.magejvm.examples.cli;

import java.time.Duration;
import org.magejvm.impl.http.HttpLimits;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The HTTP layer's timeouts, limits and API key (picocli mixin of {@code serve} and {@code env-serve}). */
final class HttpLimitOptions {

  /** The environment variable read for the API key when {@code --api-key} is not given. */
  static final String API_KEY_VARIABLE = "MAGE_API_KEY";

  @Option(names = "--api-key", paramLabel = "KEY",
      description = "Require 'Authorization: Bearer KEY' on every request but the health check (401 without);"
          + " default: the environment variable " + API_KEY_VARIABLE + ", else none.")
  String apiKey;

  @Option(names = "--connection-idle-timeout", paramLabel = "SECONDS", defaultValue = "30",
      description = "Close a connection silent for this long; a request body that stalls this long gets 408"
          + " (default: ${DEFAULT-VALUE}).")
  double idleSeconds;

  @Option(names = "--request-timeout", paramLabel = "SECONDS", defaultValue = "60",
      description = "A request body must arrive within this long after its headers, else 408 (default:"
          + " ${DEFAULT-VALUE}; generation time is not counted).")
  double requestSeconds;

  @Option(names = "--max-connections", paramLabel = "N", defaultValue = "1024",
      description = "Most connections open at once; beyond, new ones wait to be accepted (default:"
          + " ${DEFAULT-VALUE}).")
  int maxConnections;

  @Option(names = "--max-header-bytes", paramLabel = "N", defaultValue = "8192",
      description = "Largest request line plus headers; larger ones get 431 (default: ${DEFAULT-VALUE}).")
  int maxHeaderBytes;

  /**
   * @param spec the command, for usage errors
   * @param maxBodyBytes the body limit
   * @return the limits, checked (a value out of range is a usage error naming its option)
   */
  HttpLimits toLimits(CommandSpec spec, long maxBodyBytes) {
    Limits.range(spec, "--max-connections", maxConnections, 1, 1 << 20, "a sane bound");
    Limits.range(spec, "--max-header-bytes", maxHeaderBytes, 1024, 1 << 20, "1 MiB");
    return HttpLimits.defaults().withIdleTimeout(seconds(spec, "--connection-idle-timeout", idleSeconds))
        .withRequestTimeout(seconds(spec, "--request-timeout", requestSeconds)).withMaxConnections(maxConnections)
        .withMaxHeaderBytes(maxHeaderBytes).withMaxBodyBytes(maxBodyBytes);
  }

  /**
   * @param spec the command, for usage errors
   * @return the API key from {@code --api-key} or {@value #API_KEY_VARIABLE}, or null for none
   */
  String apiKey(CommandSpec spec) {
    String key = apiKey != null ? apiKey : System.getenv(API_KEY_VARIABLE);
    if (key != null && (key.isBlank() || !key.strip().equals(key))) {
      throw Limits.usage(spec, "--api-key must not be blank or begin or end with white space");
    }
    return key;
  }

  private static Duration seconds(CommandSpec spec, String option, double s) {
    if (!(s > 0) || s > 86_400) {
      throw Limits.usage(spec, option + " must be in (0, 86400] seconds, got " + s);
    }
    return Duration.ofMillis(Math.max(1, Math.round(s * 1000)));
  }
}
