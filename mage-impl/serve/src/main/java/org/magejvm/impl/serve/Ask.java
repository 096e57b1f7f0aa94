package org.magejvm.impl.serve;

import java.util.List;
import org.magejvm.api.SamplingConfig;

/**
 * What a request asks for, parsed and checked on the handler thread.
 *
 * @param adapter the runtime LoRA adapter the request's {@code model} names, or null for the served model
 * @param n the number of choices, each a row of its own with a seed derived from {@code seed}
 * @param stops the stop strings, empty for none
 * @param includeStop whether an answer cut by a stop string ends with it ({@code include_stop_str_in_output})
 * @param stream whether the answer is streamed as Server-Sent Events
 * @param includeUsage whether a stream ends with a usage chunk ({@code stream_options.include_usage})
 * @param topLogprobs the alternatives asked for per token, 0 for none
 */
record Ask(SamplingConfig sampling, long seed, boolean logprobs, int topLogprobs, boolean tokenIdStrings,
    LoraEndpoints.Served adapter, int n, List<String> stops, boolean includeStop, boolean stream,
    boolean includeUsage) {}
