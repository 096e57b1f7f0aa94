/**
 * The HTTP layer of {@code mage serve} and {@code mage env-serve}: {@link org.magejvm.impl.http.JsonHttpServer} on
 * Jetty 12's non-blocking core server, with idle and request timeouts, bounded header and body sizes, bounded
 * connections, request bodies read without holding a thread, and JSON error bodies (in the caller's format) for the
 * HTTP stack's own errors (docs/serving.md, "The HTTP layer").
 */
package org.magejvm.impl.http;
