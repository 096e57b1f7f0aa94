package org.magejvm.api.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * Crash-safe replacement of files: the content goes to a hidden temporary sibling of the target, is forced to the
 * storage device, and the sibling is renamed over the target (atomically where the file system can), after which the
 * directory entry is forced too. A reader, or a process that starts after a crash, sees either the old file or the
 * new one, never a mix; a failed write leaves the old file as it was and no temporary file behind.
 *
 * <p>Unlike {@link Files#createTempFile}, which makes files readable by their owner only (mode 0600), the temporary
 * files get the permissions the process's umask gives any new file, so a checkpoint or transcript written by one user
 * or service can be read by another, as with every other tool that writes model files.
 */
@Api(status = Api.Status.INTERNAL)
public final class AtomicFiles {
  private static final SecureRandom RANDOM = new SecureRandom();

  private AtomicFiles() {}

  /** Writes the content of a file being replaced, into the temporary file's channel. */
  @FunctionalInterface
  public interface Content {
    /**
     * Writes the whole content. The channel is forced and closed afterwards by {@link AtomicFiles}; do not close it.
     *
     * @param out the temporary file, empty, positioned at its start
     * @throws IOException when writing fails: the target is left as it was
     */
    void writeTo(FileChannel out) throws IOException;
  }

  /**
   * Replaces {@code target} by a file holding {@code bytes}, crash-safely.
   *
   * @param target the file to write; its directory must exist
   * @param bytes the new content
   * @throws IOException when the file cannot be written; the target then keeps its old content (or stays absent)
   */
  public static void write(Path target, byte[] bytes) throws IOException {
    Objects.requireNonNull(bytes, "bytes");
    write(target, out -> {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        out.write(b);
      }
    });
  }

  /**
   * Replaces {@code target} by a file holding {@code text} in UTF-8, crash-safely.
   *
   * @param target the file to write; its directory must exist
   * @param text the new content
   * @throws IOException when the file cannot be written; the target then keeps its old content (or stays absent)
   */
  public static void writeString(Path target, String text) throws IOException {
    write(target, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Replaces {@code target} by a file whose content {@code content} writes, crash-safely: for content too large to
   * hold in memory.
   *
   * @param target the file to write; its directory must exist
   * @param content writes the new content
   * @throws IOException when the file cannot be written (or {@code content} fails); the target then keeps its old
   *     content (or stays absent)
   */
  public static void write(Path target, Content content) throws IOException {
    Objects.requireNonNull(content, "content");
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = tempSibling(target);
    try {
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        content.writeTo(out);
        out.force(true);
      }
      move(tmp, target);
      fsync(dir);
    } catch (Throwable t) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException e) {
        t.addSuppressed(e);
      }
      throw t;
    }
  }

  /**
   * Creates an empty, uniquely named hidden directory next to {@code target} ({@code .<name>.<random>.tmp}), to be
   * filled and renamed into place, with the permissions the umask gives any new directory. {@link
   * Files#createTempDirectory} would make it readable by its owner only (mode 0700), and the rename keeps that mode,
   * so a directory installed that way could not be read by another user or service.
   *
   * @param target the directory the temporary directory will become
   * @return the new temporary directory, in the target's parent
   * @throws IOException when the parent cannot be written
   */
  public static Path tempSiblingDirectory(Path target) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    while (true) {
      Path tmp = dir.resolve("." + target.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
      try {
        return Files.createDirectory(tmp);
      } catch (FileAlreadyExistsException e) {
        // another writer drew the same name: draw again
      }
    }
  }

  /**
   * Creates an empty, uniquely named hidden file next to {@code target} ({@code .<name>.<random>.tmp}), to be renamed
   * over it, with the permissions the umask gives any new file.
   *
   * @param target the file the temporary file will replace
   * @return the new temporary file, in the target's directory
   * @throws IOException when the directory cannot be written
   */
  public static Path tempSibling(Path target) throws IOException {
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

  /**
   * Renames {@code from} to {@code to}, atomically where the file system can (a plain rename where it cannot),
   * replacing a regular file or an empty directory at the target. Works for directories as well as files.
   *
   * @param from the file or directory to move
   * @param to its new path
   * @throws IOException when the rename fails
   */
  public static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * Flushes a file's content (or a directory's entries) to the storage device. A directory on a file system that
   * cannot open directories is skipped (the rename is still atomic there).
   *
   * @param path a file or directory
   * @throws IOException when the flush fails
   */
  public static void fsync(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
        ch.force(true);
      } catch (IOException e) {
        // some file systems do not allow opening a directory; the rename is still atomic there
        if (!(e.getMessage() != null && e.getMessage().contains("Is a directory"))) {
          throw e;
        }
      }
      return;
    }
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
