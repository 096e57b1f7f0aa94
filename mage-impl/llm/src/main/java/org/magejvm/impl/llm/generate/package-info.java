/**
 * Batched token generation: temperature, top-p and top-k sampling, greedy decoding, stop tokens, a KV cache, and the
 * log-probability of every sampled token; teacher-forced log-probabilities and entropies for training.
 */
package org.magejvm.impl.llm.generate;
