package org.magejvm.impl.serve;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.nio.charset.StandardCharsets;
import org.magejvm.api.FinishReason;
import org.magejvm.impl.http.HttpAnswer;
import org.magejvm.impl.serve.Job.Done;
import org.magejvm.impl.serve.Job.Top;

/**
 * Encodes answers as OpenAI's JSON: the choices of both generation endpoints with their log-probabilities, usage,
 * the envelope, and the error body {@code {"error": {"message", "type", "param", "code"}}}.
 */
final class OpenAiJson {

  static final Gson GSON = new Gson();
  /** Error bodies keep {@code "param": null}, as OpenAI's do. */
  static final Gson ERROR_GSON = new GsonBuilder().serializeNulls().create();

  private OpenAiJson() {}

  static HttpAnswer json(int status, JsonObject body) {
    return HttpAnswer.json(status, GSON.toJson(body));
  }

  static HttpAnswer errorAnswer(HttpError e) {
    return HttpAnswer.json(e.status, errorJson(e));
  }

  static String errorJson(HttpError e) {
    return errorJson(e.status, e.type, e.param, e.code, e.getMessage());
  }

  /** The error body of the HTTP layer's own errors, in this server's shape. */
  static String errorJson(int status, String code, String message) {
    return errorJson(status, status >= 500 ? "server_error" : "invalid_request_error", null, code, message);
  }

  static String errorJson(int status, String type, String param, String code, String message) {
    JsonObject err = new JsonObject();
    err.addProperty("message", message);
    err.addProperty("type", type);
    err.addProperty("param", param);
    err.addProperty("code", code);
    JsonObject root = new JsonObject();
    root.add("error", err);
    return ERROR_GSON.toJson(root);
  }

  /** A {@code /v1/completions} choice, or a streamed chunk's choice, for the text and tokens {@code [from, to)}. */
  static JsonObject completionChoice(Done d, String text, int from, int to, Ask ask, boolean whole) {
    JsonObject choice = new JsonObject();
    choice.addProperty("index", d.index());
    choice.addProperty("text", text);
    if (ask.logprobs()) {
      JsonObject lp = new JsonObject();
      lp.add("tokens", tokenStrings(d, from, to, ask.tokenIdStrings()));
      lp.add("token_logprobs", floats(d.logProbs(), from, to));
      lp.add("top_logprobs", ask.topLogprobs() > 0 ? completionTops(d, from, to, ask) : JsonNull.INSTANCE);
      choice.add("logprobs", lp);
    } else {
      choice.add("logprobs", JsonNull.INSTANCE);
    }
    if (whole) {
      choice.addProperty("finish_reason", finish(d.finish()));
      choice.addProperty("stop_reason", d.stopReason());
      choice.add("token_ids", ints(d.tokenIds(), from, to));
      choice.add("prompt_token_ids", ints(d.promptIds(), 0, d.promptIds().length));
    }
    return choice;
  }

  /** A {@code /v1/chat/completions} choice: the whole answer as the assistant's message. */
  static JsonObject chatChoice(Done d, Ask ask) {
    JsonObject message = new JsonObject();
    message.addProperty("role", "assistant");
    message.addProperty("content", d.text());
    JsonObject choice = new JsonObject();
    choice.addProperty("index", d.index());
    choice.add("message", message);
    choice.add("logprobs", ask.logprobs() ? chatLogprobs(d, 0, d.tokenIds().length, ask) : JsonNull.INSTANCE);
    choice.addProperty("finish_reason", finish(d.finish()));
    choice.addProperty("stop_reason", d.stopReason());
    choice.add("token_ids", ints(d.tokenIds(), 0, d.tokenIds().length));
    choice.add("prompt_token_ids", ints(d.promptIds(), 0, d.promptIds().length));
    return choice;
  }

