package org.magejvm.examples.quickstart;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The quick start's warm start for its default settings, shipped in the jar so that a first run does not spend three
 * minutes on supervised training. It is exactly what {@code ./mage quickstart --no-shipped-warm-start} writes into
 * {@code WORK_DIR/warm-start} on this project's build machine (the files were copied from such a run; docs/results.md
 * has the command and the check that a fresh run reproduces them byte for byte). It is used only when its recorded
 * settings ({@link GameRecipe#warmStartKey()}) are the run's: the default warm-start options, the game with its
 * default environment options, seed 1, and the default model shape. Goalkeeper ships two: the reflective warm start
 * of the default quick start ({@code rollout.context_mode} reflection_only) and the history one of its ablation.
 */
public final class ShippedWarmStart {

  /** The residual width of the shipped warm starts' model (the quick start's default). */
  public static final int WIDTH = 64;
  /** The decoder layers of the shipped warm starts' model (the quick start's default). */
  public static final int LAYERS = 2;
  /** The files of a shipped warm start, a Hugging Face model directory plus the recorded settings. */
  static final List<String> FILES = List.of("config.json", "model.safetensors", "tokenizer.json",
      "tokenizer_config.json", GameRecipe.WARM_START_SETTINGS_FILE);

  private ShippedWarmStart() {}

  /**
   * @param recipe the recipe
   * @return the resource folder (relative to this class) of the shipped warm start for the recipe's game and seed
   */
  static String resourceFolder(GameRecipe recipe) {
    return "warm-start/" + recipe.game().environment() + (recipe.reflectiveWarmStart() ? "-reflect" : "") + "-seed"
        + recipe.settings().seed() + "/";
  }

  /**
   * @param recipe the recipe
   * @return whether a warm start is shipped for the recipe's game and seed and was made with its warm-start settings
   */
  public static boolean available(GameRecipe recipe) {
    byte[] key = read(resourceFolder(recipe) + GameRecipe.WARM_START_SETTINGS_FILE);
    return key != null && new String(key, StandardCharsets.UTF_8).equals(recipe.warmStartKey());
  }

  /**
   * Copies the shipped warm start into the recipe's warm-start directory when one is {@linkplain #available
   * available} and the work directory holds neither a warm start nor a tiny model yet (a directory of either name,
   * even an incomplete one, is left alone: the recipe then trains from its own tiny model, or refuses, as it
   * would). The files are written into a temporary directory
   * next to it and renamed into place, so an interrupted copy leaves no half warm start.
   *
   * @param recipe the recipe
   * @return whether it was installed
   * @throws UncheckedIOException naming the directory when it cannot be written
   * @throws IllegalStateException when a shipped file is missing from the jar
   */
  public static boolean install(GameRecipe recipe) {
    Path warm = recipe.warmStartDir();
    if (Files.exists(warm) || Files.exists(recipe.tinyModelDir()) || !available(recipe)) {
      return false;
    }
    Path tmp = null;
    try {
      Files.createDirectories(warm.toAbsolutePath().getParent());
      // with the umask's mode, as any directory the tool creates (createTempDirectory's 0700 survives the rename)
      tmp = org.magejvm.api.util.AtomicFiles.tempSiblingDirectory(warm);
      for (String file : FILES) {
        byte[] bytes = read(resourceFolder(recipe) + file);
        if (bytes == null) {
          throw new IllegalStateException("the shipped warm start " + resourceFolder(recipe) + " has no " + file
              + "; the jar is incomplete");
        }
        Files.write(tmp.resolve(file), bytes);
      }
      Files.move(tmp, warm, StandardCopyOption.ATOMIC_MOVE);
      tmp = null;
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the shipped warm start into " + warm + ": " + e.getMessage(), e);
    } finally {
      deleteQuietly(tmp);
    }
  }

  private static byte[] read(String resource) {
    try (InputStream in = ShippedWarmStart.class.getResourceAsStream(resource)) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the resource " + resource + ": " + e.getMessage(), e);
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort: a leftover temporary directory is harmless
    }
  }
}
