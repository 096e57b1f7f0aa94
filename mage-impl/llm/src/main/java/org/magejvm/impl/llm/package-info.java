/**
 * The DJL language policy: a Qwen3-family decoder loaded from a Hugging Face checkpoint directory, its tokenizer and
 * chat template, and batched sampling with per-token log-probabilities. Sub-packages hold the safetensors reader,
 * the model, generation and text handling.
 */
package org.magejvm.impl.llm;
