package org.magejvm.impl.llm.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;
import org.magejvm.impl.llm.safetensors.TensorInfo;
import org.magejvm.impl.llm.safetensors.TensorSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parameters of a Qwen3-family decoder, named as in Hugging Face checkpoints, owned by one {@link NDManager} on
 * the model's device.
 *
 * <p>Matrices, embeddings and biases have the model's {@linkplain #dtype() data type} (FLOAT32, FLOAT16 or, for
 * exact numerical tests, FLOAT64). The RMSNorm scales always stay at FLOAT32 (FLOAT64 for a FLOAT64 model) so that
 * the norms are computed at full precision whatever the matrices are stored in.
 *
 * <p>Loading is strict about what the config implies: every expected tensor must be present with the expected
 * shape. Tensors the model does not use are handled as follows: {@code *.rotary_emb.inv_freq} buffers (written by
 * old exporters and recomputed here) are skipped silently; an {@code lm_head.weight} in a checkpoint whose config
 * ties the embeddings is ignored with a warning, because Hugging Face ties the head to the embedding after loading,
 * so the embedding is what the model uses (a head of the wrong shape is still an error); any other unexpected tensor
 * fails the load in strict mode (the default, since it usually means a different architecture or an adapter mixed
 * in) and is logged as a warning in lenient mode.
 */
