package org.magejvm.impl.llm.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.Activation;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;
import org.magejvm.impl.llm.safetensors.TensorSource;

/**
 * The Qwen3-family decoder's forward pass on DJL arrays: token embedding, then per layer RMSNorm, grouped-query
 * attention with per-head q/k RMSNorm and rotate-half rotary embeddings, a residual add, RMSNorm, a SwiGLU MLP and
 * another residual add; then the final RMSNorm and the (tied or separate) output head.
 *
 * <p><b>Batches.</b> Sequences of different lengths are <i>left-padded</i> to a common length: row {@code b} has
 * {@code padLeft[b]} padding slots followed by its tokens, so the last slot of every row is a real token and a
 * decoding step appends one slot to every row. A padding slot is never attended to by a real token, and positions
 * count from each row's first real token, so every row computes what it would compute alone. (A padding slot
 * attends to itself only, which keeps its meaningless values finite.)
 *
 * <p><b>Precision.</b> The residual stream, every RMSNorm, the rotary embedding, the attention softmax and the
 * returned hidden states and logits are FLOAT32 (FLOAT64 for a FLOAT64 model); only the inputs and outputs of the
 * matrix products and the KV cache use the weights' type, so FLOAT16 weights cannot overflow the norms or the
 * softmax.
 *
 * <p><b>Memory.</b> Every array a call creates belongs to the manager of the {@code inputIds} array it is given
 * (never to the weights' manager); intermediate arrays are closed before the call returns (with autograd on, the
 * graph keeps what the backward pass needs). Only the returned array is left to the caller. Beware that on the CPU
 * an array created from Java data ({@code manager.create(float[])} and the like) does not own its storage, it
 * borrows a direct buffer that may be freed once the array is closed; views and no-op conversions of it borrow the
 * same memory. Anything that must outlive such an array, or that autograd saves for a backward pass after it is
 * closed, must be a {@code duplicate()}.
 *
 * <p>Gradients flow to the weights when they {@linkplain Qwen3Weights#requireGradients require gradients} and the
 * thread's grad mode is on (inside a {@code GradientCollector}). A model may be used by one thread at a time.
 *
 * <p><b>Adapters.</b> A {@link ProjectionAdapter} (LoRA) {@linkplain #setAdapter attached} to the model corrects
 * the output of each adapted projection while it is {@linkplain ProjectionAdapter#isEnabled enabled}; everything
 * that runs the model ({@link #forward}, {@link #logits(NDManager, int[][])}, generation, teacher forcing) sees it.
 * With no adapter, or a disabled one, the forward pass is exactly the base model's. Do not switch an adapter on or
 * off, or replace it, between the steps of a cached decode: the cache holds keys and values computed with the old
 * setting.
 */
public final class Qwen3Model implements AutoCloseable {
  private final Qwen3Weights weights;
  private final Qwen3Config config;
  private final DataType dtype;
  private final DataType normType;
  /** The rotary tables' frequencies and the rotate-half matrix. */
  private final Rotary rotary;
  /** Constants as arrays: DJL turns every Java scalar operand into a new array (about 25 us each on a CPU). */
  private final NDArray eps;
  private final NDArray minusHalf;
  private final NDArray queryScale;
  /** The attached adapter, or null. */
  private ProjectionAdapter adapter;
  /** Whether {@link ScriptedDecodeStep} can run this model's layers (no biases, a dtype it knows). */
  private final boolean scriptable;
  private volatile boolean scriptedDecoding = true;
  private volatile AttentionKernel attention = AttentionKernel.AUTO;

  /**
   * The key slots per row from which {@link AttentionKernel#AUTO} uses the fused kernel. Below it a pass keeps the
   * explicit path, whose memory is then small (at most a few MiB of scores per head and row) and whose results are
   * those of earlier versions bit for bit (the quick start's documented rows among them). The fused kernel was as
   * fast or faster at every length measured ({@code ./mage bench memory}, docs/benchmarks.md), so the threshold is
   * about reproducing earlier results, not speed.
   */
  public static final int FUSED_FROM_KEYS = 1024;

