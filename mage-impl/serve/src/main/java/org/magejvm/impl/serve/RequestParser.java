package org.magejvm.impl.serve;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.http.HttpCall;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.text.ChatMessage;

/**
 * Parses the OpenAI requests of the two generation endpoints into what the scheduler runs: an {@link Ask} and the
 * {@link Job.Prompt} that makes the prompt's token ids; a wrong field is a 400 naming it.
 */
final class RequestParser {

  private static final int DEFAULT_MAX_TOKENS = 16;

  private final DjlLanguagePolicy policy;
  private final String modelName;
  private final int contextLength;
  private final int vocabSize;
  private final LoraEndpoints adapters;
  private final SplittableRandom seeds;

  RequestParser(DjlLanguagePolicy policy, String modelName, int contextLength, int vocabSize, LoraEndpoints adapters,
      long seed) {
    this.policy = policy;
    this.modelName = modelName;
    this.contextLength = contextLength;
    this.vocabSize = vocabSize;
    this.adapters = adapters;
    this.seeds = new SplittableRandom(seed);
  }

  /** A parsed generation request: where its prompt comes from, and what it asks for. */
  record Request(Job.Prompt prompt, Ask ask) {}

  /** @return the request body as a JSON object; 400 {@code invalid_json} when it is not one */
  static JsonObject readJson(HttpCall call) {
    JsonElement root;
    try {
      root = JsonParser.parseString(call.bodyText());
    } catch (JsonParseException e) {
      throw HttpError.badRequest(null, "invalid_json", "the request body is not valid JSON: "
          + call.jsonSyntaxError(e));
    }
    if (!root.isJsonObject()) {
      throw HttpError.badRequest(null, "invalid_json", "the request body must be a JSON object, got "
          + Fields.shown(root));
    }
    return root.getAsJsonObject();
  }

  /** Parses a {@code /v1/completions} request. */
  Request completion(JsonObject o) {
    JsonElement prompt = Fields.present(o, "prompt");
    if (prompt == null) {
      throw HttpError.badRequest("prompt", "missing_field", "'prompt' is required: a string or a list of token ids");
    }
    Ask ask = commonFields(o, false);
    Job.Prompt source;
    if (prompt.isJsonPrimitive() && prompt.getAsJsonPrimitive().isString()) {
      String text = prompt.getAsString();
      source = () -> encode(text);
    } else if (prompt.isJsonArray()) {
      JsonArray a = prompt.getAsJsonArray();
      if (!a.isEmpty() && !(a.get(0).isJsonPrimitive() && a.get(0).getAsJsonPrimitive().isNumber())) {
        throw HttpError.badRequest("prompt", "unsupported", "one prompt per request: a string or a list of token"
            + " ids, not a list of prompts");
      }
      int[] ids = new int[a.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = (int) Fields.integer(a.get(i), "prompt[" + i + "]", 0, vocabSize - 1);
      }
      source = () -> ids;
    } else {
      throw HttpError.badRequest("prompt", "invalid_type", "'prompt' must be a string or a list of token ids, got "
          + Fields.shown(prompt));
    }
    return new Request(source, ask);
  }

