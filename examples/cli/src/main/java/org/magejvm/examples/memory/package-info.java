/**
 * Planning the memory of a training run: {@link org.magejvm.examples.memory.TrainingMemory} computes what one LoRA
 * or full fine-tuning step of a Qwen3 model needs from its architecture, and
 * {@link org.magejvm.examples.memory.Qwen3Presets} holds the published Qwen3 configurations. {@code mage memory}
 * prints it; {@code mage bench memory} measures it on the CPU.
 */
package org.magejvm.examples.memory;
