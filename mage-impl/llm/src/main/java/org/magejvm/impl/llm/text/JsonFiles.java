package org.magejvm.impl.llm.text;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/** Reads the small JSON files of a checkpoint, with errors that name the file and field. */
final class JsonFiles {

  private JsonFiles() {}

  /**
   * Reads a JSON object file.
   *
   * @param file the file
   * @return its top-level object
   * @throws CheckpointException when the file is missing, unreadable, not JSON, or not an object
   */
  static JsonObject readObject(Path file) {
    String text = org.magejvm.impl.llm.checkpoint.CheckpointFiles.readSmallText(file);
    JsonElement root;
    try {
      root = JsonParser.parseString(text);
    } catch (JsonParseException e) {
      throw new CheckpointException(file + " is not valid JSON: " + e.getMessage(), e);
    }
    if (!root.isJsonObject()) {
      throw new CheckpointException(file + " must hold a JSON object at the top level");
    }
    org.magejvm.impl.llm.checkpoint.CheckpointFiles.requireNoDuplicateKeys(text, file.toString());
    return root.getAsJsonObject();
  }

  /** @return the object, or empty when the file does not exist */
  static Optional<JsonObject> readOptionalObject(Path file) {
    return Files.exists(file) ? Optional.of(readObject(file)) : Optional.empty();
  }

  /**
   * A token field that may be a plain string or an added-token object ({@code {"content": ...}}).
   *
   * @return the token text, or empty when the field is absent or null
   */
  static Optional<String> tokenField(JsonObject o, String field, Path file) {
    JsonElement e = o.get(field);
    if (e == null || e.isJsonNull()) {
      return Optional.empty();
    }
    if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()) {
      return Optional.of(e.getAsString());
    }
    if (e.isJsonObject() && e.getAsJsonObject().has("content")
        && e.getAsJsonObject().get("content").isJsonPrimitive()) {
      return Optional.of(e.getAsJsonObject().get("content").getAsString());
    }
    throw new CheckpointException(file + ": field '" + field + "' must be a string or a token object with "
        + "'content', got " + e);
  }

  /**
   * A token-id field that may be an integer, a list of integers, or null.
   *
   * @return the ids, empty when the field is absent or null
   */
  static List<Integer> idsField(JsonObject o, String field, Path file) {
    JsonElement e = o.get(field);
    List<Integer> out = new ArrayList<>();
    if (e == null || e.isJsonNull()) {
      return out;
    }
    List<JsonElement> items = new ArrayList<>();
    if (e.isJsonArray()) {
      e.getAsJsonArray().forEach(items::add);
    } else {
      items.add(e);
    }
    for (JsonElement item : items) {
      if (!item.isJsonPrimitive() || !item.getAsJsonPrimitive().isNumber()) {
        throw new CheckpointException(file + ": field '" + field + "' must be an integer or a list of integers, "
            + "got " + e);
      }
      double d = item.getAsDouble();
      if (d != Math.rint(d) || d < 0 || d > Integer.MAX_VALUE) {
        throw new CheckpointException(file + ": field '" + field + "' holds " + item
            + ", which is not a valid token id");
      }
      out.add((int) d);
    }
    return out;
  }
}
