package org.magejvm.impl.llm.checkpoint;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Temporary files for atomic writes (write, then rename over the target). Unlike {@link Files#createTempFile}, which
 * makes files readable by their owner only (mode 0600), these get the permissions the process's umask gives any new
 * file, so a checkpoint or transcript written by one user or service can be read by another, as with every other
 * tool that writes model files.
 */
public final class TempFiles {
  private static final SecureRandom RANDOM = new SecureRandom();

  private TempFiles() {}

  /**
   * Creates an empty, uniquely named hidden file next to {@code target}, to be renamed over it.
   *
   * @param target the file the temporary file will replace
   * @return the new temporary file, in the target's directory
   * @throws IOException when the directory cannot be written
   */
  public static Path sibling(Path target) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    while (true) {
      Path tmp = dir.resolve("." + target.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
      try {
        return Files.createFile(tmp);
      } catch (FileAlreadyExistsException e) {
        // another writer drew the same name: draw again
      }
    }
  }
}
