package org.magejvm.impl.train.warmstart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Makes one cache entry at a time: a lock file locked by the operating system (other processes, for example two
 * comparisons started side by side on the same work directory) and a lock per file within this JVM (the operating
 * system's lock is held per process, so threads need their own). The lock file is deleted once the body has made the
 * entry, so the cache's directory holds no trace of it; a caller that was waiting then holds the lock of the deleted
 * file while a newcomer may lock a new one, which is safe because both find the entry made: callers must look for the
 * entry again under the lock before making it.
 */
final class CacheLock {

  private static final ConcurrentHashMap<Path, ReentrantLock> LOCAL = new ConcurrentHashMap<>();

  private CacheLock() {}

  /**
   * Runs a body while holding the lock of a file, waiting for another holder, in this JVM or another process, to
   * release it.
   *
   * @param lockFile the lock file (created with its folder when missing)
   * @param body what to run
   * @param <T> what it returns
   * @return what the body returned
   * @throws UncheckedIOException naming the file when it cannot be created or locked
   */
  @SuppressWarnings("try") // the lock is held by being open, never referenced
  static <T> T holding(Path lockFile, Supplier<T> body) {
    Path key = lockFile.toAbsolutePath().normalize();
    ReentrantLock local = LOCAL.computeIfAbsent(key, k -> new ReentrantLock());
    local.lock();
    try {
      Files.createDirectories(key.getParent());
      try (FileChannel channel = FileChannel.open(key, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock lock = channel.lock()) {
        T result = body.get();
        Files.deleteIfExists(key);
        return result;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + key + ": " + e.getMessage(), e);
    } finally {
      local.unlock();
    }
  }
}
