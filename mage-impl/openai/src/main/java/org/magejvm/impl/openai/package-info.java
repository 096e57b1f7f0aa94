/**
 * Generation on OpenAI-compatible inference servers: {@link org.magejvm.impl.openai.OpenAiCompletionsPolicy} sends
 * each batch to one or more {@code /v1/completions} endpoints (vLLM, SGLang, {@code mage serve}) and reads back the
 * sampled token ids and log-probabilities; {@link org.magejvm.impl.openai.VllmAdapterLoader} pushes a PEFT adapter
 * to a vLLM server. Only the JDK's HTTP client and Gson: no DJL engine, no libtorch (docs/serving.md).
 */
package org.magejvm.impl.openai;
