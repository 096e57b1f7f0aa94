package org.magejvm.impl.train.supervised;

import com.google.gson.stream.JsonWriter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.Objects;
import org.magejvm.api.util.AtomicFiles;
import org.magejvm.impl.llm.text.ChatMessage;

/**
 * Writes chat transcripts in the Hugging Face JSON-lines {@code messages} format that {@link TranscriptReader}
 * reads: one {@code {"messages":[{"role":...,"content":...},...]}} object per line, UTF-8, with {@code <} and
 * {@code >} left as they are (chat markup stays readable).
 *
 * <p>{@link #write(Path, Collection)} replaces a file atomically; {@link #append(Path)} opens a writer that adds
 * one line per {@link #write(Transcript)}, for recording transcripts as they are produced.
 */
public final class TranscriptWriter implements AutoCloseable {
  private final Path file;
  private final BufferedWriter out;

  private TranscriptWriter(Path file, BufferedWriter out) {
    this.file = file;
    this.out = out;
  }

  /**
   * The JSON line of a transcript, without the line break.
   *
   * @param transcript the transcript
   * @return one line of JSON
   */
  public static String toJsonLine(Transcript transcript) {
    Objects.requireNonNull(transcript, "transcript");
    StringWriter text = new StringWriter();
    try (JsonWriter json = new JsonWriter(text)) {
      json.setHtmlSafe(false);
      json.beginObject();
      json.name("messages").beginArray();
      for (ChatMessage m : transcript.messages()) {
        json.beginObject().name("role").value(m.role()).name("content").value(m.content()).endObject();
      }
      json.endArray();
      json.endObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return text.toString();
  }

  /**
   * Writes transcripts to a file, replacing it atomically (a temporary file in the same directory is renamed).
   *
   * @param file the file (its directory is created if needed)
   * @param transcripts the transcripts, in order
   * @throws UncheckedIOException naming the file when writing fails
   */
  public static void write(Path file, Collection<Transcript> transcripts) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(transcripts, "transcripts");
    Path dir = file.toAbsolutePath().getParent();
    try {
      Files.createDirectories(dir);
      StringBuilder text = new StringBuilder();
      for (Transcript t : transcripts) {
        text.append(toJsonLine(t)).append('\n');
      }
      AtomicFiles.writeString(file, text.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write transcripts to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Opens a file for appending transcripts (created if missing, with its directory).
   *
   * @param file the file
   * @return the writer; close it when done
   * @throws UncheckedIOException naming the file when it cannot be opened
   */
  public static TranscriptWriter append(Path file) {
    Objects.requireNonNull(file, "file");
    try {
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      return new TranscriptWriter(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + file + " for appending: " + e.getMessage(), e);
    }
  }

  /**
   * Appends one transcript as a line and flushes it.
   *
   * @param transcript the transcript
   * @throws UncheckedIOException naming the file when writing fails
   */
  public void write(Transcript transcript) {
    String line = toJsonLine(transcript);
    try {
      out.write(line);
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + file + ": " + e.getMessage(), e);
    }
  }

  /** Closes the file. */
  @Override
  public void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
    }
  }
}