public final class Qwen3Weights implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Qwen3Weights.class);

  /** Name of the token embedding. */
  public static final String EMBED = "model.embed_tokens.weight";
  /** Name of the final norm. */
  public static final String FINAL_NORM = "model.norm.weight";
  /** Name of the untied output head. */
  public static final String LM_HEAD = "lm_head.weight";

  /** The standard deviation of random initialisation (Hugging Face's {@code initializer_range}). */
  public static final double INIT_STD = 0.02;

  /**
   * One decoder layer's parameters; a bias or q/k norm the config does not have is {@code null}.
   *
   * @param inputNorm RMSNorm scale before attention (D)
   * @param qProj query projection (H*hd, D)
   * @param qBias query bias or null
   * @param kProj key projection (KVH*hd, D)
   * @param kBias key bias or null
   * @param vProj value projection (KVH*hd, D)
   * @param vBias value bias or null
   * @param oProj output projection (D, H*hd)
   * @param oBias output bias or null
   * @param qNorm per-head query norm scale (hd) or null
   * @param kNorm per-head key norm scale (hd) or null
   * @param postNorm RMSNorm scale before the MLP (D)
   * @param gateProj SwiGLU gate (F, D)
   * @param upProj SwiGLU up projection (F, D)
   * @param downProj SwiGLU down projection (D, F)
   */
  public record Layer(
      NDArray inputNorm,
      NDArray qProj,
      NDArray qBias,
      NDArray kProj,
      NDArray kBias,
      NDArray vProj,
      NDArray vBias,
      NDArray oProj,
      NDArray oBias,
      NDArray qNorm,
      NDArray kNorm,
      NDArray postNorm,
      NDArray gateProj,
      NDArray upProj,
      NDArray downProj) {}

  /** What one expected tensor looks like. */
  private record Spec(long[] shape, Kind kind) {}

  private enum Kind {
    MATRIX,
    BIAS,
    NORM
  }

  private final Qwen3Config config;
  private final NDManager manager;
  private final DataType dtype;
  private final NDArray embed;
  private final List<Layer> layers;
  private final NDArray finalNorm;
  private final NDArray lmHead;
  private final Map<String, NDArray> parameters;

  private Qwen3Weights(Qwen3Config config, NDManager manager, DataType dtype, Map<String, NDArray> params) {
    this.config = config;
    this.manager = manager;
    this.dtype = dtype;
    this.parameters = Collections.unmodifiableMap(params);
    this.embed = params.get(EMBED);
    this.finalNorm = params.get(FINAL_NORM);
    this.lmHead = config.tieWordEmbeddings() ? embed : params.get(LM_HEAD);
    List<Layer> ls = new ArrayList<>();
    for (int i = 0; i < config.numHiddenLayers(); i++) {
      String p = "model.layers." + i + ".";
      ls.add(new Layer(
          params.get(p + "input_layernorm.weight"),
          params.get(p + "self_attn.q_proj.weight"),
          params.get(p + "self_attn.q_proj.bias"),
          params.get(p + "self_attn.k_proj.weight"),
          params.get(p + "self_attn.k_proj.bias"),
          params.get(p + "self_attn.v_proj.weight"),
          params.get(p + "self_attn.v_proj.bias"),
          params.get(p + "self_attn.o_proj.weight"),
          params.get(p + "self_attn.o_proj.bias"),
          params.get(p + "self_attn.q_norm.weight"),
          params.get(p + "self_attn.k_norm.weight"),
          params.get(p + "post_attention_layernorm.weight"),
          params.get(p + "mlp.gate_proj.weight"),
          params.get(p + "mlp.up_proj.weight"),
          params.get(p + "mlp.down_proj.weight")));
    }
    this.layers = List.copyOf(ls);
  }

  /**
   * The tensors a config implies, in checkpoint order, with their shapes.
   *
   * @param config the architecture
   * @return Hugging Face tensor name to shape (the output head only when it is not tied)
   */
  public static Map<String, long[]> expectedShapes(Qwen3Config config) {
    Map<String, long[]> out = new LinkedHashMap<>();
    specs(config).forEach((k, v) -> out.put(k, v.shape().clone()));
    return out;
  }

  private static Map<String, Spec> specs(Qwen3Config c) {
    long d = c.hiddenSize();
    long q = (long) c.numAttentionHeads() * c.headDim();
    long kv = (long) c.numKeyValueHeads() * c.headDim();
    long f = c.intermediateSize();
    Map<String, Spec> m = new LinkedHashMap<>();
    m.put(EMBED, new Spec(new long[] {c.vocabSize(), d}, Kind.MATRIX));
    for (int i = 0; i < c.numHiddenLayers(); i++) {
      String p = "model.layers." + i + ".";
      m.put(p + "input_layernorm.weight", new Spec(new long[] {d}, Kind.NORM));
      m.put(p + "self_attn.q_proj.weight", new Spec(new long[] {q, d}, Kind.MATRIX));
      m.put(p + "self_attn.k_proj.weight", new Spec(new long[] {kv, d}, Kind.MATRIX));
      m.put(p + "self_attn.v_proj.weight", new Spec(new long[] {kv, d}, Kind.MATRIX));
      m.put(p + "self_attn.o_proj.weight", new Spec(new long[] {d, q}, Kind.MATRIX));
      if (c.attentionBias()) {
        m.put(p + "self_attn.q_proj.bias", new Spec(new long[] {q}, Kind.BIAS));
        m.put(p + "self_attn.k_proj.bias", new Spec(new long[] {kv}, Kind.BIAS));
        m.put(p + "self_attn.v_proj.bias", new Spec(new long[] {kv}, Kind.BIAS));
      }
      if (c.outputBias()) {
        m.put(p + "self_attn.o_proj.bias", new Spec(new long[] {d}, Kind.BIAS));
      }
      if (c.qkNorm()) {
        m.put(p + "self_attn.q_norm.weight", new Spec(new long[] {c.headDim()}, Kind.NORM));
        m.put(p + "self_attn.k_norm.weight", new Spec(new long[] {c.headDim()}, Kind.NORM));
      }
      m.put(p + "post_attention_layernorm.weight", new Spec(new long[] {d}, Kind.NORM));
      m.put(p + "mlp.gate_proj.weight", new Spec(new long[] {f, d}, Kind.MATRIX));
      m.put(p + "mlp.up_proj.weight", new Spec(new long[] {f, d}, Kind.MATRIX));
      m.put(p + "mlp.down_proj.weight", new Spec(new long[] {d, f}, Kind.MATRIX));
    }
    m.put(FINAL_NORM, new Spec(new long[] {d}, Kind.NORM));
    if (!c.tieWordEmbeddings()) {
      m.put(LM_HEAD, new Spec(new long[] {c.vocabSize(), d}, Kind.MATRIX));
    }
    return m;
  }

  private static void checkDtype(DataType dtype) {
    if (dtype != DataType.FLOAT32 && dtype != DataType.FLOAT16 && dtype != DataType.FLOAT64) {
      throw new IllegalArgumentException("model dtype must be FLOAT32, FLOAT16 or FLOAT64, got " + dtype);
    }
  }

  /**
   * The data type of the norm scales and of every norm computation for a model of the given type.
   *
   * @param dtype the model's data type
   * @return FLOAT64 for a FLOAT64 model, FLOAT32 otherwise
   */
  public static DataType normDtype(DataType dtype) {
    return dtype == DataType.FLOAT64 ? DataType.FLOAT64 : DataType.FLOAT32;
  }

  private static DataType typeOf(Kind kind, DataType dtype) {
    return kind == Kind.NORM ? normDtype(dtype) : dtype;
  }

  /**
   * Loads the weights strictly (see the class comment).
   *
   * @param source the checkpoint's tensors
   * @param config the architecture, usually from the same checkpoint's {@code config.json}
   * @param device where the arrays live
   * @param dtype FLOAT32, FLOAT16 or FLOAT64
   * @return the weights, owning a new manager on {@code device}
   * @throws CheckpointException naming the tensor, its file and the shapes when a tensor is missing, misshaped,
   *     of an unusable dtype, or unexpected
   */
  public static Qwen3Weights load(TensorSource source, Qwen3Config config, Device device, DataType dtype) {
    return load(source, config, device, dtype, true);
  }

  /**
   * Loads the weights, refusing tensors that hold NaN or infinite values.
   *
   * @param source the checkpoint's tensors
   * @param config the architecture
   * @param device where the arrays live
   * @param dtype FLOAT32, FLOAT16 or FLOAT64
   * @param strict whether unexpected tensors fail the load (true) or are only logged (false)
   * @return the weights, owning a new manager on {@code device}
   * @throws CheckpointException naming the tensor, its file and the shapes when a tensor is missing, misshaped,
   *     of an unusable dtype, (when strict) unexpected, or holds a non-finite value
   */
  public static Qwen3Weights load(
      TensorSource source, Qwen3Config config, Device device, DataType dtype, boolean strict) {
    return load(source, config, device, dtype, strict, NonFiniteCheck.REFUSE);
  }

  /**
   * Loads the weights.
   *
   * @param source the checkpoint's tensors
   * @param config the architecture
   * @param device where the arrays live
   * @param dtype FLOAT32, FLOAT16 or FLOAT64
   * @param strict whether unexpected tensors fail the load (true) or are only logged (false)
   * @param nonFinite what to do with a tensor holding NaN or infinite values (checked during the copy; as loaded,
   *     so a float32 value beyond the float16 range counts when loading as FLOAT16)
   * @return the weights, owning a new manager on {@code device}
   * @throws CheckpointException naming the tensor, its file and the shapes when a tensor is missing, misshaped,
   *     of an unusable dtype, (when strict) unexpected, or (with {@link NonFiniteCheck#REFUSE}) holds a non-finite
   *     value
   */
  public static Qwen3Weights load(TensorSource source, Qwen3Config config, Device device, DataType dtype,
      boolean strict, NonFiniteCheck nonFinite) {
    Objects.requireNonNull(nonFinite, "nonFinite");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(config, "config");
    checkDtype(dtype);
    checkLayerCount(source, config);
    Map<String, Spec> specs = specs(config);
    validate(source, config, specs, strict);
    NDManager manager = NDManager.newBaseManager(device, "PyTorch");
    try {
      Map<String, NDArray> params = new LinkedHashMap<>();
      for (Map.Entry<String, Spec> e : specs.entrySet()) {
        DataType want = typeOf(e.getValue().kind(), dtype);
        DataType loadAs = want == DataType.FLOAT16 ? DataType.FLOAT16 : DataType.FLOAT32;
        NDArray a = source.load(manager, e.getKey(), loadAs, nonFinite);
        if (!Arrays.equals(a.getShape().getShape(), e.getValue().shape())) {
          throw new CheckpointException(
              "tensor " + e.getKey() + " in " + source.info(e.getKey()).file() + " loaded with shape "
                  + a.getShape() + ", expected " + Arrays.toString(e.getValue().shape()));
        }
        if (a.getDataType() != want) {
          NDArray converted = a.toType(want, true);
          a.close();
          a = converted;
        }
        a.setName(e.getKey());
        NDScope.unregister(a); // parameters outlive any scope the caller may have open
        params.put(e.getKey(), a);
      }
      return new Qwen3Weights(config, manager, dtype, params);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  /**
   * Refuses a layer count the checkpoint cannot hold before building anything per layer: each layer has at least 9
   * tensors, so {@code num_hidden_layers = 1000000} with a few hundred tensors is refused at once instead of
   * allocating millions of names.
   */
  private static void checkLayerCount(TensorSource source, Qwen3Config config) {
    long needed = 9L * config.numHiddenLayers();
    int held = source.names().size();
    String last = "model.layers." + (config.numHiddenLayers() - 1) + ".input_layernorm.weight";
    if (held == 0) {
      throw new CheckpointException("the weights hold no tensors at all (" + source + "): the safetensors header "
          + "lists none, so the file is empty or damaged");
    }
    if (needed > held || !source.names().contains(last)) {
      throw new CheckpointException("config.json: field 'num_hidden_layers' is " + config.numHiddenLayers()
          + ", but the checkpoint's weights hold " + held + " tensors" + (needed > held ? " (each layer needs at "
          + "least 9)" : "") + (source.names().contains(last) ? "" : " and no '" + last + "'")
          + "; the config and the weights belong to different models");
    }
  }

  private static void validate(TensorSource source, Qwen3Config config, Map<String, Spec> specs, boolean strict) {
    java.util.Set<String> names = source.names();
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Spec> e : specs.entrySet()) {
      if (!names.contains(e.getKey())) {
        missing.add(e.getKey());
        continue;
      }
      TensorInfo info = source.info(e.getKey());
      if (e.getKey().equals(EMBED) && info.shape().length == 2 && info.shape()[0] != config.vocabSize()
          && info.shape()[1] == config.hiddenSize()) {
        throw new CheckpointException("config.json: field 'vocab_size' is " + config.vocabSize() + ", but tensor "
            + EMBED + " in " + info.file() + " has " + info.shape()[0] + " rows (one per token id); the config and"
            + " the weights belong to different models");
      }
      if (!Arrays.equals(info.shape(), e.getValue().shape())) {
        throw new CheckpointException(
            "tensor " + e.getKey() + " in " + info.file() + " has shape " + Arrays.toString(info.shape())
                + " but the config (" + describe(config) + ") implies " + Arrays.toString(e.getValue().shape()));
      }
      if (!List.of("F32", "F16", "BF16").contains(info.dtype())) {
        throw new CheckpointException(
            "tensor " + e.getKey() + " in " + info.file() + " has dtype " + info.dtype()
                + "; weights must be F32, F16 or BF16");
      }
    }
    if (!missing.isEmpty()) {
      TreeSet<String> files = new TreeSet<>();
      for (String n : names) {
        files.add(source.info(n).file());
      }
      throw new CheckpointException(
          "checkpoint " + files + " lacks " + missing.size() + " tensor(s) the config (" + describe(config)
              + ") requires: " + abbreviateList(missing) + familyHint(config, names));
    }
    List<String> unexpected = new ArrayList<>();
    for (String n : new TreeSet<>(names)) {
      if (specs.containsKey(n) || n.endsWith(".rotary_emb.inv_freq")) {
        continue;
      }
      TensorInfo info = source.info(n);
      if (n.equals(LM_HEAD) && config.tieWordEmbeddings()) {
        long[] want = {config.vocabSize(), config.hiddenSize()};
        if (!Arrays.equals(info.shape(), want)) {
          throw new CheckpointException(
              "tensor " + LM_HEAD + " in " + info.file() + " has shape " + Arrays.toString(info.shape())
                  + ", expected " + Arrays.toString(want));
        }
        LOG.warn(
            "{} in {} is ignored: the config ties the output head to {}", LM_HEAD, info.file(), EMBED);
        continue;
      }
      unexpected.add(n + " (" + info.file() + ")");
    }
    if (!unexpected.isEmpty()) {
      String msg = unexpected.size() + " unexpected tensor(s) for a " + config.modelType()
          + " model with this config: " + abbreviateList(unexpected) + familyHint(config, names);
      if (strict) {
        throw new CheckpointException(msg + "; load leniently to ignore them");
      }
      LOG.warn("ignored {}", msg);
    }
  }

  /**
   * When the tensors look like another model family than config.json's model_type says (per-head q_norm/k_norm
   * only in Qwen3, q/k/v biases in Qwen2), a sentence saying so; otherwise empty.
   */
  private static String familyHint(Qwen3Config config, java.util.Collection<String> names) {
    boolean qkNorm = names.stream().anyMatch(n -> n.endsWith(".self_attn.q_norm.weight"));
    boolean qkvBias = names.stream().anyMatch(n -> n.endsWith(".self_attn.q_proj.bias"));
    String guess = qkNorm ? "qwen3" : qkvBias ? "qwen2" : "llama";
    if (guess.equals(config.modelType())) {
      return "";
    }
    return ". The tensors look like a " + guess + " model (" + (qkNorm ? "per-head q_norm/k_norm weights"
        : qkvBias ? "q/k/v projection biases" : "no q_norm/k_norm weights and no q/k/v biases")
        + ") but config.json says model_type " + config.modelType()
        + ": the config probably belongs to another model";
  }

  private static String describe(Qwen3Config c) {
    return "hidden_size=" + c.hiddenSize() + ", num_attention_heads=" + c.numAttentionHeads()
        + ", num_key_value_heads=" + c.numKeyValueHeads() + ", head_dim=" + c.headDim()
        + ", intermediate_size=" + c.intermediateSize() + ", vocab_size=" + c.vocabSize()
        + ", num_hidden_layers=" + c.numHiddenLayers() + ", tie_word_embeddings=" + c.tieWordEmbeddings();
  }

  private static String abbreviateList(List<String> items) {
    int shown = Math.min(items.size(), 8);
    String s = String.join(", ", items.subList(0, shown));
    return items.size() > shown ? s + ", ... (" + (items.size() - shown) + " more)" : s;
  }

  /**
   * Random initialisation as in Hugging Face: matrices and the embedding from N(0, 0.02²), biases zero, norm
   * scales one. Each tensor's values depend only on the seed and the tensor's name (not on the device or the order
   * of creation), so the same seed gives the same model everywhere.
   *
   * @param config the architecture
   * @param seed the seed
   * @param device where the arrays live
   * @param dtype FLOAT32, FLOAT16 or FLOAT64
   * @return the weights, owning a new manager on {@code device}
   */
  public static Qwen3Weights random(Qwen3Config config, long seed, Device device, DataType dtype) {
    Objects.requireNonNull(config, "config");
    checkDtype(dtype);
    NDManager manager = NDManager.newBaseManager(device, "PyTorch");
    try {
      Map<String, NDArray> params = new LinkedHashMap<>();
      for (Map.Entry<String, Spec> e : specs(config).entrySet()) {
        long[] shape = e.getValue().shape();
        Kind kind = e.getValue().kind();
        NDArray a;
        if (kind == Kind.NORM) {
          a = manager.ones(new Shape(shape), normDtype(dtype));
        } else if (kind == Kind.BIAS) {
          a = manager.zeros(new Shape(shape), dtype);
        } else {
          long n = new Shape(shape).size();
          if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor " + e.getKey() + " is too large: " + n + " elements");
          }
          float[] v = new float[(int) n];
          SplittableRandom r = new SplittableRandom(SplitMix64.keyed(seed, e.getKey().hashCode()));
          for (int i = 0; i < v.length; i++) {
            v[i] = (float) (r.nextGaussian() * INIT_STD);
          }
          NDArray f = manager.create(v, new Shape(shape));
          a = f.toType(dtype, false);
          if (a != f) {
            f.close();
          }
        }
        a.setName(e.getKey());
        NDScope.unregister(a); // parameters outlive any scope the caller may have open
        params.put(e.getKey(), a);
      }
      return new Qwen3Weights(config, manager, dtype, params);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  /**
   * An independent copy of these weights (no gradient tracking), for example the frozen reference policy of full
   * fine-tuning. It costs as much memory as the weights at the new type: parameter count x 4 bytes for FLOAT32.
   *
   * @param device where the copy lives
   * @param newDtype FLOAT32, FLOAT16 or FLOAT64 for the matrices (norm scales follow {@link #normDtype})
   * @return the copy, owning a new manager on {@code device}
   */
  public Qwen3Weights copy(Device device, DataType newDtype) {
    checkDtype(newDtype);
    Map<String, Spec> specs = specs(config);
    NDManager target = NDManager.newBaseManager(device, "PyTorch");
    GradMode noGrad = GradMode.disabled(); // a copy of a parameter that requires gradients must not join a graph
    try {
      Map<String, NDArray> params = new LinkedHashMap<>();
      for (Map.Entry<String, NDArray> e : parameters.entrySet()) {
        NDArray src = e.getValue();
        DataType want = typeOf(specs.get(e.getKey()).kind(), newDtype);
        // duplicate(): a conversion to the same type may return a view of the source
        NDArray c = src.getDataType() == want ? src.duplicate() : src.toType(want, true);
        NDArray moved = c.getDevice().equals(device) ? c : c.toDevice(device, false);
        if (moved != c) {
          c.close();
        }
        moved.attach(target);
        moved.setName(e.getKey());
        NDScope.unregister(moved);
        params.put(e.getKey(), moved);
      }
      return new Qwen3Weights(config, target, newDtype, params);
    } catch (RuntimeException e) {
      target.close();
      throw e;
    } finally {
      noGrad.close();
    }
  }

  /** @return the architecture */
  public Qwen3Config config() {
    return config;
  }

  /** @return the manager owning every parameter (close it through {@link #close()}) */
  public NDManager manager() {
    return manager;
  }

  /** @return the device of the parameters */
  public Device device() {
    return manager.getDevice();
  }

  /** @return the data type of matrices, embeddings and biases */
  public DataType dtype() {
    return dtype;
  }

  /** @return the token embedding (V, D) */
  public NDArray embed() {
    return embed;
  }

  /** @return the decoder layers, in order */
  public List<Layer> layers() {
    return layers;
  }

  /** @return the final norm scale (D) */
  public NDArray finalNorm() {
    return finalNorm;
  }

  /** @return the output head (V, D); the embedding itself when tied */
  public NDArray lmHead() {
    return lmHead;
  }

  /**
   * All parameters by Hugging Face name, in checkpoint order; a tied output head appears once, as the embedding.
   * These are the arrays to train and to save.
   *
   * @return an unmodifiable view
   */
  public Map<String, NDArray> parameters() {
    return parameters;
  }

  /** @return the number of parameter elements */
  public long parameterCount() {
    long n = 0;
    for (NDArray a : parameters.values()) {
      n += a.size();
    }
    return n;
  }

  /**
   * Switches gradient tracking on or off for every parameter. Gradients are then collected inside a DJL {@code
   * GradientCollector}; they accumulate across backward passes until {@link #zeroGradients()}.
   *
   * @param requires whether the parameters require gradients
   */
  public void requireGradients(boolean requires) {
    for (NDArray a : parameters.values()) {
      a.setRequiresGradient(requires);
    }
  }

  /**
   * Sets every accumulated gradient to zero (DJL's PyTorch engine never does it on its own), NaN and infinite
   * entries included.
   */
  public void zeroGradients() {
    for (NDArray a : parameters.values()) {
      if (a.hasGradient()) {
        try (NDArray g = a.getGradient()) {
          // a fill, not g - g: NaN - NaN and inf - inf are NaN
          g.set(new ai.djl.ndarray.index.NDIndex(":"), 0);
        }
      }
    }
  }

  /** Releases every parameter. */
  @Override
  public void close() {
    manager.close();
  }
}