  /**
   * Wraps loaded or random weights; the model owns them from now on.
   *
   * @param weights the parameters
   */
  public Qwen3Model(Qwen3Weights weights) {
    this.weights = Objects.requireNonNull(weights, "weights");
    this.config = weights.config();
    this.dtype = weights.dtype();
    this.normType = Qwen3Weights.normDtype(dtype);
    rotary = new Rotary(config, weights.manager(), normType);
    eps = constant(weights.manager(), new double[] {config.rmsNormEps()}, new Shape(), normType);
    minusHalf = constant(weights.manager(), new double[] {-0.5}, new Shape(), normType);
    queryScale = constant(weights.manager(), new double[] {1.0 / Math.sqrt(config.headDim())}, new Shape(),
        normType);
    scriptable = ScriptedDecodeStep.scalarType(dtype) >= 0 && ScriptedDecodeStep.scalarType(normType) >= 0
        && weights.layers().stream().allMatch(l -> l.qBias() == null && l.kBias() == null && l.vBias() == null
            && l.oBias() == null && (config.qkNorm() == (l.qNorm() != null && l.kNorm() != null)));
  }

  /** A model-lifetime array of the given (norm) type that owns its storage and is outside any caller's scope. */
  static NDArray constant(NDManager m, double[] values, Shape shape, DataType type) {
    // duplicate(): an array created from Java memory only borrows that buffer; the copy owns its storage
    try (NDArray d = m.create(values, shape); NDArray t = d.toType(type, false)) {
      NDArray c = t.duplicate();
      NDScope.unregister(c);
      return c;
    }
  }

  /**
   * Chooses how a decoding step (one new slot per row with a {@link KvCache}, no adapter, no gradients) runs: as
   * one TorchScript call (the default, where libtorch loads the script) or as one DJL call per operation. Both compute
   * the same values to the bit; the script saves the cost of some 600 calls a step, which is most of a small
   * model's step at batch 1. Prompts, training passes and adapters always run from Java.
   *
   * @param enabled whether decoding steps may run as one TorchScript call
   */
  public void setScriptedDecoding(boolean enabled) {
    scriptedDecoding = enabled;
  }

  /**
   * Chooses how attention is computed in passes of more than one slot per row (see {@link AttentionKernel}). Where
   * libtorch cannot load the fused kernel's module, every pass uses the explicit path (after one warning).
   *
   * @param kernel the choice ({@link AttentionKernel#AUTO} by default)
   */
  public void setAttention(AttentionKernel kernel) {
    attention = Objects.requireNonNull(kernel, "kernel");
  }

  /** @return how attention is chosen for passes of more than one slot per row */
  public AttentionKernel attention() {
    return attention;
  }

  /** Whether a pass of {@code t} slots per row over {@code s} key slots uses the fused kernel. */
  boolean fused(int t, int s) {
    AttentionKernel k = attention;
    return t > 1 && (k == AttentionKernel.FUSED || k == AttentionKernel.AUTO && s >= FUSED_FROM_KEYS)
        && FusedAttention.instance().isPresent();
  }

  /** The fused kernel's view of a pass: padding, the first query's slot, a shared prefix, how masks are made. */
  record FusedPass(int[] padLeft, int offset, int prefix, boolean padQueries) {}

  /** @return whether a decoding step of this model runs as one TorchScript call when it can */
  public boolean scriptedDecoding() {
    return scriptedDecoding && scriptable && ScriptedDecodeStep.instance().isPresent();
  }

  /**
   * Loads a checkpoint's weights strictly (see {@link Qwen3Weights}).
   *
   * @param source the checkpoint's tensors
   * @param config its configuration
   * @param device where the model runs
   * @param dtype FLOAT32 (CPU default), FLOAT16 (intended for GPUs) or FLOAT64 (exact tests)
   * @return the model
   */
  public static Qwen3Model load(TensorSource source, Qwen3Config config, Device device, DataType dtype) {
    return new Qwen3Model(Qwen3Weights.load(source, config, device, dtype));
  }

  /**
   * Loads a checkpoint's weights strictly, choosing what happens to tensors holding NaN or infinite values.
   *
   * @param source the checkpoint's tensors
   * @param config its configuration
   * @param device where the model runs
   * @param dtype FLOAT32 (CPU default), FLOAT16 (intended for GPUs) or FLOAT64 (exact tests)
   * @param nonFinite what to do with non-finite weights ({@link Qwen3Weights#load(TensorSource, Qwen3Config,
   *     Device, DataType)} refuses them)
   * @return the model
   */
  public static Qwen3Model load(TensorSource source, Qwen3Config config, Device device, DataType dtype,
      NonFiniteCheck nonFinite) {
    return new Qwen3Model(Qwen3Weights.load(source, config, device, dtype, true, nonFinite));
  }

  /**
   * A randomly initialised model (see {@link Qwen3Weights#random}).
   *
   * @param config the architecture
   * @param seed the initialisation seed
   * @param device where the model runs
   * @param dtype FLOAT32, FLOAT16 or FLOAT64
   * @return the model
   */
  public static Qwen3Model random(Qwen3Config config, long seed, Device device, DataType dtype) {
    return new Qwen3Model(Qwen3Weights.random(config, seed, device, dtype));
  }

