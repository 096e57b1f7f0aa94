/**
 * Safetensors checkpoints without DJL's limits: {@link org.magejvm.impl.llm.safetensors.SafetensorsFile} maps one
 * file (any size, validated strictly at open), {@link org.magejvm.impl.llm.safetensors.ShardedSafetensors} reads a
 * Hugging Face sharded checkpoint through its index, {@link org.magejvm.impl.llm.safetensors.TensorSources} picks
 * the right one for a directory, and {@link org.magejvm.impl.llm.safetensors.SafetensorsWriter} writes single or
 * sharded files. F32, F16 and BF16 tensors load as FLOAT32 or FLOAT16 arrays that own their memory; BF16 is widened
 * in Java and never created as a DJL array. Every malformed input gives a {@link
 * org.magejvm.impl.llm.checkpoint.CheckpointException} naming the file and the tensor or field.
 */
package org.magejvm.impl.llm.safetensors;
