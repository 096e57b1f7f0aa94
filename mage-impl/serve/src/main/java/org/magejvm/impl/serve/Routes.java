package org.magejvm.impl.serve;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.magejvm.impl.http.HttpAnswer;
import org.magejvm.impl.http.HttpCall;
import org.magejvm.impl.serve.Job.Done;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's HTTP handler: maps each path and method to its work (parse, queue, wait, encode) and every failure
 * to an OpenAI-style error answer.
 */
final class Routes {

  /** The server's log: what it writes is the same as before the server was split into classes. */
  private static final Logger LOG = LoggerFactory.getLogger(CompletionServer.class);

  private final String modelName;
  private final int contextLength;
  private final RequestParser parser;
  private final BatchScheduler scheduler;
  private final LoraEndpoints adapters;
  private final AtomicLong requestIds = new AtomicLong();

  Routes(String modelName, int contextLength, RequestParser parser, BatchScheduler scheduler,
      LoraEndpoints adapters) {
    this.modelName = modelName;
    this.contextLength = contextLength;
    this.parser = parser;
    this.scheduler = scheduler;
    this.adapters = adapters;
  }

  /** Answers one request (the {@link org.magejvm.impl.http.JsonHttpServer.Handler}). */
  HttpAnswer handle(HttpCall call) {
    try {
      return route(call);
    } catch (HttpError e) {
      return OpenAiJson.errorAnswer(e);
    } catch (RuntimeException | StackOverflowError e) {
      LOG.error("request {} {} failed", call.method(), call.path(), e);
      return OpenAiJson.errorAnswer(new HttpError(500, "server_error", null, null, "internal error: " + e));
    }
  }

  private HttpAnswer route(HttpCall call) {
    String path = call.path();
    String method = call.method().toUpperCase(Locale.ROOT);
    switch (path) {
      case "/health":
        requireMethod(method, "GET");
        return OpenAiJson.json(200, health());
      case "/v1/models":
        requireMethod(method, "GET");
        return OpenAiJson.json(200, models());
      case "/v1/completions":
        requireMethod(method, "POST");
        return completions(RequestParser.readJson(call));
      case "/v1/chat/completions":
        requireMethod(method, "POST");
        return chatCompletions(RequestParser.readJson(call));
      case "/v1/load_lora_adapter":
      case "/v1/unload_lora_adapter":
        if (!adapters.enabled()) {
          throw new HttpError(404, "not_found_error", null, "unknown_path", "no route " + path + ": runtime LoRA"
              + " loading is off; start the server with --enable-lora");
        }
        requireMethod(method, "POST");
        return HttpAnswer.text(200, path.equals("/v1/load_lora_adapter")
            ? adapters.load(RequestParser.readJson(call)) : adapters.unload(RequestParser.readJson(call)));
      default:
        throw new HttpError(404, "not_found_error", null, "unknown_path", "no route " + path
            + "; this server has POST /v1/completions, POST /v1/chat/completions, GET /v1/models, GET /health"
            + (adapters.enabled() ? ", POST /v1/load_lora_adapter, POST /v1/unload_lora_adapter" : ""));
    }
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw new HttpError(405, "invalid_request_error", null, "method_not_allowed", "method " + method
          + " not allowed here; use " + expected);
    }
  }

  private JsonObject health() {
    JsonObject o = new JsonObject();
    o.addProperty("status", scheduler.isRunning() ? "ok" : "shutting_down");
    o.addProperty("model", modelName);
    o.addProperty("queued", scheduler.queued());
    return o;
  }

  private JsonObject models() {
    JsonObject card = new JsonObject();
    card.addProperty("id", modelName);
    card.addProperty("object", "model");
    card.addProperty("created", 0);
    card.addProperty("owned_by", "mage");
    if (contextLength != Integer.MAX_VALUE) {
      card.addProperty("max_model_len", contextLength);
    }
    JsonArray data = new JsonArray();
    data.add(card);
    for (LoraEndpoints.Served a : adapters.loaded()) {
      JsonObject c = new JsonObject();
      c.addProperty("id", a.name);
      c.addProperty("object", "model");
      c.addProperty("created", 0);
      c.addProperty("owned_by", "mage");
      c.addProperty("root", a.path);
      c.addProperty("parent", modelName);
      data.add(c);
    }
    JsonObject o = new JsonObject();
    o.addProperty("object", "list");
    o.add("data", data);
    return o;
  }

  // ---------------------------------------------------------------- the two generation endpoints

  private HttpAnswer completions(JsonObject o) {
    RequestParser.Request request = parser.completion(o);
    Ask ask = request.ask();
    Job job = scheduler.submit(request.prompt(), ask);
    if (ask.stream()) {
      return stream(job, ask, false);
    }
    Done[] done = job.awaitAll();
    JsonArray choices = new JsonArray();
    for (Done d : done) {
      choices.add(OpenAiJson.completionChoice(d, d.text(), 0, d.tokenIds().length, ask, true));
    }
    return OpenAiJson.json(200, OpenAiJson.envelope("cmpl-" + requestIds.incrementAndGet(), "text_completion",
        choices, done));
  }

  private HttpAnswer chatCompletions(JsonObject o) {
    RequestParser.Request request = parser.chat(o);
    Ask ask = request.ask();
    Job job = scheduler.submit(request.prompt(), ask);
    if (ask.stream()) {
      return stream(job, ask, true);
    }
    Done[] done = job.awaitAll();
    JsonArray choices = new JsonArray();
    for (Done d : done) {
      choices.add(OpenAiJson.chatChoice(d, ask));
    }
    return OpenAiJson.json(200, OpenAiJson.envelope("chatcmpl-" + requestIds.incrementAndGet(), "chat.completion",
        choices, done));
  }

  /**
   * Waits for the request's first row to be taken into a batch (so that a prompt the generation thread refuses is
   * still an ordinary JSON error with its status), then answers 200 {@code text/event-stream} and writes each part
   * as the generation thread hands it over. When the client goes away the write fails and the request's rows are
   * cancelled: the generation thread drops them from their batch at the next token.
   */
  private HttpAnswer stream(Job job, Ask ask, boolean chat) {
    Object first = job.next();
    if (first instanceof HttpError) {
      job.cancel();
      throw (HttpError) first;
    }
    String id = (chat ? "chatcmpl-" : "cmpl-") + requestIds.incrementAndGet();
    long created = System.currentTimeMillis() / 1000;
    return HttpAnswer.stream(200, "text/event-stream; charset=utf-8", out -> {
      try {
        SseEncoder.write(out, job, ask, chat, id, created, first);
      } catch (HttpError e) {
        // the server is shutting down (the handler was interrupted): say so if the client still listens
        out.write(SseEncoder.error(e));
      } finally {
        job.cancel();
      }
    });
  }
}
