package org.magejvm.impl.llm.finetune;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.impl.llm.model.DifferentiableCast;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.ProjectionAdapter;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.Qwen3Weights;

/**
 * LoRA matrices for the targeted projections of every decoder layer of a Qwen3-family model, attached to the model
 * with {@link Qwen3Model#setAdapter}. Each targeted projection computes
 * {@code y = x W^T + scaling * dropout(x) A^T B^T} (see {@link LoraConfig}); the base weights are not touched.
 *
 * <p><b>Types.</b> A and B are FLOAT32 whatever the base weights are (FLOAT16 included), and FLOAT64 for a FLOAT64
 * model (exact tests). As in PEFT, the projection's input is cast to the adapter's type, the correction is added to
 * the base output at that type and the sum is cast back to the model's type.
 *
 * <p><b>Initialisation.</b> As PEFT's default: A from the Kaiming-uniform distribution with {@code a = sqrt(5)},
 * that is uniform in {@code [-1/sqrt(in), 1/sqrt(in)]}, and B zero, so a new adapter leaves the model's outputs
 * bit for bit unchanged. Each matrix's values depend only on the seed and the matrix's name.
 *
 * <p><b>Training.</b> {@link #trainableParameters()} maps PEFT's tensor names to A and B, the arrays an optimiser
 * updates; {@link #requireGradients} switches their gradient tracking on (it is off after creation and loading, so
 * inference records no graph). Dropout applies only while {@link #setTraining training} is on; its masks are drawn
 * in Java from a stream seeded by the adapter's seed, so the same seed and the same sequence of calls give the same
 * masks on any device. Switch training off for rollouts: generation runs the same forward pass.
 *
 * <p><b>Reference policy.</b> With {@link #setEnabled setEnabled(false)} the model computes exactly the base model,
 * which is the reference policy of the KL term, with no second copy of the weights.
 *
 * <p>The adapter owns its arrays (its own manager on the model's device); close it when done. It is not
 * thread-safe, like the model.
 */
public final class LoraAdapter implements ProjectionAdapter, AutoCloseable {

  /** The prefix of every tensor name in a PEFT adapter for a causal language model. */
  public static final String PEFT_PREFIX = "base_model.model.";

  private final LoraConfig config;
  private final Qwen3Config modelConfig;
  private final DataType dtype;
  private final NDManager manager;
  /** [layer][projection ordinal] = {A, B}, or null when the projection is not targeted. */
  private final NDArray[][][] modules;
  private final Map<String, NDArray> parameters;
  private final NDArray scale;
  private final long seed;
  private long dropoutCalls;
  private boolean enabled = true;
  private boolean training;

  private LoraAdapter(LoraConfig config, Qwen3Config modelConfig, DataType dtype, NDManager manager,
      Map<String, NDArray> named, long seed) {
    this.config = config;
    this.modelConfig = modelConfig;
    this.dtype = dtype;
    this.manager = manager;
    this.seed = seed;
    this.modules = new NDArray[modelConfig.numHiddenLayers()][Projection.values().length][];
    Map<String, NDArray> params = new LinkedHashMap<>();
    for (int l = 0; l < modelConfig.numHiddenLayers(); l++) {
      for (Projection p : config.targetModules()) {
        NDArray a = named.get(loraAName(l, p));
        NDArray b = named.get(loraBName(l, p));
        modules[l][p.ordinal()] = new NDArray[] {a, b};
        params.put(loraAName(l, p), a);
        params.put(loraBName(l, p), b);
      }
    }
    this.parameters = Collections.unmodifiableMap(params);
    try (NDArray s = manager.create(new double[] {config.scaling()}, new Shape());
        NDArray t = s.toType(dtype, false)) {
      // duplicate(): an array created from Java memory only borrows that buffer; the copy owns its storage
      scale = t.duplicate();
      NDScope.unregister(scale);
    }
  }

  /**
   * A new adapter for a model (not attached: call {@code model.setAdapter(adapter)}).
   *
   * @param model the model it adapts (its architecture, weight type and device)
   * @param config the LoRA hyper-parameters
   * @param seed the seed of the initialisation and of the dropout masks
   * @return the adapter, owning a new manager on the model's device
   */
  public static LoraAdapter create(Qwen3Model model, LoraConfig config, long seed) {
    return create(model.config(), model.dtype(), model.device(), config, seed);
  }

