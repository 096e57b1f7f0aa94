package org.magejvm.impl.openai;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.Locale;

/** Reads the error message out of an OpenAI-style error body (or a flat vLLM or FastAPI one). */
final class ErrorBodies {
  private static final int MAX_SHOWN = 500;

  private ErrorBodies() {}

  /** An error body's message, param and code; each may be null. */
  record Error(String message, String param, String code) {

    /** @return whether the server rejected the prompt itself (too long for the context or for the body limit) */
    boolean promptRejected(int status) {
      if (status == 413) {
        return true;
      }
      if (status != 400) {
        return false;
      }
      String m = message == null ? "" : message.toLowerCase(Locale.ROOT);
      return "context_length_exceeded".equals(code) || "prompt".equals(param)
          || m.contains("maximum context length") || m.contains("context length");
    }
  }

  /**
   * @param body the response body
   * @return the error; the message falls back to the body itself, shortened, when it is not an error object
   */
  static Error parse(String body) {
    String b = body == null ? "" : body;
    try {
      JsonElement root = JsonParser.parseString(b);
      if (root.isJsonObject()) {
        JsonObject o = root.getAsJsonObject();
        JsonObject err = o.has("error") && o.get("error").isJsonObject() ? o.getAsJsonObject("error") : o;
        String message = string(err, "message");
        if (message == null && o.has("detail")) {
          message = o.get("detail").toString(); // FastAPI validation errors
        }
        if (message == null && o.has("error") && o.get("error").isJsonPrimitive()) {
          message = o.get("error").getAsString();
        }
        if (message != null) {
          return new Error(shorten(message), string(err, "param"), string(err, "code"));
        }
      }
    } catch (RuntimeException notJson) {
      // fall through: show the body as it is
    }
    return new Error(b.isBlank() ? "(empty body)" : shorten(b.strip()), null, null);
  }

  private static String string(JsonObject o, String key) {
    JsonElement e = o.get(key);
    return e == null || e.isJsonNull() ? null : e.isJsonPrimitive() ? e.getAsString() : e.toString();
  }

  static String shorten(String s) {
    return s.length() <= MAX_SHOWN ? s : s.substring(0, MAX_SHOWN) + "... (" + s.length() + " chars)";
  }
}