  /**
   * OpenAI's legacy {@code top_logprobs}: per token, the K most likely tokens (most likely first) and then the
   * sampled token when it is not among them, each as {@code text: logprob} (tokens with the same text collapse
   * into one key, as in OpenAI's and vLLM's answers; {@code return_tokens_as_token_ids} keeps them apart).
   */
  private static JsonArray completionTops(Done d, int from, int to, Ask ask) {
    JsonArray a = new JsonArray(to - from);
    for (int i = from; i < to; i++) {
      Top top = d.tops()[i];
      JsonObject m = new JsonObject();
      for (int j = 0; j < top.ids().length; j++) {
        String key = ask.tokenIdStrings() ? "token_id:" + top.ids()[j] : top.texts()[j];
        if (!m.has(key)) {
          m.addProperty(key, top.logProbs()[j]);
        }
      }
      String sampled = ask.tokenIdStrings() ? "token_id:" + d.tokenIds()[i] : d.tokenTexts()[i];
      if (!m.has(sampled)) {
        m.addProperty(sampled, d.logProbs()[i]);
      }
      a.add(m);
    }
    return a;
  }

  private static JsonObject chatLogprob(JsonElement token, String text, float logProb) {
    JsonObject t = new JsonObject();
    t.add("token", token);
    t.addProperty("logprob", logProb);
    JsonArray bytes = new JsonArray();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      bytes.add(b & 0xFF);
    }
    t.add("bytes", bytes);
    return t;
  }

  /** A chat choice's {@code logprobs}: {@code content}, one entry a token of {@code [from, to)}. */
  static JsonObject chatLogprobs(Done d, int from, int to, Ask ask) {
    JsonArray content = new JsonArray();
    JsonArray tokens = tokenStrings(d, from, to, ask.tokenIdStrings());
    for (int i = from; i < to; i++) {
      JsonObject t = chatLogprob(tokens.get(i - from), d.tokenTexts()[i], d.logProbs()[i]);
      JsonArray alternatives = new JsonArray();
      if (ask.topLogprobs() > 0) {
        Top top = d.tops()[i];
        for (int j = 0; j < top.ids().length; j++) {
          alternatives.add(chatLogprob(new JsonPrimitive(ask.tokenIdStrings()
              ? "token_id:" + top.ids()[j] : top.texts()[j]), top.texts()[j], top.logProbs()[j]));
        }
      }
      t.add("top_logprobs", alternatives);
      content.add(t);
    }
    JsonObject lp = new JsonObject();
    lp.add("content", content);
    return lp;
  }

  /** The request's {@code usage}: the prompt once, the completion tokens of every choice. */
  static JsonObject usage(Done[] done) {
    int prompt = 0;
    int completion = 0;
    for (Done d : done) {
      if (d != null) {
        prompt = d.promptIds().length;
        completion += d.tokenIds().length;
      }
    }
    JsonObject usage = new JsonObject();
    usage.addProperty("prompt_tokens", prompt);
    usage.addProperty("completion_tokens", completion);
    usage.addProperty("total_tokens", prompt + completion);
    return usage;
  }

  /** A whole answer: {@code id}, {@code object}, {@code created}, {@code model}, the choices and the usage. */
  static JsonObject envelope(String id, String object, JsonArray choices, Done[] done) {
    JsonObject root = new JsonObject();
    root.addProperty("id", id);
    root.addProperty("object", object);
    root.addProperty("created", System.currentTimeMillis() / 1000);
    root.addProperty("model", done[0].model());
    root.add("choices", choices);
    root.add("usage", usage(done));
    return root;
  }

  private static JsonArray tokenStrings(Done d, int from, int to, boolean asIds) {
    JsonArray a = new JsonArray();
    for (int i = from; i < to; i++) {
      a.add(asIds ? "token_id:" + d.tokenIds()[i] : d.tokenTexts()[i]);
    }
    return a;
  }

  static String finish(FinishReason r) {
    return r == FinishReason.STOP ? "stop" : "length";
  }

  static JsonArray ints(int[] v, int from, int to) {
    JsonArray a = new JsonArray(to - from);
    for (int i = from; i < to; i++) {
      a.add(v[i]);
    }
    return a;
  }

  private static JsonArray floats(float[] v, int from, int to) {
    JsonArray a = new JsonArray(to - from);
    for (int i = from; i < to; i++) {
      a.add(v[i]);
    }
    return a;
  }
}
