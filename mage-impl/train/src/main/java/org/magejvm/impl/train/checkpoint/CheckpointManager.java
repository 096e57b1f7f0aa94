package org.magejvm.impl.train.checkpoint;

import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.common.ConfigJson;
import org.magejvm.impl.train.common.TrainingException;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.magejvm.api.util.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * Writes {@link TrainingCheckpoint}s of a run every k iterations (and when asked, for example at the end), each
 * atomically, and keeps the last N plus the best by a validation metric.
 *
 * <p>A checkpoint is written into a temporary sibling directory ({@code .tmp-iter-NNNNNNNN-<random>}): weights,
 * optimizer state, state file, then the manifest of checksums; every file and directory is forced to disk, and the
 * directory is renamed to {@code iter-NNNNNNNN} in one atomic step. A crash or a failed write (a full disk) leaves
 * the earlier checkpoints as they were and at worst a temporary directory, which the next manager on the same
 * directory deletes (or, when it is complete and verifies but was not renamed yet, puts in place). Old checkpoints
 * are removed only after the new one is in place.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class CheckpointManager {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointManager.class);

  /** The file in the checkpoints directory naming the best checkpoint so far. */
  public static final String BEST_FILE = "best.json";
  static final String TMP_PREFIX = ".tmp-";
  static final String TRASH_PREFIX = ".trash-";
  static final String OLD_PREFIX = ".old-";

  /**
   * What a checkpoint records besides weights and optimizer state.
   *
   * @param iteration the number of iterations done
   * @param seed the run's base seed
   * @param environmentId the environment trained on
   * @param environmentVersion its version
   * @param configuration the trainer's full configuration
   * @param metrics the metrics of the last iteration (may be empty)
   * @param optimizer the optimizer whose state is saved
   * @param anchorScoresHeld whether the policy updater holds the anchors' scores on these weights, so that its next
   *     update does not score them ({@code updater.anchor_scores_held} in the state file; a resume scores them again
   *     without counting it in the update's metrics)
   */
  public record Snapshot(int iteration, long seed, String environmentId, String environmentVersion,
      JsonObject configuration, Map<String, Object> metrics, AdamW optimizer, boolean anchorScoresHeld) {

    /**
     * Validates.
     *
     * @param iteration iterations done
     * @param seed seed
     * @param environmentId environment id
     * @param environmentVersion environment version
     * @param configuration configuration
     * @param metrics last metrics
     * @param optimizer optimizer
     * @param anchorScoresHeld whether the updater holds the anchors' scores
     */
    public Snapshot {
      if (iteration < 0) {
        throw new IllegalArgumentException("iteration must be >= 0, got " + iteration);
      }
      Objects.requireNonNull(environmentId, "environmentId");
      Objects.requireNonNull(environmentVersion, "environmentVersion");
      Objects.requireNonNull(configuration, "configuration");
      Objects.requireNonNull(metrics, "metrics");
      Objects.requireNonNull(optimizer, "optimizer");
    }

    /**
     * A snapshot whose updater holds no anchor scores.
     *
     * @param iteration iterations done
     * @param seed seed
     * @param environmentId environment id
     * @param environmentVersion environment version
     * @param configuration configuration
     * @param metrics last metrics
     * @param optimizer optimizer
     */
    public Snapshot(int iteration, long seed, String environmentId, String environmentVersion,
        JsonObject configuration, Map<String, Object> metrics, AdamW optimizer) {
      this(iteration, seed, environmentId, environmentVersion, configuration, metrics, optimizer, false);
    }
  }

  private final Path directory;
  private final CheckpointWeights weights;
  private final int every;
  private final int keepLast;
  private final String bestMetric;
  private final JsonObject runConfiguration;

  private CheckpointManager(Builder b) {
    directory = b.directory;
    weights = b.weights;
    every = b.every;
    keepLast = b.keepLast;
    bestMetric = b.bestMetric;
    runConfiguration = b.runConfiguration.deepCopy();
    removeLeftovers();
  }

  /** @return the directory holding the {@code iter-*} checkpoints */
  public Path directory() {
    return directory;
  }

  /** @return the weights this manager saves and restores */
  public CheckpointWeights weights() {
    return weights;
  }

  /** @return the interval in iterations (0: only when asked) */
  public int every() {
    return every;
  }

  /** @return the metric the best checkpoint is chosen by (higher is better), if any */
  public Optional<String> bestMetric() {
    return Optional.ofNullable(bestMetric);
  }

  /**
   * @param iterationsDone the number of iterations done
   * @return whether a checkpoint is due now ({@code iterationsDone} is a positive multiple of {@link #every()})
   */
  public boolean due(int iterationsDone) {
    return every > 0 && iterationsDone > 0 && iterationsDone % every == 0;
  }

  /** @return the complete checkpoints, by iteration count */
  public Map<Integer, Path> checkpoints() {
    return TrainingCheckpoint.list(directory);
  }

  /** @return the latest complete checkpoint, if any */
  public Optional<Path> latest() {
    return checkpoints().values().stream().reduce((a, b) -> b);
  }

  /**
   * @return the checkpoint with the highest {@link #bestMetric()} among those written right after a validation
   *     (the latest one on ties), if any
   */
  public Optional<Path> best() {
    if (bestMetric == null) {
      return Optional.empty();
    }
    Path best = null;
    double bestValue = Double.NEGATIVE_INFINITY;
    for (Path p : checkpoints().values()) {
      Double v = metricOf(p);
      if (v != null && !v.isNaN() && v >= bestValue) {
        bestValue = v;
        best = p;
      }
    }
    return Optional.ofNullable(best);
  }

  private Double metricOf(Path checkpoint) {
    try {
      JsonObject state = TrainingCheckpoint.readJson(checkpoint.resolve(TrainingCheckpoint.STATE_FILE));
      JsonObject m = state.has("metrics") && state.get("metrics").isJsonObject()
          ? state.getAsJsonObject("metrics") : new JsonObject();
      return m.has(bestMetric) && m.get(bestMetric).isJsonPrimitive()
          && m.get(bestMetric).getAsJsonPrimitive().isNumber() ? m.get(bestMetric).getAsDouble() : null;
    } catch (TrainingException e) {
      LOG.warn("ignoring checkpoint {} when choosing the best one: {}", checkpoint, e.getMessage());
      return null;
    }
  }

  /**
   * Writes a checkpoint atomically, then removes checkpoints beyond the last {@code keepLast} (never the best one)
   * and updates {@value #BEST_FILE}.
   *
   * @param snapshot what to record
   * @return the new checkpoint directory
   * @throws TrainingException naming the checkpoint and the cause when writing fails; earlier checkpoints are
   *     untouched then
   */
  public Path save(Snapshot snapshot) {
    String name = TrainingCheckpoint.directoryName(snapshot.iteration());
    Path target = directory.resolve(name);
    Path tmp = directory.resolve(TMP_PREFIX + name + "-" + UUID.randomUUID().toString().substring(0, 8));
    try {
      Files.createDirectories(directory);
      Files.createDirectory(tmp);
      weights.save(tmp.resolve(TrainingCheckpoint.WEIGHTS_DIR));
      snapshot.optimizer().save(tmp.resolve(TrainingCheckpoint.OPTIMIZER_DIR));
      Files.writeString(tmp.resolve(TrainingCheckpoint.STATE_FILE), ConfigJson.PRETTY.toJson(state(snapshot)) + "\n",
          StandardCharsets.UTF_8);
      byte[] manifest = (ConfigJson.PRETTY.toJson(TrainingCheckpoint.manifest(tmp)) + "\n")
          .getBytes(StandardCharsets.UTF_8);
      AtomicFiles.write(tmp.resolve(TrainingCheckpoint.MANIFEST_FILE), manifest);
      for (Path d : Durable.directories(tmp)) {
        AtomicFiles.fsync(d);
      }
      Path old = null;
      if (Files.exists(target)) {
        // a resumed run rewrites an iteration it had already saved: move the old one aside first
        old = directory.resolve(OLD_PREFIX + name + "-" + UUID.randomUUID().toString().substring(0, 8));
        AtomicFiles.move(target, old);
      }
      AtomicFiles.move(tmp, target);
      AtomicFiles.fsync(directory);
      if (old != null) {
        Durable.deleteRecursively(old);
      }
    } catch (IOException | RuntimeException e) {
      try {
        Durable.deleteRecursively(tmp);
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw new TrainingException("cannot write checkpoint " + target + " (iteration " + snapshot.iteration()
          + "): " + e.getMessage() + "; the earlier checkpoints are untouched", e);
    }
    retain(target);
    return target;
  }

  private JsonObject state(Snapshot s) {
    JsonObject o = new JsonObject();
    o.addProperty("format", TrainingCheckpoint.FORMAT);
    o.addProperty("version", TrainingCheckpoint.FORMAT_VERSION);
    o.addProperty("iteration", s.iteration());
    o.addProperty("seed", s.seed());
    JsonObject env = new JsonObject();
    env.addProperty("id", s.environmentId());
    env.addProperty("version", s.environmentVersion());
    o.add("environment", env);
    JsonObject w = new JsonObject();
    w.addProperty("kind", weights.kind());
    w.addProperty("directory", TrainingCheckpoint.WEIGHTS_DIR);
    o.add("weights", w);
    JsonObject opt = new JsonObject();
    opt.addProperty("directory", TrainingCheckpoint.OPTIMIZER_DIR);
    opt.addProperty("step_count", s.optimizer().stepCount());
    opt.addProperty("skipped_count", s.optimizer().skippedCount());
    o.add("optimizer", opt);
    JsonObject updater = new JsonObject();
    updater.addProperty("anchor_scores_held", s.anchorScoresHeld());
    o.add("updater", updater);
    o.addProperty("random_state", "every random draw of iteration i derives from (seed, i); nothing else to save");
    o.add("configuration", s.configuration().deepCopy());
    o.add("run", runConfiguration.deepCopy());
    o.add("metrics", ConfigJson.toJson(s.metrics()));
    o.add("provenance", Provenance.describe());
    return o;
  }

  private void retain(Path justWritten) {
    Map<Integer, Path> all = checkpoints();
    Optional<Path> best = best();
    List<Path> ordered = new ArrayList<>(all.values());
    int remove = ordered.size() - keepLast;
    for (int i = 0; i < remove; i++) {
      Path p = ordered.get(i);
      if (p.equals(justWritten) || (best.isPresent() && best.get().equals(p))) {
        continue;
      }
      Path trash = directory.resolve(TRASH_PREFIX + p.getFileName() + "-" + UUID.randomUUID().toString()
          .substring(0, 8));
      try {
        AtomicFiles.move(p, trash);
        Durable.deleteRecursively(trash);
      } catch (IOException e) {
        LOG.warn("could not delete the old checkpoint {}: {}", p, e.getMessage());
      }
    }
    if (best.isPresent()) {
      JsonObject b = new JsonObject();
      b.addProperty("checkpoint", best.get().getFileName().toString());
      b.addProperty("metric", bestMetric);
      b.addProperty("value", metricOf(best.get()));
      try {
        AtomicFiles.write(directory.resolve(BEST_FILE),
            (ConfigJson.PRETTY.toJson(b) + "\n").getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        LOG.warn("could not write {}: {}", directory.resolve(BEST_FILE), e.getMessage());
      }
    }
  }

  /**
   * Cleans up after a crash: a temporary or set-aside checkpoint that is complete (it verifies against its manifest
   * and holds the iteration its name says) and has no final directory yet is renamed into place (a new one before
   * an old one); every other leftover is deleted.
   */
  private void removeLeftovers() {
    if (!Files.isDirectory(directory)) {
      return;
    }
    List<Path> leftovers = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(directory)) {
      for (Path p : s) {
        String n = p.getFileName().toString();
        if (n.startsWith(TMP_PREFIX) || n.startsWith(OLD_PREFIX) || n.startsWith(TRASH_PREFIX)) {
          leftovers.add(p);
        }
      }
      // new (.tmp-) before old (.old-); retention trash is never put back
      leftovers.sort((a, b) -> Boolean.compare(a.getFileName().toString().startsWith(OLD_PREFIX),
          b.getFileName().toString().startsWith(OLD_PREFIX)));
      for (Path p : leftovers) {
        String n = p.getFileName().toString();
        if (!n.startsWith(TRASH_PREFIX) && promote(p, n)) {
          continue;
        }
        LOG.info("removing {}, left by an interrupted checkpoint write or deletion", p);
        Durable.deleteRecursively(p);
      }
    } catch (IOException e) {
      LOG.warn("could not clean up {}: {}", directory, e.getMessage());
    }
  }

  private boolean promote(Path leftover, String name) throws IOException {
    String rest = name.substring(name.indexOf('-') + 1); // iter-NNNNNNNN-xxxxxxxx
    int dash = rest.lastIndexOf('-');
    int iteration = dash < 0 ? -1 : TrainingCheckpoint.iterationOf(rest.substring(0, dash));
    if (iteration < 0) {
      return false;
    }
    Path target = directory.resolve(TrainingCheckpoint.directoryName(iteration));
    if (Files.exists(target) || !Files.isRegularFile(leftover.resolve(TrainingCheckpoint.MANIFEST_FILE))) {
      return false;
    }
    try {
      if (TrainingCheckpoint.open(leftover).iteration() != iteration) {
        return false;
      }
    } catch (TrainingException e) {
      return false;
    }
    LOG.info("putting the complete checkpoint {} in place as {} (a write was interrupted after it)", leftover,
        target);
    AtomicFiles.move(leftover, target);
    AtomicFiles.fsync(directory);
    return true;
  }

  /** @return a builder */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures a {@link CheckpointManager}. */
  public static final class Builder {
    private Path directory;
    private CheckpointWeights weights;
    private int every = 10;
    private int keepLast = 3;
    private String bestMetric;
    private JsonObject runConfiguration = new JsonObject();

    private Builder() {}

    /**
     * @param v the directory for the {@code iter-*} checkpoints (created when the first one is written), usually
     *     {@code RUN_DIR/checkpoints}
     * @return this builder
     */
    public Builder setDirectory(Path v) {
      directory = v;
      return this;
    }

    /**
     * @param v the trainable weights to save ({@link CheckpointWeights#full} for full fine-tuning)
     * @return this builder
     */
    public Builder setWeights(CheckpointWeights v) {
      weights = v;
      return this;
    }

    /**
     * @param v write a checkpoint after every {@code v}-th iteration (default 10, as the reference; 0: only when
     *     asked, e.g. at the end of {@code fit})
     * @return this builder
     */
    public Builder optEvery(int v) {
      every = v;
      return this;
    }

    /**
     * @param v how many of the latest checkpoints to keep (default 3; the best one is kept in addition)
     * @return this builder
     */
    public Builder optKeepLast(int v) {
      keepLast = v;
      return this;
    }

    /**
     * @param v the metric (higher is better) that picks the best checkpoint to keep, e.g. {@code
     *     val/success_rate[2]}; null (the default) keeps no best one
     * @return this builder
     */
    public Builder optBestMetric(String v) {
      bestMetric = v == null || v.isBlank() ? null : v;
      return this;
    }

    /**
     * @param v the application's settings to record in every checkpoint (e.g. the command line), so a resume can
     *     rebuild the run
     * @return this builder
     */
    public Builder optRunConfiguration(JsonObject v) {
      runConfiguration = Objects.requireNonNull(v, "runConfiguration");
      return this;
    }

    /**
     * @return the manager; temporary directories of interrupted writes in the directory are deleted
     * @throws IllegalArgumentException when a setting is out of range
     */
    public CheckpointManager build() {
      Objects.requireNonNull(directory, "directory");
      Objects.requireNonNull(weights, "weights");
      if (every < 0) {
        throw new IllegalArgumentException("every must be >= 0, got " + every);
      }
      if (keepLast < 1) {
        throw new IllegalArgumentException("keepLast must be >= 1, got " + keepLast);
      }
      return new CheckpointManager(this);
    }
  }
}
