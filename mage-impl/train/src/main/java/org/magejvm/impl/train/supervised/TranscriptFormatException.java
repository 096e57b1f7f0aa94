package org.magejvm.impl.train.supervised;

import java.nio.file.Path;

/** A line of a transcript file is not a valid {@code messages} record; the message names the file and line. */
public class TranscriptFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The file, as a string (paths are not serializable). */
  private final String file;
  /** The line, counted from 1. */
  private final int line;

  /**
   * @param file the file
   * @param line the line number, counted from 1
   * @param problem what is wrong with the line
   * @param cause the underlying error, or null
   */
  public TranscriptFormatException(Path file, int line, String problem, Throwable cause) {
    super(file + ":" + line + ": " + problem, cause);
    this.file = String.valueOf(file);
    this.line = line;
  }

  /** @return the file, as given to the reader */
  public String file() {
    return file;
  }

  /** @return the line number, counted from 1 */
  public int line() {
    return line;
  }
}
