package org.magejvm.impl.llm.safetensors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/** Opens the weights of a Hugging Face style checkpoint, single-file or sharded. */
public final class TensorSources {

  /** The single-file weights name Hugging Face uses. */
  public static final String SINGLE_FILE = "model.safetensors";

  private static final int LISTED = 30;

  private TensorSources() {}

  /**
   * Opens a checkpoint's weights.
   *
   * <ul>
   *   <li>a directory holding {@value #SINGLE_FILE}: that file (preferred when both forms are present);
   *   <li>a directory holding {@value ShardedSafetensors#INDEX_FILE}: the sharded checkpoint it describes;
   *   <li>a {@code .safetensors} file, or a {@code .json} index file: that file.
   * </ul>
   *
   * @param path a checkpoint directory, a safetensors file or an index file
   * @return the open source; the caller closes it
   * @throws CheckpointException when nothing loadable is there, listing what was looked for and what the directory
   *     contains
   */
  public static TensorSource openCheckpoint(Path path) {
    if (Files.isRegularFile(path)) {
      String name = path.getFileName().toString();
      return name.endsWith(".json") ? ShardedSafetensors.open(path) : SafetensorsFile.open(path);
    }
    if (!Files.isDirectory(path)) {
      throw new CheckpointException(path + ": checkpoint directory does not exist");
    }
    Path single = path.resolve(SINGLE_FILE);
    if (Files.isRegularFile(single)) {
      return SafetensorsFile.open(single);
    }
    Path index = path.resolve(ShardedSafetensors.INDEX_FILE);
    if (Files.isRegularFile(index)) {
      return ShardedSafetensors.open(index);
    }
    throw org.magejvm.impl.llm.checkpoint.CheckpointFiles.notFound(single, path + ": no weights found: looked for "
        + SINGLE_FILE + " and "
        + ShardedSafetensors.INDEX_FILE + "; the directory contains " + describeContents(path));
  }

  private static String describeContents(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      List<String> names = files.map(p -> p.getFileName() + (Files.isDirectory(p) ? "/" : ""))
          .sorted().collect(Collectors.toList());
      if (names.isEmpty()) {
        return "nothing (it is empty)";
      }
      String shown = names.stream().limit(LISTED).collect(Collectors.joining(", ", "[", ""));
      return shown + (names.size() > LISTED ? ", ... " + (names.size() - LISTED) + " more]" : "]");
    } catch (IOException e) {
      return "(unlistable: " + e.getMessage() + ")";
    }
  }
}