  /** @return the architecture */
  public Qwen3Config config() {
    return config;
  }

  /** @return the parameters */
  public Qwen3Weights weights() {
    return weights;
  }

  /** @return the device the model runs on */
  public Device device() {
    return weights.device();
  }

  /** @return the weights' data type */
  public DataType dtype() {
    return dtype;
  }

  /** @return the type of hidden states and logits: FLOAT32, or FLOAT64 for a FLOAT64 model */
  public DataType outputType() {
    return normType;
  }

  /**
   * Attaches an adapter (replacing any attached one) or, with {@code null}, detaches it. The model does not own the
   * adapter: closing the model leaves it open, and the caller closes it.
   *
   * @param adapter the adapter, or null for the base model
   * @throws IllegalArgumentException when the adapter was made for another architecture, weight type or device
   */
  public void setAdapter(ProjectionAdapter adapter) {
    if (adapter != null) {
      adapter.checkCompatible(config, dtype, device());
    }
    this.adapter = adapter;
  }

  /** @return the attached adapter (enabled or not), or empty */
  public Optional<ProjectionAdapter> adapter() {
    return Optional.ofNullable(adapter);
  }

  /**
   * A manager for per-call arrays, on the model's device; it is a child of the weights' manager, so closing the
   * model closes it too.
   *
   * @return a new manager the caller closes
   */
  public NDManager newManager() {
    return weights.manager().newSubManager();
  }

  /**
   * An empty key/value cache for a batch.
   *
   * @param parent the manager under which the cache allocates (its own child manager)
   * @param batch the number of rows
   * @param capacity the slots to allocate per row (it grows when needed)
   * @return the cache, to be closed by the caller
   */
  public KvCache newCache(NDManager parent, int batch, int capacity) {
    return new KvCache(parent, config, dtype, batch, capacity, Integer.MAX_VALUE);
  }

  /**
   * An empty key/value cache for a batch whose total length is known in advance: it starts small and, when it grows
   * by doubling, never allocates more than {@code maxLength} slots.
   *
   * @param parent the manager under which the cache allocates (its own child manager)
   * @param batch the number of rows
   * @param capacity the slots to allocate per row now
   * @param maxLength the most slots the caller will ever write per row
   * @return the cache, to be closed by the caller
   */
  public KvCache newCache(NDManager parent, int batch, int capacity, int maxLength) {
    return new KvCache(parent, config, dtype, batch, capacity, maxLength);
  }

  /**
   * Runs the decoder over a chunk of tokens.
   *
   * <p>Without a cache the chunk is the whole left-padded sequence (slots 0..T-1). With a cache the chunk occupies
   * slots [cache.length(), cache.length() + T) after the cached ones, its keys and values are written to the cache
   * (grown if needed) and the cache length advances by T.
   *
   * @param inputIds (B, T) token ids, INT64 or INT32, on the model's device; its manager will own the result
   * @param padLeft for each row, how many leading slots of the whole sequence are padding
   * @param cache the cache to extend, or null
   * @return the final-normed hidden states (B, T, D) in {@link #outputType()}
   */
  public NDArray forward(NDArray inputIds, int[] padLeft, KvCache cache) {
    return forward(inputIds, padLeft, cache, null);
  }

  /**
   * Runs the decoder over sequences that all begin with the same tokens, computing those tokens once: the prefix's
   * keys and values are computed for one row and shared by every row, and only the rows' own tokens (the suffixes,
   * left-padded to a common length after the prefix) pass through the layers per row. The result is that of {@link
   * #forward(NDArray, int[], KvCache)} over the whole sequences at the suffix slots, up to float rounding, and it is
   * differentiable (the shared prefix's gradient is the sum over the rows).
   *
   * @param prefixIds (1, P) token ids of the shared prefix, P at least 1, on the model's device
   * @param suffixIds (B, T) token ids of each row after the prefix, left-padded; its manager will own the result
   * @param padLeft for each row, how many leading slots of the suffix are padding
   * @return the final-normed hidden states of the suffix slots (B, T, D) in {@link #outputType()}
   */
  public NDArray forwardSharedPrefix(NDArray prefixIds, NDArray suffixIds, int[] padLeft) {
    Shape ps = prefixIds.getShape();
    if (ps.dimension() != 2 || ps.get(0) != 1 || ps.get(1) < 1) {
      throw new IllegalArgumentException("prefixIds must be (1, P) with P >= 1, got " + ps);
    }
    SharedPrefix prefix = new SharedPrefix(config.numHiddenLayers(), (int) ps.get(1));
    try {
      NDArray hidden = forward(prefixIds, new int[1], null, null, prefix);
      hidden.close();
      prefix.recording = false;
      return forward(suffixIds, padLeft, null, null, prefix);
    } finally {
      prefix.close();
    }
  }