  /** Parses a {@code /v1/chat/completions} request; its prompt renders the messages with the chat template. */
  Request chat(JsonObject o) {
    JsonElement messagesElement = Fields.present(o, "messages");
    if (messagesElement == null || !messagesElement.isJsonArray() || messagesElement.getAsJsonArray().isEmpty()) {
      throw HttpError.badRequest("messages", messagesElement == null ? "missing_field" : "invalid_type",
          "'messages' is required: a non-empty list of {\"role\", \"content\"} objects");
    }
    List<ChatMessage> messages = new ArrayList<>();
    JsonArray a = messagesElement.getAsJsonArray();
    for (int i = 0; i < a.size(); i++) {
      String field = "messages[" + i + "]";
      if (!a.get(i).isJsonObject()) {
        throw HttpError.badRequest(field, "invalid_type", "'" + field + "' must be an object");
      }
      JsonObject m = a.get(i).getAsJsonObject();
      JsonElement role = Fields.present(m, "role");
      JsonElement content = Fields.present(m, "content");
      if (role == null || content == null) {
        throw HttpError.badRequest(field, "missing_field", "'" + field + "' needs 'role' and 'content'");
      }
      String r = Fields.string(role, field + ".role");
      if (r.isBlank()) {
        throw HttpError.badRequest(field + ".role", "invalid_value", "'" + field + ".role' must not be blank");
      }
      messages.add(new ChatMessage(r, Fields.string(content, field + ".content")));
    }
    Map<String, Object> vars = new LinkedHashMap<>(policy.templateVariables());
    JsonElement kwargs = Fields.present(o, "chat_template_kwargs");
    if (kwargs != null) {
      if (!kwargs.isJsonObject()) {
        throw HttpError.badRequest("chat_template_kwargs", "invalid_type", "'chat_template_kwargs' must be an"
            + " object");
      }
      for (Map.Entry<String, JsonElement> e : kwargs.getAsJsonObject().entrySet()) {
        JsonElement v = e.getValue();
        String field = "chat_template_kwargs." + e.getKey();
        if (!v.isJsonPrimitive()) {
          throw HttpError.badRequest(field, "invalid_type", "'" + field + "' must be a string, number or boolean");
        }
        vars.put(e.getKey(), v.getAsJsonPrimitive().isBoolean() ? (Object) v.getAsBoolean()
            : v.getAsJsonPrimitive().isNumber() ? (Object) v.getAsDouble() : v.getAsString());
      }
    }
    Ask ask = commonFields(o, true);
    Map<String, Object> frozen = Map.copyOf(vars);
    return new Request(() -> encode(policy.chatTemplate().render(messages, true, frozen)), ask);
  }

  private Ask commonFields(JsonObject o, boolean chat) {
    JsonElement model = Fields.present(o, "model");
    LoraEndpoints.Served adapter = null;
    if (model != null && !Fields.string(model, "model").equals(modelName)) {
      adapter = adapters.get(model.getAsString());
      if (adapter == null) {
        throw new HttpError(404, "not_found_error", "model", "model_not_found", "the model '"
            + model.getAsString() + "' does not exist here; this server serves '" + modelName + "'"
            + (adapters.isEmpty() ? "" : " and the adapters " + adapters.names()));
      }
    }
    boolean stream = Fields.bool(o, "stream", false);
    boolean includeUsage = false;
    JsonElement streamOptions = Fields.present(o, "stream_options");
    if (streamOptions != null) {
      if (!stream) {
        throw HttpError.badRequest("stream_options", "invalid_value", "'stream_options' needs 'stream': true");
      }
      if (!streamOptions.isJsonObject()) {
        throw HttpError.badRequest("stream_options", "invalid_type", "'stream_options' must be an object, got "
            + Fields.shown(streamOptions));
      }
      JsonObject so = streamOptions.getAsJsonObject();
      includeUsage = flag(so, "include_usage", "stream_options.include_usage");
      if (flag(so, "continuous_usage_stats", "stream_options.continuous_usage_stats")) {
        throw HttpError.badRequest("stream_options.continuous_usage_stats", "unsupported",
            "'stream_options.continuous_usage_stats' is not supported by this server; the usage chunk comes once, at"
            + " the end");
      }
    }
    int n = (int) Fields.integer(o, "n", 1, 1, CompletionServer.MAX_CHOICES);
    JsonElement bestOf = Fields.present(o, "best_of");
    if (bestOf != null && Fields.integer(bestOf, "best_of", 1, Integer.MAX_VALUE) != n) {
      throw HttpError.badRequest("best_of", "unsupported", "'best_of' must equal 'n' (" + n + ") or be left out:"
          + " this server returns every sample it draws and does not rank them");
    }
    if (Fields.bool(o, "echo", false)) {
      throw HttpError.badRequest("echo", "unsupported", "echo is not supported by this server");
    }
    List<String> stops = stopStrings(o);
    boolean includeStop = Fields.bool(o, "include_stop_str_in_output", false);
    int cap = contextLength;
    String maxName = chat && Fields.present(o, "max_completion_tokens") != null ? "max_completion_tokens"
        : "max_tokens";
    int maxTokens = (int) Fields.integer(o, maxName, DEFAULT_MAX_TOKENS, 1, cap);
    int minTokens = (int) Fields.integer(o, "min_tokens", 0, 0, maxTokens);
    double temperature = Fields.real(o, "temperature", 1.0);
    if (temperature < 0 || (temperature > 0 && temperature < CompletionServer.MIN_TEMPERATURE)) {
      throw HttpError.badRequest("temperature", "invalid_value", "'temperature' must be 0 (greedy) or >= "
          + CompletionServer.MIN_TEMPERATURE + ", got " + Fields.shown(o.get("temperature")));
    }
    double topP = Fields.real(o, "top_p", 1.0);
    if (!(topP > 0 && topP <= 1)) {
      throw HttpError.badRequest("top_p", "invalid_value", "'top_p' must be in (0, 1], got " + topP);
    }
    // -1 and 0 both switch the filter off, as in vLLM
    int topK = (int) Fields.integer(o, "top_k", 0, -1, Integer.MAX_VALUE);
    JsonElement seedElement = Fields.present(o, "seed");
    long seed = seedElement == null ? nextSeed() : Fields.integer(seedElement, "seed", Long.MIN_VALUE,
        Long.MAX_VALUE);
    SamplingConfig sampling = SamplingConfig.builder().optTemperature(temperature).optTopP(topP)
        .optTopK(Math.max(topK, 0)).optMaxNewTokens(maxTokens).optMinNewTokens(minTokens).build();
    boolean logprobs;
    int top;
    if (chat) {
      logprobs = Fields.bool(o, "logprobs", false);
      top = (int) Fields.integer(o, "top_logprobs", 0, 0, CompletionServer.MAX_LOGPROBS);
      if (top > 0 && !logprobs) {
        throw HttpError.badRequest("top_logprobs", "invalid_value", "'top_logprobs' needs 'logprobs': true");
      }
    } else {
      JsonElement lp = Fields.present(o, "logprobs");
      top = lp == null ? 0 : (int) Fields.integer(lp, "logprobs", 0, CompletionServer.MAX_LOGPROBS);
      logprobs = lp != null;
    }
    return new Ask(sampling, seed, logprobs, top, Fields.bool(o, "return_tokens_as_token_ids", false), adapter, n,
        stops, includeStop, stream, includeUsage);
  }

