package org.magejvm.impl.llm.text;

/**
 * A token a tokenizer matches before normal tokenisation (the {@code added_tokens} of {@code tokenizer.json}).
 *
 * @param id the token id
 * @param content the token text
 * @param special whether decoding with special tokens skipped drops it (Qwen3's {@code <think>} is not special)
 */
public record AddedToken(int id, String content, boolean special) {}
