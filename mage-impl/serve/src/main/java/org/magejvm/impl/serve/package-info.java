/**
 * {@code mage serve}: {@link org.magejvm.impl.serve.CompletionServer} serves a local checkpoint on
 * OpenAI-compatible {@code /v1/completions} and {@code /v1/chat/completions} (with the sampled token ids and
 * log-probabilities the remote policy reads), {@code /v1/models} and {@code /health}, on the JDK's HTTP server,
 * batching concurrent requests into one generation call (docs/serving.md).
 */
package org.magejvm.impl.serve;
