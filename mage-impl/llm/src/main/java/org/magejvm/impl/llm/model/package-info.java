/**
 * The Qwen3-family decoder on DJL arrays: its configuration ({@link org.magejvm.impl.llm.model.Qwen3Config}, parsed
 * from a Hugging Face {@code config.json}), its weights ({@link org.magejvm.impl.llm.model.Qwen3Weights}, loaded from
 * a {@link org.magejvm.impl.llm.safetensors.TensorSource} or initialised at random), the forward pass over left-padded
 * batches ({@link org.magejvm.impl.llm.model.Qwen3Model}) and the key/value cache used while decoding
 * ({@link org.magejvm.impl.llm.model.KvCache}). A {@link org.magejvm.impl.llm.model.ProjectionAdapter} attached to
 * the model (LoRA, in {@code org.magejvm.impl.llm.finetune}) corrects the seven
 * {@linkplain org.magejvm.impl.llm.model.Projection projections} of every layer.
 *
 * <p>Qwen2- and Llama-style checkpoints (no per-head q/k norms, optional attention biases) use the same code path
 * with two switches in the configuration.
 */
package org.magejvm.impl.llm.model;
