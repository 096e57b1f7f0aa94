package org.magejvm.impl.llm.model;

import org.magejvm.api.annotation.Api;

/**
 * How {@link Qwen3Model} computes attention in a pass of more than one slot per row (prompts, prefill and every
 * training pass; a decoding step of one slot always uses the explicit path, whose score array is then one row).
 *
 * <p>The explicit path multiplies queries by keys, adds a (batch, 1, 1, queries, keys) mask, takes the softmax and
 * multiplies by the values: autograd keeps the (batch, heads, queries, keys) probabilities per layer for the
 * backward pass, memory that grows with the square of the length (972 GiB of the 1,116 GiB one step of Qwen3-4B
 * needs at 4,096 + 8,192 tokens). The fused path calls libtorch's {@code scaled_dot_product_attention} (a flash
 * kernel on the CPU; flash or memory-efficient kernels on CUDA), which keeps only its output and one number per
 * query, so memory grows linearly. Both compute the same function; they differ by float rounding ({@code
 * FusedAttentionTest} bounds the difference of values and gradients).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum AttentionKernel {
  /** Always the explicit path. */
  EXPLICIT,
  /** libtorch's fused kernel for every pass of more than one slot per row. */
  FUSED,
  /**
   * The fused kernel where a pass's rows reach {@link Qwen3Model#FUSED_FROM_KEYS} key slots, the explicit path for
   * shorter ones (whose memory is small and whose results stay identical to earlier versions).
   */
  AUTO
}
