package org.magejvm.impl.agentgym;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach an environment server: its base URL, the time one request may take, and how often a request that
 * could not connect is tried again.
 *
 * @param baseUrl the server's base URL, for example {@code http://127.0.0.1:36001}; {@code http} or {@code https}
 * @param timeout the most one request may take, connection included
 * @param retries how many times a request that could not connect (connection refused or connect timeout; the server
 *     never saw it) is tried again; other failures are never retried, since a step must not be applied twice
 * @param backoff the wait before the first retry; it doubles with every further retry
 */
public record RemoteSettings(URI baseUrl, Duration timeout, int retries, Duration backoff) {

  /** The request timeout unless set: 300 s, as AgentGym's own clients use. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);
  /** The retries unless set. */
  public static final int DEFAULT_RETRIES = 3;
  /** The first backoff unless set. */
  public static final Duration DEFAULT_BACKOFF = Duration.ofMillis(200);

  /**
   * Validates and normalises (a trailing {@code /} of the URL is dropped).
   *
   * @param baseUrl base URL
   * @param timeout request timeout
   * @param retries retries on connection errors
   * @param backoff first backoff
   */
  public RemoteSettings {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(backoff, "backoff");
    String scheme = baseUrl.getScheme() == null ? "" : baseUrl.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || baseUrl.getHost() == null) {
      throw new IllegalArgumentException("the environment server URL must be http://HOST:PORT or https://...,"
          + " got '" + baseUrl + "'");
    }
    if (baseUrl.getQuery() != null || baseUrl.getFragment() != null) {
      throw new IllegalArgumentException("the environment server URL must not have a query or fragment, got '"
          + baseUrl + "'");
    }
    String s = baseUrl.toString();
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    baseUrl = URI.create(s);
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0, got " + timeout);
    }
    if (retries < 0 || retries > 100) {
      throw new IllegalArgumentException("retries must be in [0, 100], got " + retries);
    }
    if (backoff.isNegative()) {
      throw new IllegalArgumentException("backoff must be >= 0, got " + backoff);
    }
  }

  /**
   * @param baseUrl the base URL
   * @return settings with the default timeout, retries and backoff
   * @throws IllegalArgumentException if the URL is not an http(s) URL
   */
  public static RemoteSettings of(String baseUrl) {
    return new RemoteSettings(parseUrl(baseUrl, "url"), DEFAULT_TIMEOUT, DEFAULT_RETRIES, DEFAULT_BACKOFF);
  }

  /**
   * Reads the settings from environment options: {@code url} (else the system property, else the environment
   * variable), {@code timeout} in seconds and {@code retries}.
   *
   * @param options the options given to {@code create}
   * @param property the system property holding the URL when the option is absent
   * @param variable the environment variable holding the URL when neither is set
   * @param envId the environment id, for messages
   * @return the settings
   * @throws IllegalArgumentException naming the option when a value is malformed or no URL is configured
   */
  public static RemoteSettings fromOptions(Map<String, String> options, String property, String variable,
      String envId) {
    String url = options.get("url");
    if (url == null || url.isBlank()) {
      url = System.getProperty(property);
    }
    if (url == null || url.isBlank()) {
      url = System.getenv(variable);
    }
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("environment '" + envId + "' needs the URL of its server: give the option"
          + " url=http://HOST:PORT (mage play --env-url), the system property " + property
          + " or the environment variable " + variable);
    }
    Duration timeout = DEFAULT_TIMEOUT;
    String t = options.get("timeout");
    if (t != null) {
      double seconds;
      try {
        seconds = Double.parseDouble(t.trim());
      } catch (NumberFormatException e) {
        seconds = Double.NaN;
      }
      if (!(seconds > 0) || seconds > 86_400) {
        throw new IllegalArgumentException("option 'timeout' of environment '" + envId
            + "' must be seconds in (0, 86400], got '" + t + "'");
      }
      timeout = Duration.ofMillis(Math.max(1, Math.round(seconds * 1000)));
    }
    int retries = DEFAULT_RETRIES;
    String r = options.get("retries");
    if (r != null) {
      try {
        retries = Integer.parseInt(r.trim());
      } catch (NumberFormatException e) {
        retries = -1;
      }
      if (retries < 0 || retries > 100) {
        throw new IllegalArgumentException("option 'retries' of environment '" + envId
            + "' must be an integer in [0, 100], got '" + r + "'");
      }
    }
    return new RemoteSettings(parseUrl(url.trim(), "url"), timeout, retries, DEFAULT_BACKOFF);
  }

  /**
   * @param v the request timeout
   * @return a copy with that timeout
   */
  public RemoteSettings withTimeout(Duration v) {
    return new RemoteSettings(baseUrl, v, retries, backoff);
  }

  /**
   * @param retries the retries on connection errors
   * @param backoff the first backoff
   * @return a copy with those retries
   */
  public RemoteSettings withRetries(int retries, Duration backoff) {
    return new RemoteSettings(baseUrl, timeout, retries, backoff);
  }

  private static URI parseUrl(String url, String field) {
    try {
      return new URI(url);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException("option '" + field + "' is not a URL: '" + url + "' (" + e.getMessage()
          + ")", e);
    }
  }
}
