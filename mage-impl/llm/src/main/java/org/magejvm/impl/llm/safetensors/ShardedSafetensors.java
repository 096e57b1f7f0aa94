package org.magejvm.impl.llm.safetensors;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sharded checkpoint: an index file ({@code model.safetensors.index.json}, whose {@code weight_map} maps each tensor
 * name to a shard file in the same directory) plus the shard files. All shards are opened and validated by
 * {@link #open}, which also checks the index against the shards:
 *
 * <ul>
 *   <li>the index must be a JSON object with a non-empty {@code weight_map} object of strings;
 *   <li>every shard file it names must exist inside the index's directory and be a valid safetensors file;
 *   <li>every tensor it lists must be present in the shard it names;
 *   <li>no tensor may be present in two shards.
 * </ul>
 *
 * <p>A tensor present in a shard but not listed in the index is ignored (logged as a warning, and not part of
 * {@link #names}): the index is the authority on what the checkpoint holds, as in Hugging Face's loaders. Closing
 * this source closes every shard.
 */
public final class ShardedSafetensors implements TensorSource {

  /** The index file name Hugging Face uses for sharded safetensors checkpoints. */
  public static final String INDEX_FILE = "model.safetensors.index.json";

  private static final Logger LOG = LoggerFactory.getLogger(ShardedSafetensors.class);

  private final Path index;
  private final Map<String, SafetensorsFile> byTensor;
  private final List<SafetensorsFile> shards;
  private final Set<String> names;

  private ShardedSafetensors(Path index, Map<String, SafetensorsFile> byTensor, List<SafetensorsFile> shards) {
    this.index = index;
    this.byTensor = byTensor;
    this.shards = shards;
    this.names = Collections.unmodifiableSet(byTensor.keySet());
  }

  /**
   * Opens a sharded checkpoint.
   *
   * @param directoryOrIndex the checkpoint directory (which must hold {@value #INDEX_FILE}) or the index file itself
   * @return the open checkpoint, with every shard opened
   * @throws CheckpointException naming the index or shard file and the tensor when anything is missing or malformed
   */
  public static ShardedSafetensors open(Path directoryOrIndex) {
    Path indexFile = Files.isDirectory(directoryOrIndex) ? directoryOrIndex.resolve(INDEX_FILE) : directoryOrIndex;
    String label = indexFile.toString();
    if (!Files.isRegularFile(indexFile)) {
      throw new CheckpointException(label + ": index file does not exist");
    }
    Path dir = indexFile.toAbsolutePath().getParent();
    Map<String, String> weightMap = readWeightMap(indexFile, label);

    // group the tensors by shard, checking that every shard stays inside the directory and exists
    Map<String, List<String>> tensorsByShard = new TreeMap<>();
    for (Map.Entry<String, String> e : weightMap.entrySet()) {
      tensorsByShard.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey());
    }
    Map<String, SafetensorsFile> opened = new LinkedHashMap<>();
    boolean ok = false;
    try {
      for (Map.Entry<String, List<String>> e : tensorsByShard.entrySet()) {
        String shard = e.getKey();
        List<String> tensors = e.getValue();
        Path shardPath;
        try {
          shardPath = dir.resolve(shard).normalize();
        } catch (InvalidPathException invalid) {
          shardPath = dir; // rejected just below
        }
        if (shard.isEmpty() || !shardPath.startsWith(dir) || shardPath.equals(dir)) {
          throw new CheckpointException(label + ": tensor '" + tensors.get(0) + "' names the shard '" + shard
              + "', which is not a file inside " + dir);
        }
        if (!Files.isRegularFile(shardPath)) {
          throw new CheckpointException(label + ": shard file '" + shard + "' (listed for " + tensors.size()
              + " tensors, e.g. '" + tensors.get(0) + "') does not exist in " + dir);
        }
        opened.put(shard, SafetensorsFile.open(shardPath));
      }
      Map<String, String> ownerOf = new TreeMap<>();
      Set<String> unlisted = new TreeSet<>();
      for (Map.Entry<String, SafetensorsFile> e : opened.entrySet()) {
        for (String tensor : e.getValue().names()) {
          String previous = ownerOf.put(tensor, e.getKey());
          if (previous != null) {
            throw new CheckpointException(label + ": tensor '" + tensor + "' is present in two shards, '"
                + previous + "' and '" + e.getKey() + "'");
          }
          if (!weightMap.containsKey(tensor)) {
            unlisted.add(tensor);
          }
        }
      }
      Map<String, SafetensorsFile> byTensor = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : weightMap.entrySet()) {
        SafetensorsFile shard = opened.get(e.getValue());
        if (!shard.names().contains(e.getKey())) {
          String actual = ownerOf.get(e.getKey());
          throw new CheckpointException(label + ": tensor '" + e.getKey() + "' is listed under shard '"
              + e.getValue() + "', but that shard does not contain it"
              + (actual == null ? "" : " (it is in '" + actual + "')"));
        }
        byTensor.put(e.getKey(), shard);
      }
      if (!unlisted.isEmpty()) {
        LOG.warn("{}: ignoring {} tensor(s) present in shards but not listed in the index, e.g. '{}'", label,
            unlisted.size(), unlisted.iterator().next());
      }
      ok = true;
      return new ShardedSafetensors(indexFile, byTensor, List.copyOf(opened.values()));
    } finally {
      if (!ok) {
        opened.values().forEach(SafetensorsFile::close);
      }
    }
  }

  private static Map<String, String> readWeightMap(Path indexFile, String label) {
    Map<String, String> weightMap = new LinkedHashMap<>();
    boolean sawWeightMap = false;
    try (Reader in = Files.newBufferedReader(indexFile, StandardCharsets.UTF_8);
        JsonReader reader = new JsonReader(in)) {
      reader.setStrictness(Strictness.STRICT);
      if (reader.peek() != JsonToken.BEGIN_OBJECT) {
        throw new CheckpointException(label + ": index must be a JSON object, found " + reader.peek());
      }
      reader.beginObject();
      while (reader.hasNext()) {
        String key = reader.nextName();
        if (!"weight_map".equals(key)) {
          reader.skipValue(); // "metadata" (total_size and the like) and anything else is informational
          continue;
        }
        if (sawWeightMap) {
          throw new CheckpointException(label + ": index has two 'weight_map' entries");
        }
        sawWeightMap = true;
        if (reader.peek() != JsonToken.BEGIN_OBJECT) {
          throw new CheckpointException(
              label + ": field 'weight_map' must be an object of tensor name to shard file, found " + reader.peek());
        }
        reader.beginObject();
        while (reader.hasNext()) {
          String tensor = reader.nextName();
          if (reader.peek() != JsonToken.STRING) {
            throw new CheckpointException(label + ": 'weight_map' entry for tensor '" + tensor
                + "' must be a shard file name (a string), found " + reader.peek());
          }
          if (weightMap.put(tensor, reader.nextString()) != null) {
            throw new CheckpointException(label + ": tensor '" + tensor + "' is listed twice in 'weight_map'");
          }
        }
        reader.endObject();
      }
      reader.endObject();
      if (reader.peek() != JsonToken.END_DOCUMENT) {
        throw new CheckpointException(label + ": index has content after its JSON object");
      }
    } catch (IOException | IllegalStateException | NumberFormatException e) {
      throw new CheckpointException(label + ": index is not valid JSON: " + e.getMessage(), e);
    }
    if (!sawWeightMap) {
      throw new CheckpointException(label + ": index has no 'weight_map' field");
    }
    if (weightMap.isEmpty()) {
      throw new CheckpointException(label + ": index 'weight_map' lists no tensors");
    }
    return weightMap;
  }

  /** @return the index file */
  public Path indexFile() {
    return index;
  }

  /** @return the open shards, in file-name order */
  public List<SafetensorsFile> shards() {
    return shards;
  }

  /** @return the tensor names listed in the index, in index order, unmodifiable */
  @Override
  public Set<String> names() {
    return names;
  }

  /**
   * @param name a tensor name listed in the index
   * @return its header entry; {@link TensorInfo#file()} is the shard's file name
   * @throws CheckpointException naming the index when the index does not list the tensor
   */
  @Override
  public TensorInfo info(String name) {
    return shardOf(name).info(name);
  }

  /**
   * Loads a tensor from its shard (see {@link SafetensorsFile#load}).
   *
   * @param manager the manager that will own the array
   * @param name a tensor name listed in the index
   * @param target FLOAT32 or FLOAT16
   * @return the array, with the header's shape
   * @throws CheckpointException naming the file and tensor when it is not listed or cannot be loaded
   */
  @Override
  public NDArray load(NDManager manager, String name, DataType target) {
    return shardOf(name).load(manager, name, target);
  }

  /**
   * Loads a tensor from its shard (see {@link SafetensorsFile#load(NDManager, String, DataType, NonFiniteCheck)}).
   *
   * @param manager the manager that will own the array
   * @param name a tensor name listed in the index
   * @param target FLOAT32 or FLOAT16
   * @param check what to do with NaN and infinite values
   * @return the array, with the header's shape
   * @throws CheckpointException naming the file and tensor when it is not listed, cannot be loaded, or (with {@link
   *     NonFiniteCheck#REFUSE}) holds a non-finite value
   */
  @Override
  public NDArray load(NDManager manager, String name, DataType target, NonFiniteCheck check) {
    return shardOf(name).load(manager, name, target, check);
  }

  private SafetensorsFile shardOf(String name) {
    SafetensorsFile shard = byTensor.get(name);
    if (shard == null) {
      throw new CheckpointException(
          index + ": no tensor named '" + name + "' (the index lists " + byTensor.size() + " tensors)");
    }
    return shard;
  }

  /** Closes every shard. Safe to call twice. */
  @Override
  public void close() {
    shards.forEach(SafetensorsFile::close);
  }

  /** @return the index path, shard and tensor counts, for logs */
  @Override
  public String toString() {
    return "ShardedSafetensors[" + index + ", " + shards.size() + " shards, " + names.size() + " tensors]";
  }
}
