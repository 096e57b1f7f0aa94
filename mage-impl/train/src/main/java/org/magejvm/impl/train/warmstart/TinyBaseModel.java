package org.magejvm.impl.train.warmstart;

import java.nio.file.Path;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Config;

/**
 * The untrained tiny Qwen3 model a {@link ScriptedWarmStart} starts from: heads of width 16 (half as many key/value
 * heads), an MLP three times the residual width, and the BPE merges of {@link TinyCheckpoint.Spec#small} learned from
 * a corpus of the game's text.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class TinyBaseModel {

  private TinyBaseModel() {}

  /**
   * Checks a shape for {@link #write}.
   *
   * @param width the residual width
   * @param layers the decoder layers
   * @throws IllegalArgumentException unless the width is a multiple of 32 in [32, 1024] and the layers in [1, 32]
   */
  public static void requireShape(int width, int layers) {
    if (width < 32 || width > 1024 || width % 32 != 0 || layers < 1 || layers > 32) {
      throw new IllegalArgumentException("the tiny model's width must be a multiple of 32 in [32, 1024] and its"
          + " layers in [1, 32], got width " + width + " and " + layers + " layers");
    }
  }

  /**
   * Writes the model (width 64 and 2 layers give exactly {@link TinyCheckpoint.Spec#small}'s heads and MLP).
   *
   * @param dir the directory to write
   * @param corpus the text the tokenizer learns its merges from
   * @param seed the seed of the merges and the initial weights
   * @param width the residual width, a multiple of 32
   * @param layers the decoder layers
   * @return the directory
   * @throws IllegalArgumentException when the shape is impossible
   */
  public static Path write(Path dir, String corpus, long seed, int width, int layers) {
    requireShape(width, layers);
    TinyCheckpoint.Spec small = TinyCheckpoint.Spec.small(corpus, seed);
    int heads = width / 16;
    TinyCheckpoint.write(dir, new TinyCheckpoint.Spec(width, layers, heads, heads / 2, 16, 3 * width,
        small.maxMerges(), small.corpus(), small.seed()));
    return dir;
  }

  /**
   * Checks that a cached model (a tiny model or a warm start made from one) has the asked shape.
   *
   * @param dir the directory holding its {@code config.json}
   * @param what what it is, for the message ("tiny model", "warm start")
   * @param width the asked residual width
   * @param layers the asked decoder layers
   * @throws IllegalStateException when it has another shape
   */
  public static void requireCachedShape(Path dir, String what, int width, int layers) {
    Qwen3Config cached = Qwen3Config.fromFile(dir);
    if (cached.hiddenSize() != width || cached.numHiddenLayers() != layers) {
      throw new IllegalStateException("the " + what + " cached in " + dir + " has width " + cached.hiddenSize()
          + " and " + cached.numHiddenLayers() + " layers, not " + width + " and " + layers
          + "; use another work directory or delete " + dir);
    }
  }
}
