package org.magejvm.impl.train.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.magejvm.api.util.AtomicFiles;

/**
 * File helpers for checkpoints: listings, checksums, deletion. Forcing files and directories to disk, atomic renames
 * and atomic replacement of a file are {@link AtomicFiles}'s.
 */
@org.magejvm.api.annotation.Api(status = org.magejvm.api.annotation.Api.Status.INTERNAL)
public final class Durable {
  private Durable() {}

  /**
   * Every regular file under {@code dir}, sorted, as paths relative to {@code dir} with {@code /} separators.
   *
   * @param dir a directory
   * @return the relative paths
   * @throws IOException when the tree cannot be walked
   */
  public static List<String> files(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile).forEach(p -> out.add(dir.relativize(p).toString().replace('\\', '/')));
    }
    out.sort(null);
    return out;
  }

  /**
   * Every directory under {@code dir}, {@code dir} included, deepest first.
   *
   * @param dir a directory
   * @return the directories
   * @throws IOException when the tree cannot be walked
   */
  public static List<Path> directories(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isDirectory).forEach(out::add);
    }
    out.sort((a, b) -> Integer.compare(b.getNameCount(), a.getNameCount()));
    return out;
  }

  /**
   * The lower-case hex SHA-256 of a file's bytes.
   *
   * @param file a file
   * @return its digest
   * @throws IOException when it cannot be read
   */
  public static String sha256(Path file) throws IOException {
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
   * Deletes a file or a directory tree; a missing path is not an error.
   *
   * @param path what to delete
   * @throws IOException when something cannot be deleted
   */
  public static void deleteRecursively(Path path) throws IOException {
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
