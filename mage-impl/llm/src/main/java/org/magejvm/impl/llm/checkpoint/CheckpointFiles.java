package org.magejvm.impl.llm.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import org.magejvm.api.annotation.Api;

/**
 * Reads the small text files of a model directory ({@code config.json}, {@code tokenizer_config.json}, {@code
 * chat_template.jinja}, adapter configs) with a size cap, because a model directory is untrusted input: a file that
 * is a link to {@code /dev/zero}, a FIFO or a multi-gigabyte file must give a {@link CheckpointException}, not a hang
 * or an exhausted heap.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class CheckpointFiles {

  /** The largest JSON or template file read: 16 MiB (real ones are a few KB; tokenizer.json is streamed). */
  public static final long MAX_SMALL_FILE_BYTES = 16L << 20;

  private CheckpointFiles() {}

  /**
   * The error for a file that could not be found or read, telling a permission problem apart: when reading {@code
   * file} is denied (the file's mode, or a directory above it the process may not search), "permission denied:
   * PATH", else {@code otherwise}. A file in a directory without search permission looks absent to {@link
   * Files#exists}; this asks the file system instead.
   *
   * @param file the file
   * @param otherwise the message when reading is not denied
   * @return the exception to throw
   */
  public static CheckpointException notFound(Path file, String otherwise) {
    try {
      file.getFileSystem().provider().checkAccess(file, java.nio.file.AccessMode.READ);
    } catch (java.nio.file.AccessDeniedException e) {
      return permissionDenied(file, e);
    } catch (IOException e) {
      // absent or otherwise unreadable: the caller's message
    }
    return new CheckpointException(otherwise);
  }

  /**
   * A hint for a model file missing from a directory that is a training checkpoint ({@code mage train} writes the
   * model into its {@code weights} subdirectory, beside the optimizer and trainer state).
   *
   * @param file the missing file
   * @return "; DIR is a training checkpoint: its model is DIR/weights", or "" when the directory is not one
   */
  static String trainingCheckpointHint(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isRegularFile(dir.resolve("weights").resolve(file.getFileName()))) {
      return "";
    }
    return "; " + dir + " is a training checkpoint: its model is " + dir.resolve("weights");
  }

  /**
   * @param file the file whose reading was denied
   * @param cause the denial, or null
   * @return "permission denied: PATH"
   */
  public static CheckpointException permissionDenied(Path file, Throwable cause) {
    return new CheckpointException("permission denied: " + file, cause);
  }

  /**
   * Reads a small UTF-8 text file.
   *
   * @param file the file
   * @return its text
   * @throws CheckpointException naming the file when it is missing, not a regular file, larger than {@link
   *     #MAX_SMALL_FILE_BYTES}, unreadable or not UTF-8
   */
  public static String readSmallText(Path file) {
    if (!Files.exists(file)) {
      throw notFound(file, file.getFileName() + " not found: " + file + trainingCheckpointHint(file));
    }
    if (!Files.isRegularFile(file)) {
      throw new CheckpointException(file + " is not a regular file (a directory, device or pipe?)");
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes((int) MAX_SMALL_FILE_BYTES + 1);
      if (bytes.length > MAX_SMALL_FILE_BYTES) {
        throw new CheckpointException(file + " is larger than " + MAX_SMALL_FILE_BYTES + " bytes, the limit for "
            + "JSON and template files of a model directory");
      }
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (NoSuchFileException e) {
      throw new CheckpointException(file.getFileName() + " not found: " + file);
    } catch (java.nio.file.AccessDeniedException e) {
      throw permissionDenied(file, e);
    } catch (CharacterCodingException e) {
      throw new CheckpointException(file + " is not valid UTF-8 text", e);
    } catch (IOException e) {
      throw new CheckpointException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Refuses a JSON text in which an object holds the same key twice. JSON parsers disagree on duplicates (Gson and
   * Python keep the last, others the first or refuse), so a file with duplicates may mean one thing to the tool that
   * wrote or checked it and another to us. Walks the text iteratively, so deep nesting cannot overflow the stack.
   * Text that is not valid JSON is left to the caller's parser.
   *
   * @param json the JSON text
   * @param source the file name for messages
   * @throws CheckpointException naming the file, the key and the JSON path of its object when a key repeats
   */
  public static void requireNoDuplicateKeys(String json, String source) {
    Deque<Set<String>> objects = new ArrayDeque<>();
    try (JsonReader reader = new JsonReader(new StringReader(json))) {
      reader.setStrictness(com.google.gson.Strictness.LENIENT);
      while (true) {
        JsonToken token = reader.peek();
        switch (token) {
          case BEGIN_OBJECT -> {
            reader.beginObject();
            objects.push(new HashSet<>());
          }
          case END_OBJECT -> {
            reader.endObject();
            objects.pop();
          }
          case BEGIN_ARRAY -> reader.beginArray();
          case END_ARRAY -> reader.endArray();
          case NAME -> {
            String path = reader.getPath();
            String name = reader.nextName();
            Set<String> seen = objects.peek();
            if (seen != null && !seen.add(name)) {
              int dot = path.lastIndexOf('.');
              String parent = dot > 0 ? path.substring(0, dot) : "$";
              throw new CheckpointException(source + ": key '" + name + "' appears twice in the object at "
                  + parent + " (JSON readers disagree on which one counts)");
            }
          }
          case END_DOCUMENT -> {
            return;
          }
          default -> reader.skipValue();
        }
      }
    } catch (IOException | IllegalStateException | NumberFormatException e) {
      // not valid JSON: the caller's parser reports it
    }
  }
}
