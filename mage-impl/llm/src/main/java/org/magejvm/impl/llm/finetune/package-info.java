/**
 * Fine-tuning a Qwen3-family model: LoRA adapters ({@link org.magejvm.impl.llm.finetune.LoraConfig},
 * {@link org.magejvm.impl.llm.finetune.LoraAdapter}) hooked into the decoder's projections, their Hugging Face PEFT
 * file layout ({@link org.magejvm.impl.llm.finetune.PeftAdapters}), merging an adapter into the base weights and
 * exporting the merged checkpoint ({@link org.magejvm.impl.llm.finetune.LoraMerge}), and the choice between LoRA and
 * full fine-tuning together with the KL reference policy each one uses
 * ({@link org.magejvm.impl.llm.finetune.FineTuning}).
 */
package org.magejvm.impl.llm.finetune;