  /**
   * A forward pass for training whose layers' activations are recomputed in the backward pass instead of kept
   * (activation checkpointing): it keeps only each layer's input, about {@code 4 B T D} bytes a layer instead of the
   * layer's every intermediate (norms, projections, MLP, attention), and the backward pass runs each layer forward
   * again, one at a time, before back-propagating through it. The values are those of {@link #forward(NDArray, int[],
   * KvCache)} (or {@link #forwardSharedPrefix} when a prefix is given) bit for bit; the gradients equal the kept
   * path's up to float rounding ({@code MemorySavingPassesTest}).
   *
   * <p>Call it with autograd on (inside a {@code GradientCollector}). The returned hidden states are connected to the
   * graph of the final norm only: after the caller's backward pass from a function of them, {@link
   * Recomputed#backward} carries the gradient through the layers and the embedding to the parameters. A prefix's
   * last layer output feeds nothing, so only its keys and values carry gradient.
   *
   * @param prefixIds (1, P) token ids of a prefix shared by every row (as {@link #forwardSharedPrefix}), or null
   * @param inputIds (B, T) token ids, left-padded (after the prefix, if any); its manager owns the arrays
   * @param padLeft each row's padding slots
   * @return the pass, to be closed after its backward pass
   */
  public Recomputed forwardRecomputed(NDArray prefixIds, NDArray inputIds, int[] padLeft) {
    return new RecomputedPass(this, prefixIds, inputIds, padLeft);
  }

  /** A forward pass whose layers run again in the backward pass; see {@link #forwardRecomputed}. */
  public interface Recomputed extends AutoCloseable {
    /** @return the final-normed hidden states (B, T, D), connected to the graph of the final norm */
    NDArray hidden();

    /**
     * Carries the gradient of the caller's backward pass from the hidden states through every layer (recomputed one
     * at a time) and the embedding to the parameters. Call it once, inside the same gradient collector, after the
     * caller's backward pass; nothing happens when no gradient reached the hidden states.
     *
     * @param collector the active gradient collector
     */
    void backward(ai.djl.training.GradientCollector collector);

    /** Frees the kept layer inputs and the hidden states. */
    @Override
    void close();
  }

  /** {@link #forward(NDArray, int[], KvCache)}, showing every module's output to {@code probe} when it is not null. */
  private NDArray forward(NDArray inputIds, int[] padLeft, KvCache cache, Probe probe) {
    return forward(inputIds, padLeft, cache, probe, null);
  }

