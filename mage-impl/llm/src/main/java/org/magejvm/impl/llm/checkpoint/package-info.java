/**
 * What goes wrong when a checkpoint directory is read: {@link org.magejvm.impl.llm.checkpoint.CheckpointException}.
 * Its own package, because both sides of a checkpoint throw it: the weights ({@code safetensors}, {@code model}) and
 * the tokenizer and chat-template files ({@code text}), which otherwise have nothing to do with each other.
 */
package org.magejvm.impl.llm.checkpoint;
