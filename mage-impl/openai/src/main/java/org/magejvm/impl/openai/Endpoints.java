package org.magejvm.impl.openai;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/** Base URLs of OpenAI-compatible servers: validation and the least-loaded choice. */
final class Endpoints {

  /** One server: its base URL (without {@code /v1}) and the requests in flight to it. */
  static final class Endpoint {
    final String base;
    final AtomicInteger inFlight = new AtomicInteger();
    /** {@link System#nanoTime} before which the endpoint is passed over after a failure. */
    volatile long downUntil = Long.MIN_VALUE;

    Endpoint(String base) {
      this.base = base;
    }

    URI resolve(String path) {
      return URI.create(base + path);
    }
  }

  private final List<Endpoint> all;
  private final AtomicInteger next = new AtomicInteger();

  Endpoints(List<String> bases) {
    if (bases.isEmpty()) {
      throw new IllegalStateException("at least one endpoint base URL is required (addEndpoint)");
    }
    this.all = bases.stream().map(b -> new Endpoint(normalize(b))).toList();
  }

  /**
   * @param url a base URL such as {@code http://127.0.0.1:8000} or {@code http://host:8000/v1}
   * @return the URL without a trailing slash or {@code /v1}
   * @throws IllegalArgumentException naming the URL when it is not an absolute http(s) URL with a host
   */
  static String normalize(String url) {
    String u = url.strip();
    while (u.endsWith("/")) {
      u = u.substring(0, u.length() - 1);
    }
    if (u.endsWith("/v1")) {
      u = u.substring(0, u.length() - 3);
    }
    URI uri;
    try {
      uri = URI.create(u);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("endpoint '" + url + "' is not a URL: " + e.getMessage(), e);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new IllegalArgumentException("endpoint '" + url + "' must be an http:// or https:// URL with a host,"
          + " such as http://127.0.0.1:8000");
    }
    if (uri.getQuery() != null || uri.getFragment() != null) {
      throw new IllegalArgumentException("endpoint '" + url + "' must not have a query or fragment");
    }
    return u;
  }

  List<Endpoint> all() {
    return all;
  }

  /**
   * @return the endpoint with the fewest requests in flight among those not cooling down after a failure (among
   *     all when every one is); ties go round-robin
   */
  Endpoint pick() {
    int n = all.size();
    int start = Math.floorMod(next.getAndIncrement(), n);
    long now = System.nanoTime();
    Endpoint best = null;
    boolean bestUp = false;
    for (int k = 0; k < n; k++) {
      Endpoint e = all.get((start + k) % n);
      boolean up = e.downUntil - now <= 0 || e.downUntil == Long.MIN_VALUE;
      if (best == null || up && !bestUp || up == bestUp && e.inFlight.get() < best.inFlight.get()) {
        best = e;
        bestUp = up;
      }
    }
    return best;
  }

  /**
   * @param e an endpoint that just failed (connection error, timeout, 5xx)
   * @param cooldownNanos how long to pass it over
   */
  static void markDown(Endpoint e, long cooldownNanos) {
    e.downUntil = System.nanoTime() + cooldownNanos;
  }
}