  private NDArray forward(NDArray inputIds, int[] padLeft, KvCache cache, Probe probe, SharedPrefix prefix) {
    Shape shape = inputIds.getShape();
    if (shape.dimension() != 2) {
      throw new IllegalArgumentException("inputIds must be (batch, tokens), got " + shape);
    }
    int b = (int) shape.get(0);
    int t = (int) shape.get(1);
    if (padLeft.length != b) {
      throw new IllegalArgumentException(padLeft.length + " padding counts for a batch of " + b);
    }
    int offset = cache != null ? cache.length() : prefix != null && !prefix.recording ? prefix.length : 0;
    if (cache != null) {
      if (cache.batchSize() != b) {
        throw new IllegalArgumentException("cache holds " + cache.batchSize() + " rows, input has " + b);
      }
      cache.reserve(offset + t);
    }
    NDManager m = inputIds.getManager();
    NDArray result;
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      // a copy that owns its storage: the embedding's backward pass keeps the ids, and an array made from Java
      // memory only borrows that memory until its handle is closed
      NDArray ids = inputIds.toType(DataType.INT64, false).duplicate();
      NDArray x = ids.getNDArrayInternal().embedding(ids, weights.embed(), SparseFormat.DENSE).singletonOrThrow();
      NDArray h = seen(probe, -1, "model.embed_tokens", cast(x, normType), weights.embed());
      NDArray[] rope = rotary(m, padLeft, offset, t);
      int sharedPrefix = prefix != null && !prefix.recording ? prefix.length : 0;
      // the fused kernel masks inside libtorch, from the padding: no (B, 1, 1, T, S) mask is built
      FusedPass fusedPass = fused(t, offset + t)
          ? new FusedPass(padLeft.clone(), offset, sharedPrefix, PyTorchNative.isGradMode() || t >= offset) : null;
      NDArray bias = fusedPass != null ? null : AttentionMask.bias(m, padLeft, offset, t, sharedPrefix, normType);
      List<Qwen3Weights.Layer> layers = weights.layers();
      ProjectionAdapter active = activeAdapter();
      if (t == 1 && cache != null && probe == null && prefix == null && active == null && scriptedDecoding()
          && !PyTorchNative.isGradMode()) {
        result = ScriptedDecodeStep.instance().orElseThrow().run(m, h, ScriptedDecodeStep.weights(weights),
            cache.keyArrays(), cache.valueArrays(), rope[0], rope[1], rotary.rotateHalf(), bias,
            new NDArray[] {eps, minusHalf, queryScale}, offset, config, dtype, normType);
        NDScope.unregister(result);
        cache.advance(t);
        return result;
      }
      for (int l = 0; l < layers.size(); l++) {
        NDArray next;
        try (NDScope layerScope = new NDScope()) {
          layerScope.suppressNotUsedWarning();
          next = layer(l, layers.get(l), active, h, rope, bias, fusedPass, cache, prefix, b, t, probe);
          NDScope.unregister(next);
        }
        NDScope.register(next); // closed with the call's scope unless it is the last
        if (l > 0) {
          h.close(); // the previous layer's output is no longer needed
        }
        h = next;
      }
      result = seen(probe, -1, "model.norm", rmsNorm(h, weights.finalNorm()), weights.finalNorm());
      NDScope.unregister(result);
    }
    if (cache != null) {
      cache.advance(t);
    }
    return result;
  }

  /**
   * The output head: logits for hidden states.
   *
   * @param hidden (..., D) hidden states from {@link #forward}; its manager owns the result
   * @return (..., V) logits in {@link #outputType()}
   */
  public NDArray logits(NDArray hidden) {
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      NDArray x = cast(hidden, dtype);
      Shape shape = x.getShape();
      int last = shape.dimension() - 1;
      // the rows as one matrix, so that the product is a single matrix multiply: given a strided slice of positions
      // (teacher forcing's response slots) and a head that needs no gradient (LoRA, scoring), libtorch would
      // otherwise run a batched multiply against the head broadcast per row, reading the whole head once per row
      NDArray rows = shape.dimension() == 2 ? x : x.reshape(-1, shape.get(last));
      NDArray y;
      if (fewRowsLargeHead(rows)) {
        // the transposed product laid out row by row again (reshaping to one dimension copies it): the softmax
        // and cumulative sums over a row that follow run several times slower on a transposed array. The first
        // operand's manager owns a result, so the head's product belongs to the weights' manager (the scope
        // closes the intermediates) and the result moves to the caller's
        Shape out = new Shape(rows.getShape().get(0), config.vocabSize());
        y = weights.lmHead().matMul(rows.transpose()).transpose().reshape(-1).reshape(out);
        y.attach(hidden.getManager());
      } else {
        y = linear(rows, weights.lmHead(), null);
      }
      if (shape.dimension() != 2) {
        long[] dims = shape.getShape();
        dims[last] = y.getShape().get(1);
        y = y.reshape(new Shape(dims));
      }
      NDArray out = cast(y, normType);
      NDScope.unregister(out);
      return out;
    }
  }

  /** Heads of at least this many parameters are multiplied as head times rows for 2 to 8 rows on the CPU. */
  static final long LARGE_HEAD_PARAMETERS = 1L << 20;

  /** The most rows for which a large head is multiplied as head times rows. */
  static final int FEW_ROWS = 8;

  /**
   * Whether the output head is better multiplied as {@code W x^T} than as {@code x W^T}: on the CPU, without
   * gradients, for 2 to {@link #FEW_ROWS} rows and a head of at least {@link #LARGE_HEAD_PARAMETERS} parameters.
   * There libtorch's {@code x W^T} (MKL's path for a few rows) reads the head more slowly: `./mage bench model`
   * (its head lines) measured {@code W x^T} 1.6 to 1.9 times as fast at 2 and 4 rows and 1.2 to 1.4 times at 8 rows,
   * for the 12000 x 256 and the 32000 x 768 heads alike, while at 1 row and from 12 rows on {@code x W^T} was as
   * fast or faster. The two differ only in float rounding (neither equals the rows computed one at a time); a small
   * head (the quick start's) and every pass with gradients keep {@code x W^T}.
   */
  private boolean fewRowsLargeHead(NDArray rows) {
    long n = rows.getShape().get(0);
    return n >= 2 && n <= FEW_ROWS && !GradMode.isEnabled()
        && (long) config.vocabSize() * config.hiddenSize() >= LARGE_HEAD_PARAMETERS
        && Device.Type.CPU.equals(rows.getDevice().getDeviceType());
  }

  /**
   * Logits for every position of unpadded sequences of equal length, without a cache (a reference pass).
   *
   * @param manager the manager that owns the result
   * @param tokens one or more sequences of the same length
   * @return (B, T, V) logits in {@link #outputType()}
   */
  public NDArray logits(NDManager manager, int[]... tokens) {
    int t = tokens[0].length;
    long[] flat = new long[tokens.length * t];
    for (int i = 0; i < tokens.length; i++) {
      if (tokens[i].length != t) {
        throw new IllegalArgumentException("sequences must have equal lengths");
      }
      for (int j = 0; j < t; j++) {
        flat[i * t + j] = tokens[i][j];
      }
    }
    checkTokens(flat);
    try (NDManager step = manager.newSubManager()) {
      NDArray ids = step.create(flat, new Shape(tokens.length, t));
      NDArray hidden = forward(ids, new int[tokens.length], null);
      NDArray out = logits(hidden);
      out.attach(manager);
      return out;
    }
  }

  /**
   * Checks token ids against the vocabulary.
   *
   * @param ids token ids
   * @throws IllegalArgumentException naming the first id outside [0, vocab_size)
   */
  public void checkTokens(long[] ids) {
    for (long id : ids) {
      if (id < 0 || id >= config.vocabSize()) {
        throw new IllegalArgumentException(
            "token id " + id + " is outside the vocabulary [0, " + config.vocabSize() + ")");
      }
    }
  }

  /**
   * Runs decoder layer {@code index} over {@code h} (B, T, D): the one implementation of a layer, which every pass
   * runs ({@link ScriptedDecodeStep}'s script mirrors it operation for operation).
   */
  NDArray layer(int index, Qwen3Weights.Layer w, ProjectionAdapter lora, NDArray h, NDArray[] rope,
      NDArray bias, FusedPass fusedPass, KvCache cache, SharedPrefix prefix, int b, int t, Probe probe) {
    int heads = config.numAttentionHeads();
    int kvHeads = config.numKeyValueHeads();
    int hd = config.headDim();
    int g = config.groupSize();
    NDArray x = cast(seen(probe, index, "input_layernorm", rmsNorm(h, w.inputNorm()), w.inputNorm()), dtype);
    NDArray q = seen(probe, index, "self_attn.q_proj", project(lora, index, Projection.Q_PROJ, x, w.qProj(), w.qBias()),
        w.qProj()).reshape(b, t, heads, hd);
    NDArray k = seen(probe, index, "self_attn.k_proj", project(lora, index, Projection.K_PROJ, x, w.kProj(), w.kBias()),
        w.kProj()).reshape(b, t, kvHeads, hd);
    NDArray v = seen(probe, index, "self_attn.v_proj", project(lora, index, Projection.V_PROJ, x, w.vProj(), w.vBias()),
        w.vProj()).reshape(b, t, kvHeads, hd);
    q = cast(q, normType);
    k = cast(k, normType);
    if (config.qkNorm()) {
      q = seen(probe, index, "self_attn.q_norm", rmsNorm(q, w.qNorm()), w.qNorm());
      k = seen(probe, index, "self_attn.k_norm", rmsNorm(k, w.kNorm()), w.kNorm());
    }
    q = rotary.apply(q, rope).mul(queryScale);
    k = rotary.apply(k, rope);
    NDArray kt = t == 1 ? cast(k, dtype).reshape(b, kvHeads, 1, hd)
        : cast(k, dtype).transpose(0, 2, 1, 3);
    NDArray vt = t == 1 ? v.reshape(b, kvHeads, 1, hd) : v.transpose(0, 2, 1, 3);
    NDArray keys;
    NDArray values;
    if (cache != null) {
      cache.write(index, kt, vt);
      keys = cache.keys(index, h.getManager(), t);
      values = cache.values(index, h.getManager(), t);
    } else if (prefix != null && prefix.recording) {
      // kept past this layer's scope for the rows' pass
      NDScope.unregister(kt, vt);
      prefix.keys[index] = kt;
      prefix.values[index] = vt;
      keys = kt;
      values = vt;
    } else if (prefix != null) {
      Shape ks = prefix.keys[index].getShape();
      Shape vs = prefix.values[index].getShape();
      keys = prefix.keys[index].broadcast(new Shape(b, ks.get(1), ks.get(2), ks.get(3))).concat(kt, 2);
      values = prefix.values[index].broadcast(new Shape(b, vs.get(1), vs.get(2), vs.get(3))).concat(vt, 2);
    } else {
      keys = kt;
      values = vt;
    }
    NDArray attended;
    if (fusedPass != null) {
      // (B, T, H, hd) -> (B, H, T, hd); the kernel's module repeats each key/value head for its G query heads
      attended = FusedAttention.instance().orElseThrow().attend(cast(q, dtype).transpose(0, 2, 1, 3), keys,
          values, fusedPass.padLeft(), fusedPass.offset(), fusedPass.prefix(), fusedPass.padQueries());
    } else {
      // (B, T, H, hd) -> (B, KVH, G*T, hd): query head kv*G + j uses key/value head kv. With one slot per row (a
      // decoding step) the transposes move nothing: a reshape gives the same array in one call instead of two
      NDArray qg = t == 1 ? cast(q, dtype).reshape(b, kvHeads, g, hd)
          : cast(q, dtype).transpose(0, 2, 1, 3).reshape(b, kvHeads, (long) g * t, hd);
      long s = keys.getShape().get(2);
      NDArray scores = cast(qg.matMul(keys.transpose(0, 1, 3, 2)), normType);
      // the mask is (B, 1, 1, T, S): the scores take its shape only when there is one to add
      NDArray masked = bias == null ? scores : scores.reshape(b, kvHeads, g, t, s).add(bias).reshape(b, kvHeads,
          (long) g * t, s);
      NDArray probs = cast(masked.softmax(-1), dtype);
      attended = probs.matMul(values);
    }
    NDArray context = seen(probe, index, "self_attn (attention of the rotated queries and keys)",
        t == 1 ? attended.reshape(b, 1, (long) heads * hd)
            : attended.reshape(b, heads, t, hd).transpose(0, 2, 1, 3).reshape(b, t, (long) heads * hd), null);
    NDArray attn = cast(seen(probe, index, "self_attn.o_proj", project(lora, index, Projection.O_PROJ, context,
        w.oProj(), w.oBias()), w.oProj()), normType);
    NDArray h1 = h.add(attn);
    NDArray y = cast(seen(probe, index, "post_attention_layernorm", rmsNorm(h1, w.postNorm()), w.postNorm()),
        dtype);
    NDArray gate = seen(probe, index, "mlp.gate_proj",
        project(lora, index, Projection.GATE_PROJ, y, w.gateProj(), null), w.gateProj());
    NDArray up = seen(probe, index, "mlp.up_proj", project(lora, index, Projection.UP_PROJ, y, w.upProj(), null),
        w.upProj());
    NDArray act = seen(probe, index, "mlp.act_fn (SiLU(gate) * up)", gate.mul(Activation.sigmoid(gate)).mul(up), null);
    NDArray down = cast(seen(probe, index, "mlp.down_proj", project(lora, index, Projection.DOWN_PROJ, act,
        w.downProj(), null), w.downProj()), normType);
    return seen(probe, index, null, h1.add(down), null);
  }

  /** Shown the output of each module, in the order of the forward pass, by {@link #firstNonFinite}. */
  interface Probe {
    void output(String module, NDArray value, NDArray weight);
  }

  /**
   * Shows a module's output to the probe, if any (the name is built only then: nothing is spent on the normal path
   * but a null check).
   *
   * @param layer the layer index, or -1 for a module outside the layers
   * @param module the module's name inside its layer ({@code mlp.down_proj}), or for layer -1 its full name; null
   *     for the layer's own output
   */
  private static NDArray seen(Probe probe, int layer, String module, NDArray value, NDArray weight) {
    if (probe != null) {
      probe.output(layer < 0 ? module : module == null ? "model.layers." + layer + " (the layer's output)"
          : "model.layers." + layer + "." + module, value, weight);
    }
    return value;
  }

  /**
   * Finds where a non-finite value first appears: runs one sequence through the model again, without a cache and
   * without gradients, checks the output of every module in the order of the forward pass (embedding; per layer the
   * norms, the q/k/v projections, q/k norms, the attention, o_proj, the MLP projections and activation, the layer's
   * output; the final norm; the output head) and describes the first that holds a NaN or an infinity: the module (by
   * its Hugging Face name, which is also its weight's name without {@code .weight}), the first position, and whether
   * that module's weight itself holds non-finite values.
   *
   * <p>This is a diagnosis for the error path (a generation that met a NaN): it costs one more forward pass with a
   * check per module, and nothing when it is not called.
   *
   * @param tokens the sequence (prompt and the tokens generated before the failing step)
   * @return the description, or empty when every module's output is finite
   */
  public Optional<String> firstNonFinite(int[] tokens) {
    if (tokens.length == 0) {
      return Optional.empty();
    }
    String[] found = new String[1];
    Probe probe = (module, value, weight) -> {
      if (found[0] != null) {
        return;
      }
      try (NDManager check = value.getManager().newSubManager()) {
        NDArray bad = value.isNaN().logicalOr(value.isInfinite());
        bad.attach(check);
        if (!bad.any().getBoolean()) {
          return;
        }
        Shape s = bad.getShape();
        // the first position (dimension 1 of a (batch, tokens, ...) output) holding one
        NDArray perPosition = s.dimension() >= 2 ? bad.toType(DataType.INT32, false).reshape(s.get(0), s.get(1), -1)
            .sum(new int[] {0, 2}) : bad.toType(DataType.INT32, false);
        perPosition.attach(check);
        int[] counts = perPosition.toType(DataType.INT32, false).toIntArray();
        int first = 0;
        while (first < counts.length && counts[first] == 0) {
          first++;
        }
        StringBuilder d = new StringBuilder(module).append(", at token position ").append(first).append(" of ")
            .append(tokens.length);
        if (weight != null) {
          NDArray wb = weight.isNaN().logicalOr(weight.isInfinite());
          wb.attach(check);
          long n = wb.toType(DataType.INT64, false).sum().getLong();
          d.append(n > 0 ? "; its weight holds " + n + " non-finite value" + (n == 1 ? "" : "s")
              : "; its weight is finite, so its input grew too large for " + dtype.name());
        }
        found[0] = d.toString();
      }
    };
    GradMode noGrad = GradMode.disabled();
    try (NDManager m = newManager(); NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      long[] flat = new long[tokens.length];
      for (int i = 0; i < tokens.length; i++) {
        flat[i] = tokens[i];
      }
      NDArray hidden = forward(m.create(flat, new Shape(1, tokens.length)), new int[1], null, probe);
      if (found[0] == null) {
        seen(probe, -1, "lm_head", logits(hidden.get(":, -1:, :")), weights.lmHead());
      }
    } finally {
      noGrad.close();
    }
    return Optional.ofNullable(found[0]);
  }

  /**
   * {@code x} in {@code type}, kept in the autograd graph when a training pass records one ({@link
   * DifferentiableCast}); {@code x.toType(type, false)} otherwise, so a float32 model's no-op conversions and every
   * inference pass are unchanged.
   */
  private static NDArray cast(NDArray x, DataType type) {
    return DifferentiableCast.toType(x, type);
  }

  /** A linear projection, corrected by the adapter when one is active (the adapter hook). */
  private static NDArray project(
      ProjectionAdapter lora, int layer, Projection p, NDArray x, NDArray weight, NDArray bias) {
    NDArray y = linear(x, weight, bias);
    return lora == null ? y : lora.adapt(layer, p, x, y);
  }

  private static NDArray linear(NDArray x, NDArray weight, NDArray bias) {
    return x.getNDArrayInternal().linear(x, weight, bias).singletonOrThrow();
  }

  /** @return the adapter when one is attached and enabled, else null */
  ProjectionAdapter activeAdapter() {
    return adapter != null && adapter.isEnabled() ? adapter : null;
  }

  /** RMSNorm of {@code x} in the norm type, times {@code scale}. */
  NDArray rmsNorm(NDArray x, NDArray scale) {
    NDArray xf = cast(x, normType);
    NDArray inv = xf.square().mean(new int[] {-1}, true).add(eps).pow(minusHalf);
    return xf.mul(inv).mul(scale);
  }

  /** cos and sin (B, T, 1, hd) for each row's positions (slot minus padding, clamped at 0 on padding slots). */
  NDArray[] rotary(NDManager m, int[] padLeft, int offset, int t) {
    return rotary.tables(m, padLeft, offset, t);
  }

  /** The additive attention mask (B, 1, 1, T, S), always as an array; see {@link AttentionMask#array}. */
  NDArray maskArray(NDManager m, int[] padLeft, int offset, int t, int sharedPrefix) {
    return AttentionMask.array(m, padLeft, offset, t, sharedPrefix, normType);
  }

  /** Releases the weights (and every manager created from {@link #newManager()}). */
  @Override
  public void close() {
    weights.close();
  }

  @Override
  public String toString() {
    return "Qwen3Model[" + config.modelType() + ", layers=" + config.numHiddenLayers() + ", hidden="
        + config.hiddenSize() + ", params=" + config.parameterCount() + ", dtype=" + dtype + ", device="
        + device() + ", heads=" + Arrays.toString(new int[] {config.numAttentionHeads(),
            config.numKeyValueHeads()}) + "]";
  }
}
