/**
 * Text handling for the DJL language policy: the Hugging Face tokenizer of a checkpoint ({@link
 * org.magejvm.impl.llm.text.HfTokenizer}), its {@code tokenizer_config.json} ({@link
 * org.magejvm.impl.llm.text.TokenizerConfig}), chat templates ({@link org.magejvm.impl.llm.text.ChatTemplate}:
 * the checkpoint's own Jinja template or the built-in Qwen3 renderer), stop tokens ({@link
 * org.magejvm.impl.llm.text.StopTokens}), and a builder of small byte-level BPE tokenizers for tests and the CPU
 * quick start ({@link org.magejvm.impl.llm.text.TinyTokenizer}).
 *
 * <p>Everything here works offline: files are read from a local checkpoint directory and nothing is downloaded.
 */
package org.magejvm.impl.llm.text;
