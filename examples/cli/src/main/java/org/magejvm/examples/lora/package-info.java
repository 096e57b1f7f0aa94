/**
 * The real-checkpoint example: {@link org.magejvm.examples.lora.LoraTraining} trains a LoRA adapter on a downloaded
 * Qwen3 checkpoint with the MAGE preset through the library's own API ({@code MageTrainer}, {@code FineTuning},
 * {@code PeftAdapters}), and evaluates before and after. {@code mage lora} runs it from the command line.
 */
package org.magejvm.examples.lora;
