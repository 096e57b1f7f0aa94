package org.magejvm.impl.train.listen;

import org.magejvm.impl.train.common.ConfigJson;
import org.magejvm.impl.train.MageTrainer;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.util.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * Writes {@code RUN_DIR/metrics.jsonl}: one JSON object per iteration (the map {@link MageTrainer} reports, starting
 * with {@code iteration}), each line written in one piece, flushed and forced to disk before the trainer goes on.
 *
 * <p>Resuming: when the first iteration starts, lines of that iteration or later (written by a run that was killed
 * after its last checkpoint) and a torn last line are dropped, so the file holds every iteration exactly once.
 * Add this listener before any listener that reads the file ({@link ChartListener}).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class MetricsFileListener implements TrainingListener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsFileListener.class);

  /** The file name in the run directory. */
  public static final String FILE_NAME = "metrics.jsonl";

  private final Path file;
  private FileChannel out;

  /**
   * @param runDirectory the run directory (created when the first line is written)
   */
  public MetricsFileListener(Path runDirectory) {
    this.file = Objects.requireNonNull(runDirectory, "runDirectory").resolve(FILE_NAME);
  }

  /** @return the metrics file */
  public Path file() {
    return file;
  }

  @Override
  public void onIterationStart(int iteration, int total) {
    if (out == null) {
      open(iteration);
    }
  }

  @Override
  public void onIterationEnd(int iteration, Map<String, Object> metrics) {
    if (out == null) {
      open(iteration);
    }
    byte[] line = (ConfigJson.COMPACT.toJson(metrics) + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      ByteBuffer b = ByteBuffer.wrap(line);
      while (b.hasRemaining()) {
        out.write(b);
      }
      out.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append iteration " + iteration + " to " + file + ": " + e.getMessage(),
          e);
    }
  }

  /** Keeps the lines of iterations before {@code start}, then opens the file for appending. */
  private void open(int start) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      if (Files.exists(file)) {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        StringBuilder kept = new StringBuilder();
        int dropped = 0;
        for (String line : lines) {
          int it = iterationOf(line);
          if (it >= 0 && it < start) {
            kept.append(line).append('\n');
          } else if (!line.isBlank()) {
            dropped++;
          }
        }
        if (dropped > 0) {
          LOG.info("{}: dropped {} line(s) of iteration {} or later (or torn), written after the checkpoint the run"
              + " resumes from", file, dropped, start);
          AtomicFiles.write(file, kept.toString().getBytes(StandardCharsets.UTF_8));
        }
      }
      out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The iteration of a metrics line.
   *
   * @param line a line of {@code metrics.jsonl}
   * @return its {@code iteration}, or -1 for a line that is not a complete object with one
   */
  public static int iterationOf(String line) {
    try {
      JsonElement e = JsonParser.parseString(line);
      if (!e.isJsonObject()) {
        return -1;
      }
      JsonObject o = e.getAsJsonObject();
      JsonElement it = o.get("iteration");
      return it != null && it.isJsonPrimitive() && it.getAsJsonPrimitive().isNumber() ? it.getAsInt() : -1;
    } catch (JsonParseException | NumberFormatException | IllegalStateException e) {
      return -1;
    }
  }

  /** Closes the file. Idempotent. */
  @Override
  public void close() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        LOG.warn("cannot close {}: {}", file, e.getMessage());
      }
      out = null;
    }
  }
}
