/**
 * A memory-mapped safetensors reader: single files and sharded checkpoints, F32/F16/BF16 (BF16 widened while
 * loading), with header validation and errors that name the file and tensor.
 */
package org.magejvm.impl.llm.safetensors;
