package org.magejvm.impl.train.checkpoint;

import org.magejvm.impl.train.update.AdamW;
import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.common.TrainingException;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.magejvm.api.util.AtomicFiles;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * A complete training checkpoint on disk, verified when opened. A checkpoint is a directory named {@code
 * iter-NNNNNNNN} (the number of iterations it holds) with:
 *
 * <ul>
 *   <li>{@value #WEIGHTS_DIR}{@code /}: the trainable weights ({@link CheckpointWeights}; full weights as a Hugging
 *       Face directory);
 *   <li>{@value #OPTIMIZER_DIR}{@code /}: the AdamW state ({@link AdamW#save(Path)});
 *   <li>{@value #STATE_FILE}: iteration, seed, environment id and version, the weights kind, the trainer's full
 *       configuration, the application's run configuration, that iteration's metrics and the provenance;
 *   <li>{@value #MANIFEST_FILE}: the size and SHA-256 of every other file, written last.
 * </ul>
 *
 * <p>{@link #open(Path)} checks every file against the manifest and refuses, with a {@link TrainingException} that
 * names the file and the reason, a checkpoint with a missing, truncated or corrupted file. {@link
 * #requireEnvironment} and {@link #restore} refuse one written for another environment or model shape.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class TrainingCheckpoint {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingCheckpoint.class);

  /** The value of the state file's {@code format} field. */
  public static final String FORMAT = "mage-training-checkpoint";
  /** The version of the checkpoint layout. */
  public static final int FORMAT_VERSION = 1;
  /** The trainer state file. */
  public static final String STATE_FILE = "trainer-state.json";
  /** The checksum manifest, written last. */
  public static final String MANIFEST_FILE = "manifest.json";
  /** The value of the manifest's {@code format} field. */
  public static final String MANIFEST_FORMAT = "mage-checkpoint-manifest";
  /** The weights subdirectory. */
  public static final String WEIGHTS_DIR = "weights";
  /** The optimizer subdirectory. */
  public static final String OPTIMIZER_DIR = "optimizer";
  /** The prefix of checkpoint directory names. */
  public static final String DIRECTORY_PREFIX = "iter-";
  /** The run directory's subdirectory holding the checkpoints. */
  public static final String CHECKPOINTS_DIR = "checkpoints";
  /** The key of the training config inside the recorded run configuration ({@link #runConfiguration()}). */
  public static final String CONFIG_KEY = "config";

  private static final Pattern NAME = Pattern.compile("iter-(\\d{8,})");

  private final Path dir;
  private final JsonObject state;
  private final int iteration;
  private final long seed;
  private final String environmentId;
  private final String environmentVersion;
  private final String weightsKind;

  private TrainingCheckpoint(Path dir, JsonObject state) {
    this.dir = dir;
    this.state = state;
    Path file = dir.resolve(STATE_FILE);
    String format = string(state, "format", file);
    if (!FORMAT.equals(format)) {
      throw new TrainingException(file + ": format is '" + format + "', expected '" + FORMAT + "'");
    }
    long version = integer(state, "version", file);
    if (version != FORMAT_VERSION) {
      throw new TrainingException(file + ": checkpoint version " + version + " is not supported (this code reads "
          + FORMAT_VERSION + ")");
    }
    long it = integer(state, "iteration", file);
    if (it < 0 || it > Integer.MAX_VALUE) {
      throw new TrainingException(file + ": field 'iteration' must be a non-negative int, got " + it);
    }
    iteration = (int) it;
    seed = integer(state, "seed", file);
    JsonObject env = object(state, "environment", file);
    environmentId = string(env, "id", file);
    environmentVersion = string(env, "version", file);
    weightsKind = string(object(state, "weights", file), "kind", file);
  }

  /**
   * The directory name of the checkpoint holding {@code iteration} iterations.
   *
   * @param iteration the iteration count
   * @return {@code iter-} and the count in 8 digits
   */
  public static String directoryName(int iteration) {
    return String.format(Locale.ROOT, "%s%08d", DIRECTORY_PREFIX, iteration);
  }

  /**
   * @param name a directory name
   * @return the iteration count of a checkpoint directory name, or -1 when it is not one
   */
  static int iterationOf(String name) {
    Matcher m = NAME.matcher(name);
    if (!m.matches()) {
      return -1;
    }
    try {
      return Integer.parseInt(m.group(1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * The checkpoint directories under a checkpoints directory that were completely written (they have a manifest),
   * by iteration count, ascending. Temporary directories of interrupted writes are not listed.
   *
   * @param checkpointsDir the directory holding {@code iter-*} directories
   * @return iteration count to directory
   * @throws TrainingException when the directory cannot be listed
   */
  public static Map<Integer, Path> list(Path checkpointsDir) {
    Map<Integer, Path> out = new java.util.TreeMap<>();
    if (!Files.isDirectory(checkpointsDir)) {
      return out;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(checkpointsDir)) {
      for (Path p : s) {
        int it = iterationOf(p.getFileName().toString());
        if (it >= 0 && Files.isDirectory(p) && Files.isRegularFile(p.resolve(MANIFEST_FILE))) {
          out.put(it, p);
        }
      }
    } catch (IOException e) {
      throw new TrainingException("cannot list the checkpoints in " + checkpointsDir + ": " + e.getMessage(), e);
    }
    return out;
  }

  /**
   * Finds the checkpoint to resume from: {@code dir} itself when it is a checkpoint, else the latest complete
   * checkpoint in {@code dir} (a checkpoints directory) or in {@code dir/checkpoints} (a run directory).
   *
   * @param dir a checkpoint, checkpoints or run directory
   * @return the checkpoint directory (not yet verified)
   * @throws TrainingException naming the directory when it holds no checkpoint
   */
  public static Path locate(Path dir) {
    if (Files.isRegularFile(dir.resolve(STATE_FILE)) || Files.isRegularFile(dir.resolve(MANIFEST_FILE))) {
      return dir;
    }
    for (Path candidate : new Path[] {dir.resolve(CHECKPOINTS_DIR), dir}) {
      Map<Integer, Path> all = list(candidate);
      if (!all.isEmpty()) {
        return all.values().stream().reduce((a, b) -> b).orElseThrow();
      }
    }
    throw new TrainingException(dir + ": no checkpoint found (expected " + STATE_FILE + " there, or " + CHECKPOINTS_DIR
        + "/" + DIRECTORY_PREFIX + "NNNNNNNN directories with a " + MANIFEST_FILE + ")");
  }

  /**
   * Opens and verifies a checkpoint: every file listed in the manifest exists with its recorded size and SHA-256,
   * and the state file is well formed.
   *
   * @param dir the checkpoint directory
   * @return the checkpoint
   * @throws TrainingException naming the file and the reason: missing, truncated, checksum mismatch, malformed
   */
  public static TrainingCheckpoint open(Path dir) {
    Objects.requireNonNull(dir, "dir");
    if (!Files.isDirectory(dir)) {
      throw new TrainingException("checkpoint directory " + dir + (Files.exists(dir) ? " is not a directory"
          : " does not exist"));
    }
    verifyManifest(dir);
    Path file = dir.resolve(STATE_FILE);
    return new TrainingCheckpoint(dir, readJson(file));
  }

  private static void verifyManifest(Path dir) {
    Path manifestFile = dir.resolve(MANIFEST_FILE);
    if (!Files.isRegularFile(manifestFile)) {
      throw new TrainingException(manifestFile + ": missing; the checkpoint " + dir
          + " is incomplete (its write was interrupted) or not a checkpoint");
    }
    JsonObject manifest = readJson(manifestFile);
    String format = string(manifest, "format", manifestFile);
    if (!MANIFEST_FORMAT.equals(format)) {
      throw new TrainingException(manifestFile + ": format is '" + format + "', expected '" + MANIFEST_FORMAT + "'");
    }
    JsonElement files = manifest.get("files");
    if (files == null || !files.isJsonArray()) {
      throw new TrainingException(manifestFile + ": field 'files' is missing or not an array");
    }
    boolean stateListed = false;
    for (JsonElement e : files.getAsJsonArray()) {
      if (!e.isJsonObject()) {
        throw new TrainingException(manifestFile + ": an entry of 'files' is not an object: " + e);
      }
      JsonObject entry = e.getAsJsonObject();
      String rel = string(entry, "path", manifestFile);
      long size = integer(entry, "size", manifestFile);
      String sha = string(entry, "sha256", manifestFile);
      Path f = dir.resolve(rel).normalize();
      if (!f.startsWith(dir.normalize()) || rel.contains("..")) {
        throw new TrainingException(manifestFile + ": path '" + rel + "' points outside the checkpoint");
      }
      stateListed |= rel.equals(STATE_FILE);
      if (!Files.isRegularFile(f)) {
        throw new TrainingException(f + ": missing (listed in " + manifestFile + ")");
      }
      try {
        long actual = Files.size(f);
        if (actual < size) {
          throw new TrainingException(f + ": truncated: " + actual + " bytes, but " + MANIFEST_FILE + " records "
              + size);
        }
        if (actual != size) {
          throw new TrainingException(f + ": " + actual + " bytes, but " + MANIFEST_FILE + " records " + size
              + "; the file was changed after the checkpoint was written");
        }
        String digest = Durable.sha256(f);
        if (!digest.equalsIgnoreCase(sha)) {
          throw new TrainingException(f + ": SHA-256 checksum mismatch (file " + digest + ", " + MANIFEST_FILE
              + " " + sha + "); the file is corrupted");
        }
      } catch (IOException ex) {
        throw new TrainingException(f + ": cannot read: " + ex.getMessage(), ex);
      }
    }
    if (!stateListed) {
      throw new TrainingException(manifestFile + ": does not list " + STATE_FILE);
    }
  }

  /** @return the checkpoint directory */
  public Path directory() {
    return dir;
  }

  /** @return the number of iterations it holds; a resumed run continues with iteration index {@code iteration()} */
  public int iteration() {
    return iteration;
  }

  /** @return the run's base seed */
  public long seed() {
    return seed;
  }

  /** @return the id of the environment it was trained on */
  public String environmentId() {
    return environmentId;
  }

  /** @return the version of that environment */
  public String environmentVersion() {
    return environmentVersion;
  }

  /** @return the kind of weights it holds ({@value FullModelWeights#KIND}, or an adapter kind) */
  public String weightsKind() {
    return weightsKind;
  }

  /** @return the weights directory */
  public Path weightsDirectory() {
    return dir.resolve(WEIGHTS_DIR);
  }

  /** @return the optimizer state directory */
  public Path optimizerDirectory() {
    return dir.resolve(OPTIMIZER_DIR);
  }

  /** @return a copy of the whole state file */
  public JsonObject state() {
    return state.deepCopy();
  }

  /** @return a copy of the trainer's configuration as it was saved */
  public JsonObject configuration() {
    JsonElement c = state.get("configuration");
    return c != null && c.isJsonObject() ? c.getAsJsonObject().deepCopy() : new JsonObject();
  }

  /** @return a copy of the application's run configuration (for example the command-line settings) */
  public JsonObject runConfiguration() {
    JsonElement c = state.get("run");
    return c != null && c.isJsonObject() ? c.getAsJsonObject().deepCopy() : new JsonObject();
  }

  /**
   * @return whether the run's policy updater held the anchors' scores on the checkpoint's weights ({@code
   *     updater.anchor_scores_held}; false when the state file does not say, as in checkpoints written before it
   *     did): a resumed run then scores them again without counting it, so its metrics equal the uninterrupted run's
   */
  public boolean anchorScoresHeld() {
    JsonElement u = state.get("updater");
    if (u == null || !u.isJsonObject()) {
      return false;
    }
    JsonElement held = u.getAsJsonObject().get("anchor_scores_held");
    return held != null && held.isJsonPrimitive() && held.getAsJsonPrimitive().isBoolean() && held.getAsBoolean();
  }

  /** @return a copy of the provenance (library, JVM, DJL and libtorch versions, OS, threads, time) */
  public JsonObject provenance() {
    JsonElement c = state.get("provenance");
    return c != null && c.isJsonObject() ? c.getAsJsonObject().deepCopy() : new JsonObject();
  }

  /** @return the numeric metrics of the iteration the checkpoint was written after */
  public Map<String, Double> metrics() {
    Map<String, Double> out = new LinkedHashMap<>();
    JsonElement m = state.get("metrics");
    if (m != null && m.isJsonObject()) {
      for (Map.Entry<String, JsonElement> e : m.getAsJsonObject().entrySet()) {
        if (e.getValue().isJsonPrimitive() && e.getValue().getAsJsonPrimitive().isNumber()) {
          out.put(e.getKey(), e.getValue().getAsDouble());
        }
      }
    }
    return out;
  }

  /**
   * @param name a metric name
   * @return its value at the checkpoint's iteration, if it was measured then (validation metrics only every k)
   */
  public Optional<Double> metric(String name) {
    return Optional.ofNullable(metrics().get(name));
  }

  /**
   * Refuses a checkpoint of another environment; logs a warning for another version of the same one.
   *
   * @param id the environment being trained
   * @param version its version
   * @throws TrainingException naming the state file when the ids differ
   */
  public void requireEnvironment(String id, String version) {
    if (!environmentId.equals(id)) {
      throw new TrainingException(dir.resolve(STATE_FILE) + ": the checkpoint was trained on environment '"
          + environmentId + "', not '" + id + "'");
    }
    if (!environmentVersion.equals(version)) {
      LOG.warn("{}: the checkpoint was trained on {} version {}, this is version {}; the rules may differ",
          dir.resolve(STATE_FILE), id, environmentVersion, version);
    }
  }

  /**
   * Checks the weights ({@link CheckpointWeights#verify}), then restores the optimizer state (all or nothing) and
   * then the weights, in place.
   *
   * @param weights the model's trainable weights (their kind must match)
   * @param adamw the optimizer over the same parameters
   * @throws TrainingException naming the file (and field) when the kind ({@code weights.kind} of the state file: full
   *     weights resumed as LoRA or the reverse), the adapter's rank, a tensor shape or the optimizer state does not
   *     fit; the
   *     optimizer is then unchanged, the weights too unless the optimizer had already been restored
   */
  public void restore(CheckpointWeights weights, AdamW adamw) {
    if (!weights.kind().equals(weightsKind)) {
      throw new TrainingException(dir.resolve(STATE_FILE) + ": field 'weights.kind' is '" + weightsKind + "' ("
          + describeKind(weightsKind) + "), but this run trains '" + weights.kind() + "' weights ("
          + describeKind(weights.kind()) + "); resume with the same kind of fine-tuning, or start a new run");
    }
    weights.verify(weightsDirectory());
    try {
      adamw.load(optimizerDirectory());
    } catch (CheckpointException e) {
      throw new TrainingException(e.getMessage()
          + " (the optimizer state does not fit the model: another model shape?)", e);
    }
    weights.restore(weightsDirectory());
  }

  private static String describeKind(String kind) {
    switch (kind) {
      case FullModelWeights.KIND:
        return "full fine-tuning";
      case LoraAdapterWeights.KIND:
        return "a LoRA adapter";
      default:
        return "unknown kind";
    }
  }

  @Override
  public String toString() {
    return "TrainingCheckpoint[" + dir + ", iteration " + iteration + ", " + environmentId + "]";
  }

  /**
   * Reads a JSON object file of a checkpoint.
   *
   * @param file the file
   * @return its object
   * @throws TrainingException naming the file when it is missing, unreadable or not a JSON object
   */
  public static JsonObject readJson(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new TrainingException(file + ": missing");
    }
    try {
      JsonElement root = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8));
      if (!root.isJsonObject()) {
        throw new TrainingException(file + ": not a JSON object");
      }
      return root.getAsJsonObject();
    } catch (IOException e) {
      throw new TrainingException(file + ": cannot read: " + e.getMessage(), e);
    } catch (JsonParseException e) {
      throw new TrainingException(file + ": malformed JSON (truncated?): " + e.getMessage(), e);
    }
  }

  private static JsonObject object(JsonObject o, String name, Path file) {
    JsonElement e = o.get(name);
    if (e == null || !e.isJsonObject()) {
      throw new TrainingException(file + ": field '" + name + "' is missing or not an object");
    }
    return e.getAsJsonObject();
  }

  private static String string(JsonObject o, String name, Path file) {
    JsonElement e = o.get(name);
    if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
      throw new TrainingException(file + ": field '" + name + "' is missing or not a string");
    }
    return e.getAsString();
  }

  private static long integer(JsonObject o, String name, Path file) {
    JsonElement e = o.get(name);
    if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
      throw new TrainingException(file + ": field '" + name + "' is missing or not a number");
    }
    try {
      return e.getAsBigDecimal().longValueExact();
    } catch (ArithmeticException | NumberFormatException ex) {
      throw new TrainingException(file + ": field '" + name + "' must be an integer, got " + e, ex);
    }
  }

  /** The manifest object for the files under a directory being written. */
  static JsonObject manifest(Path dir) throws IOException {
    JsonObject m = new JsonObject();
    m.addProperty("format", MANIFEST_FORMAT);
    m.addProperty("version", 1);
    m.addProperty("algorithm", "SHA-256");
    JsonArray files = new JsonArray();
    for (String rel : Durable.files(dir)) {
      if (rel.equals(MANIFEST_FILE)) {
        continue;
      }
      Path f = dir.resolve(rel);
      AtomicFiles.fsync(f);
      JsonObject entry = new JsonObject();
      entry.addProperty("path", rel);
      entry.addProperty("size", Files.size(f));
      entry.addProperty("sha256", Durable.sha256(f));
      files.add(entry);
    }
    m.add("files", files);
    return m;
  }
}
