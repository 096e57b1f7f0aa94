package org.magejvm.examples.memory;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.magejvm.impl.llm.model.Qwen3Config;

/**
 * The published architectures of the dense Qwen3 models this project targets, for planning without a download.
 *
 * <p>Source: the {@code config.json} files of the Hugging Face repositories {@code Qwen/Qwen3-0.6B},
 * {@code Qwen/Qwen3-1.7B} and {@code Qwen/Qwen3-4B}, and their model cards (layers, query/key-value heads, tied
 * embeddings). All three have {@code head_dim} 128, {@code vocab_size} 151936, {@code tie_word_embeddings} true,
 * {@code rope_theta} 1000000, {@code rms_norm_eps} 1e-6 and {@code max_position_embeddings} 40960.
 *
 * <table>
 *   <caption>The values</caption>
 *   <tr><th>preset</th><th>hidden_size</th><th>intermediate_size</th><th>num_hidden_layers</th>
 *       <th>num_attention_heads</th><th>num_key_value_heads</th></tr>
 *   <tr><td>qwen3-0.6b</td><td>1024</td><td>3072</td><td>28</td><td>16</td><td>8</td></tr>
 *   <tr><td>qwen3-1.7b</td><td>2048</td><td>6144</td><td>28</td><td>16</td><td>8</td></tr>
 *   <tr><td>qwen3-4b</td><td>2560</td><td>9728</td><td>36</td><td>32</td><td>8</td></tr>
 * </table>
 *
 * <p>{@link Qwen3Config#parameterCount()} gives 0.60B, 1.72B and 4.02B parameters for them, of which 0.44B, 1.41B
 * and 3.63B lie outside the embedding: the figures the model cards state (0.6B/0.44B, 1.7B/1.4B, 4.0B/3.6B).
 */
public final class Qwen3Presets {

  private static final Map<String, Qwen3Config> PRESETS = build();

  private Qwen3Presets() {}

  private static Map<String, Qwen3Config> build() {
    Map<String, Qwen3Config> m = new LinkedHashMap<>();
    m.put("qwen3-0.6b", qwen3(1024, 3072, 28, 16, 8));
    m.put("qwen3-1.7b", qwen3(2048, 6144, 28, 16, 8));
    m.put("qwen3-4b", qwen3(2560, 9728, 36, 32, 8));
    return Collections.unmodifiableMap(m);
  }

  private static Qwen3Config qwen3(int hidden, int intermediate, int layers, int heads, int kvHeads) {
    return Qwen3Config.builder().setVocabSize(151_936).setHiddenSize(hidden).setIntermediateSize(intermediate)
        .setNumHiddenLayers(layers).setNumAttentionHeads(heads).optNumKeyValueHeads(kvHeads).optHeadDim(128)
        .optTieWordEmbeddings(true).optMaxPositionEmbeddings(40_960).optRopeTheta(1_000_000).optRmsNormEps(1e-6)
        .build();
  }

  /** @return every preset by name ({@code qwen3-0.6b}, {@code qwen3-1.7b}, {@code qwen3-4b}), in size order */
  public static Map<String, Qwen3Config> all() {
    return PRESETS;
  }

  /**
   * @param name a preset name, in any case
   * @return its config, or empty
   */
  public static Optional<Qwen3Config> get(String name) {
    return Optional.ofNullable(name == null ? null : PRESETS.get(name.trim().toLowerCase(Locale.ROOT)));
  }
}
