package org.magejvm.impl.train.supervised;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.magejvm.impl.llm.text.ChatMessage;

/**
 * Reads chat transcripts in the Hugging Face JSON-lines {@code messages} format: one JSON object per line,
 * {@code {"messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}]}}.
 *
 * <p>Fields other than {@code messages}, {@code role} and {@code content} (an {@code id}, a {@code source}, a
 * message's {@code name}) are ignored. Blank lines are skipped, and a byte-order mark at the start of the file is
 * ignored. Everything else that is wrong fails with a {@link TranscriptFormatException} naming the file and line: a
 * line that is not a JSON object, a missing or non-array {@code messages}, a message without a string {@code role}
 * or {@code content}, or a role other than system, user, assistant and tool.
 */
public final class TranscriptReader {

  private TranscriptReader() {}

  /**
   * Reads a whole file (UTF-8).
   *
   * @param file the JSON-lines file
   * @return the transcripts, in file order
   * @throws TranscriptFormatException naming the file and line of the first malformed record
   * @throws UncheckedIOException when the file cannot be read
   */
  public static List<Transcript> read(Path file) {
    Objects.requireNonNull(file, "file");
    List<Transcript> out = new ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int number = 0;
      while ((line = reader.readLine()) != null) {
        number++;
        if (number == 1 && line.startsWith("\uFEFF")) {
          line = line.substring(1);
        }
        if (line.isBlank()) {
          continue;
        }
        out.add(parse(line, file, number));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read transcripts from " + file + ": " + e.getMessage(), e);
    }
    return out;
  }

  /**
   * Parses one record.
   *
   * @param json the line's text
   * @param file the file it comes from, for messages
   * @param line its line number (from 1), for messages
   * @return the transcript
   * @throws TranscriptFormatException naming the file and line when the record is malformed
   */
  public static Transcript parse(String json, Path file, int line) {
    JsonElement root;
    try {
      root = JsonParser.parseString(json);
    } catch (JsonParseException e) {
      throw new TranscriptFormatException(file, line, "not valid JSON: " + e.getMessage(), e);
    }
    if (!root.isJsonObject()) {
      throw new TranscriptFormatException(file, line, "expected a JSON object with a \"messages\" array", null);
    }
    JsonElement messages = root.getAsJsonObject().get("messages");
    if (messages == null || !messages.isJsonArray()) {
      throw new TranscriptFormatException(file, line, "field \"messages\" is missing or not an array", null);
    }
    JsonArray array = messages.getAsJsonArray();
    List<ChatMessage> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonElement e = array.get(i);
      if (!e.isJsonObject()) {
        throw new TranscriptFormatException(file, line, "message " + i + " is not a JSON object", null);
      }
      JsonObject m = e.getAsJsonObject();
      String role = stringField(m, "role", i, file, line);
      String content = stringField(m, "content", i, file, line);
      if (!Transcript.ROLES.contains(role)) {
        throw new TranscriptFormatException(file, line, "message " + i + " has role '" + role
            + "'; expected one of system, user, assistant, tool", null);
      }
      out.add(new ChatMessage(role, content));
    }
    try {
      return new Transcript(out);
    } catch (IllegalArgumentException e) {
      throw new TranscriptFormatException(file, line, e.getMessage(), e);
    }
  }

  private static String stringField(JsonObject m, String name, int index, Path file, int line) {
    JsonElement e = m.get(name);
    if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
      throw new TranscriptFormatException(file, line, "message " + index + " has no string \"" + name + "\""
          + (e == null ? "" : " (got " + e + ")"), null);
    }
    return e.getAsString();
  }
}
