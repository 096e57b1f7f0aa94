package org.magejvm.examples.memory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;

/**
 * The memory one training step of a Qwen3 model needs on its device: weights, trainable parameters, their
 * gradients, AdamW's two moments, and the activations a teacher-forced forward and backward pass keeps, without
 * recomputation (no activation checkpointing), computed from the architecture as below.
 *
 * <p>Notation: B sequences (the micro-batch), P prompt and T response tokens, L = P + T; d hidden size, I
 * intermediate size, H query heads, K key/value heads, h head width, V vocabulary, r the LoRA rank and m the number
 * of adapted projections per layer; a the bytes of the weight type (2 for float16, 4 for float32), and x = a when
 * the weights are float16 and 0 for float32 (a float16 copy of a float32 result that the next product reads).
 *
 * <table>
 *   <caption>What is counted, in bytes</caption>
 *   <tr><th>part</th><th>bytes</th><th>what it is</th></tr>
 *   <tr><td>base weights</td><td>N_base a</td><td>{@link Qwen3Config#parameterCount()} (a tied head once)</td></tr>
 *   <tr><td>LoRA adapters</td><td>N_lora 4</td><td>N_lora = layers x r x sum over the targets of (in + out); A and
 *       B are float32 even on a float16 model</td></tr>
 *   <tr><td>gradients</td><td>N_train 4</td><td>one float32 gradient per trainable parameter</td></tr>
 *   <tr><td>AdamW moments</td><td>2 N_train 4</td><td>first and second moment, float32</td></tr>
 *   <tr><td>hidden states</td><td>layers B L 2d (8 + a) + B L d 8</td><td>each RMSNorm keeps its float32 input
 *       and normalised value (norms run in float32) and its output in the weight type, which the next projections
 *       read; the final norm keeps the first two</td></tr>
 *   <tr><td>attention q, k, v, output</td><td>layers B L (H + K) h (8 + 2a)</td><td>queries and keys: the float32
 *       input and normalised value of the per-head RMSNorm and the rotated result in the weight type (the input of
 *       the score product); values and the attention output (the input of o_proj) in the weight type</td></tr>
 *   <tr><td>attention scores</td><td>layers B H L^2 (4 + x)</td><td>the float32 softmax output that softmax's
 *       backward needs, and its weight-type copy that the product with V keeps</td></tr>
 *   <tr><td>MLP intermediates</td><td>layers B L 5I a</td><td>gate, sigmoid(gate), silu(gate), up and
 *       silu(gate) x up (the input of down_proj)</td></tr>
 *   <tr><td>LoRA intermediates</td><td>layers B L r m 4</td><td>x A^T of every adapted projection (B's gradient
 *       reads it)</td></tr>
 *   <tr><td>attention mask</td><td>B L^2 13</td><td>the causal and padding mask, built once per forward pass: a
 *       boolean and three float32 arrays of shape (B, L, L)</td></tr>
 *   <tr><td>logits</td><td>B T (V (8 + x) + d a)</td><td>teacher forcing scores the T response positions only:
 *       float32 logits and their log-softmax (and the weight-type product when the weights are float16), plus the
 *       head's input; a trainer that scores every position needs L instead of T here</td></tr>
 *   <tr><td>backward working memory</td><td>max(2 B T V 4, 2 B H L^2 4)</td><td>the largest gradients the backward
 *       pass holds at once next to the saved activations: those of the log-softmax and the logits, or one layer's
 *       gradients of the attention probabilities and scores</td></tr>
 * </table>
 *
 * <p>These are the arrays {@code Qwen3Model.forward} and {@code TeacherForcing} leave to autograd for a model with
 * per-head query/key norms (every Qwen3); the attention is computed explicitly, so its scores grow with L^2 (a fused
 * flash-attention kernel would keep none of them). On the CPU, the peak resident memory of one float32 LoRA
 * forward and backward pass came within 10% of the activation estimate ({@code mage bench memory},
 * docs/training.md); the float16 terms follow from the same arrays and were not measured.
 *
 * <p>Not counted: the CUDA context and allocator slack (typically 0.5 to 1 GB on a GPU), the tokenizer, the Java
 * heap, and the KV cache of rollouts ({@link #kvCacheBytesPerSequence}), which are sampled between updates, not
 * during them. Full fine-tuning ({@code rank = 0}) trains every base weight in float32: gradients and moments then
 * cover all N_base parameters.
 *
 * @param config the architecture
 * @param rank the LoRA rank, or 0 for full fine-tuning
 * @param targets the adapted projections (ignored for full fine-tuning)
 * @param promptTokens P
 * @param responseTokens T
 * @param batch B
 * @param weightBytes a: 2 (float16) or 4 (float32)
 */
