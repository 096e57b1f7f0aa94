package org.magejvm.impl.llm;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Weights;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;
import org.magejvm.impl.llm.text.TinyTokenizer;

/**
 * Writes a tiny but complete Qwen3-architecture checkpoint directory (random weights, a small byte-level BPE
 * tokenizer with the Qwen3 chat template) in Hugging Face layout. The quick start and the tests use it where no real
 * weights can be downloaded; it loads through {@link Qwen3Checkpoint} like any downloaded model, so the loading code
 * path is the real one.
 *
 * <p>The weights are random, so the text it writes is noise until the policy is trained.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class TinyCheckpoint {

  /** Metadata key recording the initialisation seed in {@code model.safetensors}. */
  public static final String SEED_METADATA = "mage.tiny.seed";
  /** The context ({@code max_position_embeddings}) every tiny checkpoint is written with. */
  public static final int MAX_POSITION_EMBEDDINGS = 8192;

  private TinyCheckpoint() {}

  /**
   * The shape of the tiny model and how its tokenizer is trained.
   *
   * @param hiddenSize residual width
   * @param layers decoder layers
   * @param heads query heads
   * @param kvHeads key/value heads
   * @param headDim width of one head
   * @param intermediateSize SwiGLU width
   * @param maxMerges BPE merges learned from the corpus (0 for a pure byte-level tokenizer)
   * @param corpus text the tokenizer's merges are learned from
   * @param seed weight initialisation seed
   */
  public record Spec(
      int hiddenSize,
      int layers,
      int heads,
      int kvHeads,
      int headDim,
      int intermediateSize,
      int maxMerges,
      String corpus,
      long seed) {

    /**
     * Validates.
     *
     * @param hiddenSize residual width
     * @param layers layers
     * @param heads heads
     * @param kvHeads key/value heads
     * @param headDim head width
     * @param intermediateSize MLP width
     * @param maxMerges merges
     * @param corpus corpus
     * @param seed seed
     */
    public Spec {
      Objects.requireNonNull(corpus, "corpus");
      if (hiddenSize < 1 || layers < 1 || heads < 1 || kvHeads < 1 || headDim < 2 || intermediateSize < 1
          || maxMerges < 0) {
        throw new IllegalArgumentException("tiny checkpoint sizes must be positive (merges >= 0)");
      }
    }

    /**
     * About 0.13M parameters (131,776 with the quick start's Kuhn Poker tokenizer): width 64, 2 layers, 4 query and
     * 2 key/value heads of width 16, MLP 192, up to 256 merges.
     *
     * @param corpus text to learn the tokenizer's merges from (for example rendered prompts)
     * @param seed weight seed
     * @return the spec
     */
    public static Spec small(String corpus, long seed) {
      return new Spec(64, 2, 4, 2, 16, 192, 256, corpus, seed);
    }

    /**
     * @param s the weight seed
     * @return a copy with that seed
     */
    public Spec withSeed(long s) {
      return new Spec(hiddenSize, layers, heads, kvHeads, headDim, intermediateSize, maxMerges, corpus, s);
    }
  }

  /**
   * Writes {@code config.json}, {@code model.safetensors}, {@code tokenizer.json} and {@code tokenizer_config.json}
   * into a directory (created if needed; existing files of those names are replaced).
   *
   * @param dir the directory
   * @param spec the model shape, tokenizer corpus and seed
   * @return the config that was written
   * @throws CheckpointException when the files cannot be written
   */
  public static Qwen3Config write(Path dir, Spec spec) {
    TinyTokenizer tokenizer = TinyTokenizer.builder().optCorpus(spec.corpus()).optMaxMerges(spec.maxMerges()).build();
    tokenizer.writeTo(dir);
    Qwen3Config config = Qwen3Config.builder()
        .setVocabSize(tokenizer.vocabSize())
        .setHiddenSize(spec.hiddenSize())
        .setIntermediateSize(spec.intermediateSize())
        .setNumHiddenLayers(spec.layers())
        .setNumAttentionHeads(spec.heads())
        .optNumKeyValueHeads(spec.kvHeads())
        .optHeadDim(spec.headDim())
        .optTieWordEmbeddings(true)
        .optMaxPositionEmbeddings(MAX_POSITION_EMBEDDINGS)
        .addEosTokenId(tokenizer.addedTokenId("<|im_end|>"))
        .build();
    try {
      Files.writeString(dir.resolve(Qwen3Config.FILE_NAME), config.toJson(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CheckpointException("cannot write " + dir.resolve(Qwen3Config.FILE_NAME) + ": " + e.getMessage(), e);
    }
    try (Qwen3Weights weights = Qwen3Weights.random(config, spec.seed(), Device.cpu(), DataType.FLOAT32)) {
      SafetensorsWriter writer = new SafetensorsWriter();
      for (Map.Entry<String, NDArray> e : weights.parameters().entrySet()) {
        writer.add(e.getKey(), e.getValue(), SafetensorsDtype.F32);
      }
      writer.addMetadata(SEED_METADATA, Long.toString(spec.seed()));
      writer.write(dir.resolve("model.safetensors"));
    }
    return config;
  }
}