  /** Reads a nested boolean, false when absent; a wrong type is a 400 naming {@code shownAs}. */
  private static boolean flag(JsonObject o, String key, String shownAs) {
    JsonElement e = Fields.present(o, key);
    if (e == null) {
      return false;
    }
    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
      throw HttpError.badRequest(shownAs, "invalid_type", "'" + shownAs + "' must be true or false, got "
          + Fields.shown(e));
    }
    return e.getAsBoolean();
  }

  /**
   * Reads {@code stop}: absent, null, a string or a list of at most {@link CompletionServer#MAX_STOP_STRINGS}
   * non-empty strings.
   */
  private static List<String> stopStrings(JsonObject o) {
    JsonElement stop = Fields.present(o, "stop");
    if (stop == null) {
      return List.of();
    }
    if (!stop.isJsonArray()) {
      String one = Fields.string(stop, "stop");
      if (one.isEmpty()) {
        throw HttpError.badRequest("stop", "invalid_value", "'stop' must not be an empty string");
      }
      return List.of(one);
    }
    JsonArray a = stop.getAsJsonArray();
    if (a.size() > CompletionServer.MAX_STOP_STRINGS) {
      throw HttpError.badRequest("stop", "invalid_value", "'stop' holds at most " + CompletionServer.MAX_STOP_STRINGS
          + " strings, got " + a.size());
    }
    List<String> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      String field = "stop[" + i + "]";
      String s = Fields.string(a.get(i), field);
      if (s.isEmpty()) {
        throw HttpError.badRequest(field, "invalid_value", "'" + field + "' must not be an empty string");
      }
      out.add(s);
    }
    return List.copyOf(out);
  }

  private synchronized long nextSeed() {
    return seeds.nextLong();
  }

  /**
   * Tokenizes a prompt text on the generation thread; a text whose length in characters alone proves it beyond the
   * prompt limit is refused without being tokenized (a megabyte would take the generation thread seconds).
   */
  private int[] encode(String text) {
    long least = policy.tokenizer().minTokens(text);
    int limit = policy.promptLimit();
    if (least > limit) {
      throw HttpError.badRequest("prompt", "context_length_exceeded", limit == contextLength
          ? Qwen3Config.promptTooLong(least, text.length(), contextLength)
          : "the prompt is at least " + least + " tokens (" + text.length() + " characters), more than this"
              + " server's prompt limit of " + limit + " tokens");
    }
    return policy.tokenizer().encode(text);
  }
}