public record TrainingMemory(
    Qwen3Config config, int rank, Set<Projection> targets, int promptTokens, int responseTokens, int batch,
    int weightBytes) {

  /**
   * Validates.
   *
   * @param config architecture
   * @param rank LoRA rank or 0
   * @param targets adapted projections
   * @param promptTokens P
   * @param responseTokens T
   * @param batch B
   * @param weightBytes a
   */
  public TrainingMemory {
    Objects.requireNonNull(config, "config");
    targets = Collections.unmodifiableSet(Set.copyOf(targets));
    if (rank < 0 || promptTokens < 1 || responseTokens < 1 || batch < 1) {
      throw new IllegalArgumentException("rank must be >= 0, token counts and batch >= 1");
    }
    if (weightBytes != 2 && weightBytes != 4) {
      throw new IllegalArgumentException("weightBytes must be 2 or 4, got " + weightBytes);
    }
    if (rank == 0 && weightBytes != 4) {
      throw new IllegalArgumentException("full fine-tuning needs float32 weights");
    }
  }

  /** @return whether every base weight trains */
  public boolean full() {
    return rank == 0;
  }

  /** @return the LoRA parameter count (0 for full fine-tuning) */
  public long adapterParameters() {
    if (full()) {
      return 0;
    }
    long perLayer = 0;
    for (Projection p : targets) {
      perLayer += (long) rank * (p.inFeatures(config) + p.outFeatures(config));
    }
    return perLayer * config.numHiddenLayers();
  }

  /** @return the parameters the optimizer updates */
  public long trainableParameters() {
    return full() ? config.parameterCount() : adapterParameters();
  }

  /** @return L = P + T */
  public long sequence() {
    return (long) promptTokens + responseTokens;
  }

  /** @return the extra bytes of a weight-type copy of a float32 result: a for float16 weights, 0 for float32 */
  private long narrowCopy() {
    return weightBytes == 4 ? 0 : weightBytes;
  }

  /**
   * Every part, in bytes, in the order of the table above; activation parts are summed over the layers.
   *
   * @return part name to bytes
   */
  public Map<String, Long> parts() {
    long b = batch;
    long l = sequence();
    long t = responseTokens;
    long d = config.hiddenSize();
    long heads = config.numAttentionHeads();
    long kv = config.numKeyValueHeads();
    long hd = config.headDim();
    long inter = config.intermediateSize();
    long vocab = config.vocabSize();
    long layers = config.numHiddenLayers();
    long a = weightBytes;
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("base weights", config.parameterCount() * a);
    m.put("LoRA adapters", adapterParameters() * 4);
    m.put("gradients", trainableParameters() * 4);
    m.put("AdamW moments", 2 * trainableParameters() * 4);
    m.put("hidden states", layers * b * l * 2 * d * (8 + a) + b * l * d * 8);
    m.put("attention q, k, v, output", layers * b * l * (heads + kv) * hd * (8 + 2 * a));
    m.put("attention scores", layers * b * heads * l * l * (4 + narrowCopy()));
    m.put("MLP intermediates", layers * b * l * 5 * inter * a);
    m.put("LoRA intermediates", full() ? 0 : layers * b * l * rank * targets.size() * 4);
    m.put("attention mask", b * l * l * 13);
    m.put("logits", b * t * (vocab * (8 + narrowCopy()) + d * a));
    m.put("backward working memory", Math.max(2 * b * t * vocab * 4, 2 * b * heads * l * l * 4));
    return m;
  }

  /** @return the names of the activation parts (everything that grows with B and L) */
  public static List<String> activationParts() {
    return List.of("hidden states", "attention q, k, v, output", "attention scores", "MLP intermediates",
        "LoRA intermediates", "attention mask", "logits", "backward working memory");
  }

  /** @return the sum of the activation parts */
  public long activationBytes() {
    long s = 0;
    Map<String, Long> p = parts();
    for (String k : activationParts()) {
      s += p.get(k);
    }
    return s;
  }

  /** @return the sum of every part */
  public long totalBytes() {
    long s = 0;
    for (long v : parts().values()) {
      s += v;
    }
    return s;
  }

  /**
   * The total without the arrays that grow with L^2 (attention scores, mask, and their gradients), which is what a
   * fused attention kernel (flash attention) would need: the backward working memory is then the logits' part.
   *
   * @return bytes
   */
  public long totalWithoutQuadraticBytes() {
    Map<String, Long> p = parts();
    return totalBytes() - p.get("attention scores") - p.get("attention mask") - p.get("backward working memory")
        + 2L * batch * responseTokens * config.vocabSize() * 4;
  }

  /**
   * The KV cache one sequence of L tokens needs while sampling (not part of the training step): layers x 2 x K x h
   * x L x a.
   *
   * @return bytes
   */
  public long kvCacheBytesPerSequence() {
    return (long) config.numHiddenLayers() * 2 * config.numKeyValueHeads() * config.headDim() * sequence()
        * weightBytes;
  }

  /** @return the parts that are not activations, in table order */
  public static List<String> staticParts() {
    List<String> out = new ArrayList<>(List.of("base weights", "LoRA adapters", "gradients", "AdamW moments"));
    return Collections.unmodifiableList(out);
  }
}
