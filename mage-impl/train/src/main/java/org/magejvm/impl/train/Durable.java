package org.magejvm.impl.train;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/** File helpers for crash-safe writes: fsync of files and directories, atomic replacement, checksums, deletion. */
final class Durable {
  private Durable() {}

  /** Flushes a file's content (or a directory's entries) to the storage device. */
  static void fsync(Path path) throws IOException {
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

  /** Every regular file under {@code dir}, sorted, as paths relative to {@code dir} with {@code /} separators. */
  static List<String> files(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile).forEach(p -> out.add(dir.relativize(p).toString().replace('\\', '/')));
    }
    out.sort(null);
    return out;
  }

  /** Every directory under {@code dir}, {@code dir} included, deepest first. */
  static List<Path> directories(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isDirectory).forEach(out::add);
    }
    out.sort((a, b) -> Integer.compare(b.getNameCount(), a.getNameCount()));
    return out;
  }

  /** The lower-case hex SHA-256 of a file's bytes. */
  static String sha256(Path file) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        md.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  /**
   * Replaces {@code target} by a file holding {@code bytes}: written to a temporary sibling, forced to disk, renamed
   * over the target atomically, and the directory entry forced too.
   */
  static void writeAtomically(Path target, byte[] bytes) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
          out.write(b);
        }
        out.force(true);
      }
      move(tmp, target);
      fsync(dir);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Renames atomically where the file system can, replacing a regular file at the target. */
  static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Deletes a file or a directory tree; a missing path is not an error. */
  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    Files.walkFileTree(path, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
        if (exc != null) {
          throw exc;
        }
        Files.delete(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