  /**
   * A new adapter for a model of the given architecture, weight type and device.
   *
   * @param modelConfig the model's architecture
   * @param modelDtype the model's weight type (the adapter is FLOAT64 for FLOAT64, FLOAT32 otherwise)
   * @param device the model's device
   * @param config the LoRA hyper-parameters
   * @param seed the seed of the initialisation and of the dropout masks
   * @return the adapter, owning a new manager on {@code device}
   */
  public static LoraAdapter create(
      Qwen3Config modelConfig, DataType modelDtype, Device device, LoraConfig config, long seed) {
    Objects.requireNonNull(modelConfig, "modelConfig");
    Objects.requireNonNull(config, "config");
    DataType dtype = adapterDtype(modelDtype);
    NDManager manager = NDManager.newBaseManager(device, "PyTorch");
    try {
      Map<String, NDArray> named = new LinkedHashMap<>();
      for (int l = 0; l < modelConfig.numHiddenLayers(); l++) {
        for (Projection p : config.targetModules()) {
          long in = p.inFeatures(modelConfig);
          long out = p.outFeatures(modelConfig);
          String a = loraAName(l, p);
          String b = loraBName(l, p);
          named.put(a, kaimingUniform(manager, a, new Shape(config.rank(), in), in, seed, dtype));
          named.put(b, config.initLoraWeights()
              ? parameter(manager.zeros(new Shape(out, config.rank()), dtype), b)
              : kaimingUniform(manager, b, new Shape(out, config.rank()), config.rank(), seed, dtype));
        }
      }
      return new LoraAdapter(config, modelConfig, dtype, manager, named, seed);
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  /**
   * An adapter over arrays already loaded into {@code manager} (which the adapter then owns); used by
   * {@link PeftAdapters#load}. The caller has checked the names, shapes and type.
   */
  static LoraAdapter fromArrays(Qwen3Config modelConfig, DataType dtype, NDManager manager, LoraConfig config,
      Map<String, NDArray> named, long seed) {
    for (Map.Entry<String, NDArray> e : named.entrySet()) {
      parameter(e.getValue(), e.getKey());
    }
    return new LoraAdapter(config, modelConfig, dtype, manager, named, seed);
  }

  /**
   * The type of the LoRA matrices for a model of the given weight type.
   *
   * @param modelDtype FLOAT32, FLOAT16 or FLOAT64
   * @return FLOAT64 for a FLOAT64 model, FLOAT32 otherwise
   */
  public static DataType adapterDtype(DataType modelDtype) {
    if (modelDtype != DataType.FLOAT32 && modelDtype != DataType.FLOAT16 && modelDtype != DataType.FLOAT64) {
      throw new IllegalArgumentException("model dtype must be FLOAT32, FLOAT16 or FLOAT64, got " + modelDtype);
    }
    return Qwen3Weights.normDtype(modelDtype);
  }

  /**
   * @param layer a decoder layer
   * @param projection a projection
   * @return PEFT's name of that projection's A matrix, e.g.
   *     {@code base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight}
   */
  public static String loraAName(int layer, Projection projection) {
    return PEFT_PREFIX + projection.modulePath(layer) + ".lora_A.weight";
  }

  /**
   * @param layer a decoder layer
   * @param projection a projection
   * @return PEFT's name of that projection's B matrix, e.g.
   *     {@code base_model.model.model.layers.0.mlp.down_proj.lora_B.weight}
   */
  public static String loraBName(int layer, Projection projection) {
    return PEFT_PREFIX + projection.modulePath(layer) + ".lora_B.weight";
  }

  private static NDArray kaimingUniform(
      NDManager manager, String name, Shape shape, long fanIn, long seed, DataType dtype) {
    long n = shape.size();
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("LoRA matrix " + name + " is too large: " + n + " elements");
    }
    // torch.nn.init.kaiming_uniform_(w, a=sqrt(5)): gain sqrt(2 / (1 + 5)), bound gain * sqrt(3 / fan_in)
    double bound = 1 / Math.sqrt(fanIn);
    SplittableRandom r = new SplittableRandom(SplitMix64.keyed(seed, name.hashCode()));
    double[] v = new double[(int) n];
    for (int i = 0; i < v.length; i++) {
      v[i] = (2 * r.nextDouble() - 1) * bound;
    }
    NDArray raw = manager.create(v, shape);
    NDArray typed = raw.toType(dtype, false);
    // duplicate(): an array created from Java memory only borrows that buffer; the copy owns its storage
    NDArray owned = typed.duplicate();
    if (typed != raw) {
      typed.close();
    }
    raw.close();
    return parameter(owned, name);
  }

  private static NDArray parameter(NDArray a, String name) {
    a.setName(name);
    NDScope.unregister(a); // parameters outlive any scope the caller may have open
    return a;
  }

  /** @return the LoRA hyper-parameters */
  public LoraConfig config() {
    return config;
  }

  /** @return the architecture of the model the adapter was made for */
  public Qwen3Config modelConfig() {
    return modelConfig;
  }

  /** @return the type of A and B: FLOAT32, or FLOAT64 for a FLOAT64 model */
  public DataType dtype() {
    return dtype;
  }

  /** @return the device of A and B */
  public Device device() {
    return manager.getDevice();
  }

  /** @return the seed of the initialisation and of the dropout masks */
  public long seed() {
    return seed;
  }

  /**
   * A and B by PEFT tensor name ({@code base_model.model.model.layers.N.<block>.<proj>.lora_A.weight} and
   * {@code ...lora_B.weight}), layer by layer in the model's module order. These are the arrays to train and save.
   *
   * @return an unmodifiable view
   */
  public Map<String, NDArray> trainableParameters() {
    return parameters;
  }

  /** @return the number of adapter elements: layers x r x (in + out), summed over the targets */
  public long parameterCount() {
    long n = 0;
    for (NDArray a : parameters.values()) {
      n += a.size();
    }
    return n;
  }

  /**
   * @param layer a decoder layer
   * @param projection a targeted projection
   * @return its A matrix (r, in)
   * @throws IllegalArgumentException when the projection is not targeted or the layer does not exist
   */
  public NDArray loraA(int layer, Projection projection) {
    return module(layer, projection)[0];
  }

  /**
   * @param layer a decoder layer
   * @param projection a targeted projection
   * @return its B matrix (out, r)
   * @throws IllegalArgumentException when the projection is not targeted or the layer does not exist
   */
  public NDArray loraB(int layer, Projection projection) {
    return module(layer, projection)[1];
  }

  private NDArray[] module(int layer, Projection projection) {
    if (layer < 0 || layer >= modules.length) {
      throw new IllegalArgumentException("layer " + layer + " does not exist (the model has " + modules.length
          + " layers)");
    }
    NDArray[] m = modules[layer][projection.ordinal()];
    if (m == null) {
      throw new IllegalArgumentException(projection.moduleName() + " is not a target of this adapter (targets: "
          + config.targetModules() + ")");
    }
    return m;
  }

  /**
   * The change the adapter makes to a projection's weight, {@code scaling * B A}, with no gradient tracking.
   *
   * @param layer a decoder layer
   * @param projection a targeted projection
   * @param target the manager that owns the result
   * @return (out, in) in {@link #dtype()}
   */
  public NDArray deltaWeight(int layer, Projection projection, NDManager target) {
    NDArray[] m = module(layer, projection);
    GradMode noGrad = GradMode.disabled();
    try (NDManager tmp = target.newSubManager()) {
      NDArray b = m[1].duplicate();
      b.attach(tmp);
      NDArray delta = b.matMul(m[0]).mul(scale);
      delta.attach(target);
      return delta;
    } finally {
      noGrad.close();
    }
  }

  /** @return whether the model applies the adapter (true after creation) */
  @Override
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Switches the adapter on or off without detaching it; off, the model computes exactly the base model (the
   * reference policy of the KL term).
   *
   * @param on whether the model applies the adapter
   */
  public void setEnabled(boolean on) {
    this.enabled = on;
  }

  /** @return whether dropout is applied (false after creation) */
  public boolean isTraining() {
    return training;
  }

  /**
   * @param on whether dropout is applied to the adapter's input (it only matters when {@code lora_dropout > 0})
   */
  public void setTraining(boolean on) {
    this.training = on;
  }

  /**
   * Switches gradient tracking on or off for A and B (off after creation and loading). Gradients are collected
   * inside a DJL {@code GradientCollector} and accumulate until {@link #zeroGradients()}.
   *
   * @param requires whether A and B require gradients
   */
  public void requireGradients(boolean requires) {
    for (NDArray a : parameters.values()) {
      a.setRequiresGradient(requires);
    }
  }

  /** Sets every accumulated gradient of A and B to zero (DJL's PyTorch engine never does it on its own). */
  public void zeroGradients() {
    for (NDArray a : parameters.values()) {
      if (a.hasGradient()) {
        try (NDArray g = a.getGradient()) {
          g.subi(g);
        }
      }
    }
  }

  @Override
  public void checkCompatible(Qwen3Config config, DataType modelDtype, Device device) {
    if (config.numHiddenLayers() != modelConfig.numHiddenLayers()) {
      throw new IllegalArgumentException("the LoRA adapter has " + modelConfig.numHiddenLayers()
          + " layers but the model has " + config.numHiddenLayers());
    }
    for (Projection p : this.config.targetModules()) {
      if (p.inFeatures(config) != p.inFeatures(modelConfig) || p.outFeatures(config) != p.outFeatures(modelConfig)) {
        throw new IllegalArgumentException("the LoRA adapter's " + p.moduleName() + " maps " + p.inFeatures(modelConfig)
            + " to " + p.outFeatures(modelConfig) + " features but the model's maps " + p.inFeatures(config) + " to "
            + p.outFeatures(config));
      }
    }
    if (adapterDtype(modelDtype) != dtype) {
      throw new IllegalArgumentException("a " + modelDtype + " model needs " + adapterDtype(modelDtype)
          + " LoRA matrices, this adapter's are " + dtype);
    }
    if (!device.equals(device())) {
      throw new IllegalArgumentException("the LoRA adapter is on " + device() + " but the model is on " + device);
    }
  }

  @Override
  public NDArray adapt(int layer, Projection projection, NDArray input, NDArray output) {
    NDArray[] m = modules[layer][projection.ordinal()];
    if (m == null) {
      return output;
    }
    NDArray x = DifferentiableCast.toType(input, dtype);
    if (training && config.dropout() > 0) {
      x = x.mul(dropoutMask(x));
    }
    // the scale multiplies the rank-r product, not the output-sized one (the same value up to rounding)
    NDArray ax = x.getNDArrayInternal().linear(x, m[0], null).singletonOrThrow().mul(scale);
    DataType outType = output.getDataType();
    if (outType == dtype) {
      // output + ax B^T as one fused matrix product (addmm) on rows: no output-sized temporary and no separate add
      Shape shape = output.getShape();
      NDArray rows = ax.reshape(-1, ax.getShape().get(ax.getShape().dimension() - 1));
      NDArray base = output.reshape(-1, shape.get(shape.dimension() - 1));
      return rows.getNDArrayInternal().linear(rows, m[1], base).singletonOrThrow().reshape(shape);
    }
    NDArray delta = ax.getNDArrayInternal().linear(ax, m[1], null).singletonOrThrow();
    return DifferentiableCast.toType(DifferentiableCast.toType(output, dtype).add(delta), outType);
  }

  /** A mask of zeros and 1 / (1 - p), owned by x's manager, from the adapter's seeded stream. */
  private NDArray dropoutMask(NDArray x) {
    long n = x.size();
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("LoRA dropout on " + n + " elements at once is not supported");
    }
    double p = config.dropout();
    SplittableRandom r = new SplittableRandom(SplitMix64.keyed(seed, 0x10AD0000L + dropoutCalls++));
    NDArray raw;
    if (dtype == DataType.FLOAT64) {
      double keep = 1 / (1 - p);
      double[] v = new double[(int) n];
      for (int i = 0; i < v.length; i++) {
        v[i] = r.nextDouble() < p ? 0 : keep;
      }
      raw = x.getManager().create(v, x.getShape());
    } else {
      float keep = (float) (1 / (1 - p));
      float[] v = new float[(int) n];
      for (int i = 0; i < v.length; i++) {
        v[i] = r.nextDouble() < p ? 0 : keep;
      }
      raw = x.getManager().create(v, x.getShape());
    }
    // mul's backward pass keeps the mask: the copy owns its storage
    NDArray mask = raw.duplicate();
    raw.close();
    return mask;
  }

  /** Releases A and B. */
  @Override
  public void close() {
    manager.close();
  }

  @Override
  public String toString() {
    return "LoraAdapter[r=" + config.rank() + ", alpha=" + config.alpha() + ", targets=" + config.targetModules()
        + ", layers=" + modules.length + ", params=" + parameterCount() + ", dtype=" + dtype + ", enabled="
        + enabled + "]";
  }
}
