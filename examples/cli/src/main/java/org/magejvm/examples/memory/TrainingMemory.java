package org.magejvm.examples.memory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.magejvm.impl.llm.generate.Recompute;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.model.AttentionKernel;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * The memory one training step of a Qwen3 model needs on its device: weights, trainable parameters, their
 * gradients, AdamW's two moments, and the activations a teacher-forced forward and backward pass keeps, computed
 * from the architecture as below, for each of the library's three memory-saving choices: fused attention ({@link
 * AttentionKernel}), recomputed decoder layers and a recomputed output head ({@link Recompute}, {@link
 * TeacherForcing#withRecompute}).
 *
 * <p>Notation: B sequences (the micro-batch), P prompt and T response tokens, L = P + T; d hidden size, I
 * intermediate size, H query heads, K key/value heads, h head width, V vocabulary, r the LoRA rank and m the number
 * of adapted projections per layer; a the bytes of the weight type (2 for float16, 4 for float32), and x = a when
 * the weights are float16 and 0 for float32 (a float16 copy of a float32 result that the next product reads); n the
 * layers whose activations exist at once: every layer when they are kept, 1 when they are recomputed (the backward
 * pass then runs one layer forward again at a time and back-propagates through it); c = min(T, {@value
 * TeacherForcing#DEFAULT_POSITION_CHUNK}) the positions of one chunk of the output head.
 *
 * <table>
 *   <caption>What is counted, in bytes</caption>
 *   <tr><th>part</th><th>bytes</th><th>what it is</th></tr>
 *   <tr><td>base weights</td><td>N_base a</td><td>{@link Qwen3Config#parameterCount()} (a tied head once)</td></tr>
 *   <tr><td>LoRA adapters</td><td>N_lora 4</td><td>N_lora = layers x r x sum over the targets of (in + out); A and
 *       B are float32 even on a float16 model</td></tr>
 *   <tr><td>gradients</td><td>N_train 4</td><td>one float32 gradient per trainable parameter</td></tr>
 *   <tr><td>AdamW moments</td><td>2 N_train 4</td><td>first and second moment, float32</td></tr>
 *   <tr><td>layer inputs</td><td>kept layers: 0; recomputed layers: layers B L d 4</td><td>the float32 input of
 *       every decoder layer, from which the backward pass recomputes it</td></tr>
 *   <tr><td>hidden states</td><td>n B L 2d (8 + a) + B L d 8</td><td>each RMSNorm keeps its float32 input and
 *       normalised value (norms run in float32) and its output in the weight type, which the next projections
 *       read; the final norm keeps the first two (its input is the last layer's output)</td></tr>
 *   <tr><td>attention q, k, v, output</td><td>explicit: n B L (H + K) h (8 + 2a); fused: n B L h (8 (H + K) +
 *       4 H a)</td><td>queries and keys: the float32 input and normalised value of the per-head RMSNorm; the rotated
 *       queries and the attention output (the input of o_proj) in the weight type; explicit: the rotated keys and
 *       the values, K heads each, in the weight type; fused: the keys and values repeated to H heads (grouped-query
 *       attention) for the kernel, which keeps those copies</td></tr>
 *   <tr><td>attention scores</td><td>explicit: n B H L^2 (4 + x); fused: n B H L (h a + 4)</td><td>explicit: the
 *       float32 softmax output that softmax's backward needs, and its weight-type copy that the product with V
 *       keeps; fused: no scores, the kernel keeps its output and a float32 log-sum-exp per query and head</td></tr>
 *   <tr><td>MLP intermediates</td><td>n B L 5I a</td><td>gate, sigmoid(gate), silu(gate), up and silu(gate) x up
 *       (the input of down_proj)</td></tr>
 *   <tr><td>LoRA intermediates</td><td>n B L r m 4</td><td>x A^T of every adapted projection (B's gradient reads
 *       it)</td></tr>
 *   <tr><td>attention mask</td><td>explicit: B L^2 13; fused: 0</td><td>the causal and padding mask, built once per
 *       forward pass (recomputed layers included): a boolean and three float32
 *       arrays of shape (B, L, L); the fused kernel masks inside itself</td></tr>
 *   <tr><td>logits</td><td>kept head: B T (V (8 + x) + d a); recomputed head: B (L + T) d 4</td><td>teacher
 *       forcing scores the T response positions only: float32 logits and their log-softmax (and the weight-type
 *       product when the weights are float16), plus the head's input; a trainer that scores every position needs L
 *       instead of T here. A recomputed head keeps no vocabulary-sized array: only the float32 final-norm output
 *       that its response slice holds on to, and the slice's copy that the backward pass differentiates</td></tr>
 *   <tr><td>backward working memory</td><td>max(head, attention, layer); head: kept 2 B T V 4, recomputed 4 B c V
 *       4; attention: explicit 2 B H L^2 4, fused 3 B H L h 4; layer: 0 when the layers are kept, else the one
 *       layer's activation parts above (without the final norm's)</td><td>the largest gradients the backward pass
 *       holds at once next to the saved activations: those of the log-softmax and the logits (a recomputed head: one
 *       chunk's logits, log-softmax and their gradients), one layer's gradients of the attention probabilities and
 *       scores (fused: of the queries and the repeated keys and values), or, with recomputed layers, the gradients of
 *       the recomputed layer's activations (about as large as they are)</td></tr>
 * </table>
 *
 * <p>These are the arrays {@code Qwen3Model.forward} (or {@code forwardRecomputed}) and {@code TeacherForcing} leave
 * to autograd for a model with per-head query/key norms (every Qwen3). The sum is an upper bound where the
 * recomputations make phases of the backward pass apart: with recomputed layers, the one layer recomputed at a time
 * exists after the head's arrays are freed, but both are counted. On the CPU, the peak resident memory of one
 * float32 LoRA forward and backward pass with explicit attention and nothing recomputed came within 10% of the
 * activation estimate ({@code mage bench memory}, docs/training.md and docs/benchmarks.md); the float16 terms
 * follow from the same arrays and were not measured.
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
 * @param fusedAttention whether attention runs the fused kernel ({@link AttentionKernel#FUSED}) rather than the
 *     explicit path
 * @param recomputeLayers whether the decoder layers are recomputed in the backward pass
 * @param recomputeHead whether the output head's logits are recomputed in the backward pass
 */
public record TrainingMemory(
    Qwen3Config config, int rank, Set<Projection> targets, int promptTokens, int responseTokens, int batch,
    int weightBytes, boolean fusedAttention, boolean recomputeLayers, boolean recomputeHead) {

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
   * @param fusedAttention fused attention
   * @param recomputeLayers recomputed layers
   * @param recomputeHead recomputed head
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

  /**
   * A step with explicit attention that keeps every activation (what the library did before its memory-saving
   * passes, and what {@link AttentionKernel#EXPLICIT} with {@link Recompute#OFF} for both still does).
   *
   * @param config architecture
   * @param rank LoRA rank or 0
   * @param targets adapted projections
   * @param promptTokens P
   * @param responseTokens T
   * @param batch B
   * @param weightBytes a
   */
  public TrainingMemory(Qwen3Config config, int rank, Set<Projection> targets, int promptTokens, int responseTokens,
      int batch, int weightBytes) {
    this(config, rank, targets, promptTokens, responseTokens, batch, weightBytes, false, false, false);
  }

  /**
   * The step the library runs for these choices: {@link AttentionKernel#AUTO} fuses from {@link
   * Qwen3Model#FUSED_FROM_KEYS} key slots (L = P + T), and {@link Recompute#AUTO} recomputes the layers where {@link
   * TeacherForcing#layerActivationBytes} of B L slots, and the head where {@link
   * TeacherForcing#headActivationBytes} of B T positions, reach {@link TeacherForcing#RECOMPUTE_FROM_BYTES}, as a
   * training pass decides (the library falls back to explicit attention where libtorch cannot load its fused
   * kernel; this assumes it can).
   *
   * @param config architecture
   * @param rank LoRA rank or 0
   * @param targets adapted projections
   * @param promptTokens P
   * @param responseTokens T
   * @param batch B
   * @param weightBytes a
   * @param attention the attention choice ({@code update.attention})
   * @param layers the layers' recomputation choice ({@code update.recompute_layers})
   * @param head the head's recomputation choice ({@code update.recompute_head})
   * @return the estimate, its choices resolved
   */
  public static TrainingMemory resolved(Qwen3Config config, int rank, Set<Projection> targets, int promptTokens,
      int responseTokens, int batch, int weightBytes, AttentionKernel attention, Recompute layers, Recompute head) {
    Objects.requireNonNull(config, "config");
    long sequence = (long) promptTokens + responseTokens;
    return new TrainingMemory(config, rank, targets, promptTokens, responseTokens, batch, weightBytes,
        fuses(attention, sequence),
        recomputes(layers, TeacherForcing.layerActivationBytes(config, (long) batch * sequence)),
        recomputes(head, TeacherForcing.headActivationBytes(config, (long) batch * responseTokens)));
  }

  /**
   * @param attention the choice
   * @param keys key slots per row
   * @return whether a training pass over that many key slots runs the fused kernel
   */
  static boolean fuses(AttentionKernel attention, long keys) {
    Objects.requireNonNull(attention, "attention");
    return attention == AttentionKernel.FUSED
        || attention == AttentionKernel.AUTO && keys >= Qwen3Model.FUSED_FROM_KEYS;
  }

  /**
   * @param choice the choice
   * @param bytes the activation bytes the part would keep
   * @return whether a training pass recomputes the part
   */
  static boolean recomputes(Recompute choice, long bytes) {
    Objects.requireNonNull(choice, "choice");
    return choice == Recompute.ON || choice == Recompute.AUTO && bytes >= TeacherForcing.RECOMPUTE_FROM_BYTES;
  }

  /**
   * @param fused fused attention
   * @param layers recomputed layers
   * @param head recomputed head
   * @return this step with other memory-saving choices
   */
  public TrainingMemory with(boolean fused, boolean layers, boolean head) {
    return new TrainingMemory(config, rank, targets, promptTokens, responseTokens, batch, weightBytes, fused, layers,
        head);
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
    long n = recomputeLayers ? 1 : layers;
    long a = weightBytes;
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("base weights", config.parameterCount() * a);
    m.put("LoRA adapters", adapterParameters() * 4);
    m.put("gradients", trainableParameters() * 4);
    m.put("AdamW moments", 2 * trainableParameters() * 4);
    m.put("layer inputs", recomputeLayers ? layers * b * l * d * 4 : 0);
    m.put("hidden states", n * b * l * 2 * d * (8 + a) + b * l * d * 8);
    m.put("attention q, k, v, output", fusedAttention
        ? n * b * l * hd * (8 * (heads + kv) + 4 * heads * a)
        : n * b * l * (heads + kv) * hd * (8 + 2 * a));
    m.put("attention scores", fusedAttention
        ? n * b * heads * l * (hd * a + 4)
        : n * b * heads * l * l * (4 + narrowCopy()));
    m.put("MLP intermediates", n * b * l * 5 * inter * a);
    m.put("LoRA intermediates", full() ? 0 : n * b * l * rank * targets.size() * 4);
    m.put("attention mask", fusedAttention ? 0 : b * l * l * 13);
    m.put("logits", recomputeHead ? b * (l + t) * d * 4 : b * t * (vocab * (8 + narrowCopy()) + d * a));
    long chunk = Math.min(t, TeacherForcing.DEFAULT_POSITION_CHUNK);
    long headWork = recomputeHead ? 4 * b * chunk * vocab * 4 : 2 * b * t * vocab * 4;
    long attentionWork = fusedAttention ? 3 * b * heads * l * hd * 4 : 2 * b * heads * l * l * 4;
    // with recomputed layers, back-propagating through the one recomputed layer holds about as many gradients as
    // it has activations (measured: mage bench memory, docs/benchmarks.md)
    long layerWork = recomputeLayers ? m.get("hidden states") - b * l * d * 8 + m.get("attention q, k, v, output")
        + m.get("attention scores") + m.get("MLP intermediates") + m.get("LoRA intermediates") : 0;
    m.put("backward working memory", Math.max(Math.max(headWork, attentionWork), layerWork));
    return m;
  }

  /** @return the names of the activation parts (everything that grows with B and L) */
  public static List<String> activationParts() {
    return List.of("layer inputs", "hidden states", "attention q, k, v, output", "attention scores",
        "MLP intermediates", "LoRA intermediates", "attention mask", "logits", "backward working memory");
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
