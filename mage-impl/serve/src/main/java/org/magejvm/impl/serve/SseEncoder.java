package org.magejvm.impl.serve;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.io.IOException;
import org.magejvm.impl.http.HttpAnswer;
import org.magejvm.impl.serve.Job.Delta;
import org.magejvm.impl.serve.Job.Done;
import org.magejvm.impl.serve.Job.Started;

/**
 * Encodes a streamed answer as Server-Sent Events: a {@code data: {json}} chunk per event of the request's rows
 * ({@code text_completion} or {@code chat.completion.chunk}), the usage chunk when asked for, then {@code data:
 * [DONE]}.
 */
final class SseEncoder {

  private SseEncoder() {}

  /** The event of a failure: its error body, then the end of the stream. */
  static String error(HttpError e) {
    return "data: " + OpenAiJson.errorJson(e) + "\n\ndata: [DONE]\n\n";
  }

  /**
   * Writes the request's events as they come, from {@code first}, until every row is done or one failed.
   *
   * @param id the answer's id, the same in every chunk
   * @param created the answer's creation time in seconds, the same in every chunk
   */
  static void write(HttpAnswer.HttpStream out, Job job, Ask ask, boolean chat, String id, long created,
      Object first) throws IOException {
    String object = chat ? "chat.completion.chunk" : "text_completion";
    Done[] done = new Done[ask.n()];
    Started[] started = new Started[ask.n()];
    int[] sent = new int[ask.n()];
    int finished = 0;
    String model = null;
    for (Object e = first; ; e = job.next()) {
      if (e instanceof HttpError) {
        out.write("data: " + OpenAiJson.errorJson((HttpError) e) + "\n\n");
        out.write("data: [DONE]\n\n");
        return;
      }
      JsonObject choice;
      if (e instanceof Started) {
        Started s = (Started) e;
        started[s.index()] = s;
        model = s.model();
        if (!chat) {
          continue;
        }
        JsonObject delta = new JsonObject();
        delta.addProperty("role", "assistant");
        delta.addProperty("content", "");
        choice = chatChunkChoice(s.index(), delta, JsonNull.INSTANCE, null, null);
      } else if (e instanceof Delta) {
        Delta d = (Delta) e;
        Started s = started[d.index()];
        Done view = new Done(d.index(), d.text(), s.promptIds(), d.tokenIds(), d.logProbs(), d.tokenTexts(), d.tops(),
            null, null, s.model());
        choice = chunkChoice(view, d.text(), ask, chat, sent[d.index()] == 0 ? s.promptIds() : null);
        sent[d.index()] += d.tokenIds().length;
      } else {
        Done d = (Done) e;
        done[d.index()] = d;
        finished++;
        if (chat) {
          choice = chatChunkChoice(d.index(), new JsonObject(), JsonNull.INSTANCE, OpenAiJson.finish(d.finish()),
              d.stopReason());
        } else {
          choice = new JsonObject();
          choice.addProperty("index", d.index());
          choice.addProperty("text", "");
          choice.add("logprobs", JsonNull.INSTANCE);
          choice.addProperty("finish_reason", OpenAiJson.finish(d.finish()));
          choice.addProperty("stop_reason", d.stopReason());
        }
      }
      out.write(chunk(id, object, created, model, choice));
      if (finished == ask.n()) {
        break;
      }
    }
    if (ask.includeUsage()) {
      JsonObject root = chunkRoot(id, object, created, model);
      root.add("choices", new JsonArray());
      root.add("usage", OpenAiJson.usage(done));
      out.write("data: " + OpenAiJson.GSON.toJson(root) + "\n\n");
    }
    out.write("data: [DONE]\n\n");
  }

  /** A streamed part's choice: its text (as {@code text} or {@code delta.content}), tokens and log-probs. */
  private static JsonObject chunkChoice(Done view, String text, Ask ask, boolean chat, int[] promptIds) {
    JsonObject choice;
    int n = view.tokenIds().length;
    if (chat) {
      JsonObject delta = new JsonObject();
      delta.addProperty("content", text);
      choice = chatChunkChoice(view.index(), delta,
          ask.logprobs() ? OpenAiJson.chatLogprobs(view, 0, n, ask) : JsonNull.INSTANCE, null, null);
    } else {
      choice = OpenAiJson.completionChoice(view, text, 0, n, ask, false);
      choice.add("finish_reason", JsonNull.INSTANCE);
    }
    choice.add("token_ids", OpenAiJson.ints(view.tokenIds(), 0, n));
    if (promptIds != null) {
      choice.add("prompt_token_ids", OpenAiJson.ints(promptIds, 0, promptIds.length));
    }
    return choice;
  }

  private static JsonObject chatChunkChoice(int index, JsonObject delta, JsonElement logprobs, String finish,
      String stopReason) {
    JsonObject choice = new JsonObject();
    choice.addProperty("index", index);
    choice.add("delta", delta);
    choice.add("logprobs", logprobs);
    choice.addProperty("finish_reason", finish);
    if (finish != null) {
      choice.addProperty("stop_reason", stopReason);
    }
    return choice;
  }

  private static JsonObject chunkRoot(String id, String object, long created, String model) {
    JsonObject root = new JsonObject();
    root.addProperty("id", id);
    root.addProperty("object", object);
    root.addProperty("created", created);
    root.addProperty("model", model);
    return root;
  }

  /** One Server-Sent Event: {@code data: {json}} and a blank line; {@code null} fields are written as null. */
  private static String chunk(String id, String object, long created, String model, JsonObject choice) {
    JsonObject root = chunkRoot(id, object, created, model);
    JsonArray choices = new JsonArray();
    choices.add(choice);
    root.add("choices", choices);
    return "data: " + OpenAiJson.ERROR_GSON.toJson(root) + "\n\n";
  }
}
