package org.magejvm.impl.train.update;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.magejvm.api.util.AtomicFiles;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.SafetensorsFile;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * AdamW with decoupled weight decay, as PyTorch's {@code torch.optim.AdamW}, plus the reference trainer's global
 * gradient-norm clip, its skip of non-finite steps, and an optional linear warm-up.
 *
 * <p>One {@link #step()} reads every parameter's accumulated gradient and does, for update number {@code t}
 * (counted from 1, only applied updates count) with learning rate {@code lr = config.learningRateAt(t)}:
 *
 * <pre>
 * norm = sqrt(sum over parameters of |g|^2)            global L2 norm, before clipping
 * if norm is NaN or infinite: skip (parameters and moments untouched), count the skip
 * if clipping is on and norm &gt; clip: g = g * clip / (norm + 1e-6)
 * p = p * (1 - lr * wd)                                 decoupled weight decay
 * m = m + (1 - beta1) * (g - m)                         first moment
 * v = beta2 * v + (1 - beta2) * g * g                   second moment
 * p = p - (lr / (1 - beta1^t)) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
 * </pre>
 *
 * and then sets every gradient to zero, whether the step was applied or skipped (DJL's PyTorch engine never zeroes
 * gradients on its own). Updates happen in place, with autograd switched off for the calling thread; every array a
 * step creates is closed before it returns, so the parameters' manager holds as many arrays after a step as before.
 *
 * <p>The moments have the parameter's type: FLOAT32 parameters (a training model's) get FLOAT32 moments, FLOAT64
 * parameters (exact tests) FLOAT64 moments. Other types are rejected. The moments live in a manager of their own
 * on the parameters' device, released by {@link #close()}; the parameters stay the caller's.
 *
 * <p><b>Reduced precision.</b> A FLOAT16 parameter (a model trained in float16) gets a FLOAT32 <i>master</i> copy
 * and FLOAT32 moments: a step reads its gradient in FLOAT32, updates the master exactly as above and writes the
 * master, rounded to FLOAT16, back into the parameter, so updates smaller than FLOAT16's resolution accumulate in the
 * master instead of vanishing. With {@link LossScaling} (on by default when a parameter is FLOAT16) the caller
 * multiplies its loss by {@link #lossScale()} before the backward pass; a step divides the gradients by it first,
 * skips the update and halves the scale when they overflowed, and doubles the scale after {@link
 * LossScaling#growthInterval()} applied steps in a row. FLOAT32 parameters without loss scaling take the steps
 * above, bit for bit as before.
 *
 * <p>{@link #save(Path)} and {@link #load(Path)} write and restore the complete state (moments, masters, loss
 * scale, step and skip counts) so that a resumed run continues bit for bit. The directory then holds {@value #STATE_FILE}, a small JSON
 * file with the counts and the config (and, with loss scaling, the scale and its count of applied steps), and the
 * moments in one safetensors file it names, called {@code adamw-moments-<id>.safetensors}, with tensors {@code
 * exp_avg/<parameter>} and {@code exp_avg_sq/<parameter>} (and {@code master/<parameter>} for a FLOAT16 parameter).
 * The moments file is written first under a new name and the JSON is then replaced by an atomic rename, so a crash
 * at any point leaves either the previous complete state or the new one.
 *
 * <p>Not thread-safe: one thread steps, saves and loads.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class AdamW implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdamW.class);

  /** The name of the state file in a save directory. */
  public static final String STATE_FILE = "adamw-state.json";
  /** The tensor-name prefix of the first moments in the moments file. */
  public static final String FIRST_MOMENT_PREFIX = "exp_avg/";
  /** The tensor-name prefix of the second moments in the moments file. */
  public static final String SECOND_MOMENT_PREFIX = "exp_avg_sq/";
  /** The tensor-name prefix of the FLOAT32 master weights of FLOAT16 parameters in the moments file. */
  public static final String MASTER_PREFIX = "master/";
  /** The value of the state file's {@code format} field. */
  public static final String FORMAT = "mage-adamw";
  /** The version of the state file layout. */
  public static final int FORMAT_VERSION = 1;

  static final String MOMENTS_FILE_PREFIX = "adamw-moments-";
  static final String MOMENTS_FILE_SUFFIX = ".safetensors";
  static final String SAVE_ID_METADATA = "mage.adamw.save_id";
  /** Added to the norm in the clip factor, as {@code torch.nn.utils.clip_grad_norm_} does. */
  static final double CLIP_EPSILON = 1e-6;
  private static final NDIndex ALL = new NDIndex("...");

  private final AdamWConfig config;
  private final Map<String, NDArray> parameters;
  private final NDManager manager;
  private final Map<String, NDArray> firstMoments = new LinkedHashMap<>();
  private final Map<String, NDArray> secondMoments = new LinkedHashMap<>();
  /** The FLOAT32 master copies of the FLOAT16 parameters, by name. */
  private final Map<String, NDArray> masters = new LinkedHashMap<>();
  /** The loss scaling, or null for none. */
  private final LossScaling lossScaling;
  private double lossScale = 1.0;
  private long scaledSteps;
  private long stepCount;
  private long skippedCount;
  private boolean closed;

  /**
   * Creates an optimizer with zero moments.
   *
   * @param parameters the trainable parameters by name, in a stable order; FLOAT32, FLOAT64 or FLOAT16 arrays on one
   *     device that already {@linkplain NDArray#setRequiresGradient require gradients}, each a different array. The
   *     map is copied, the arrays are not: the optimizer updates them in place
   * @param config the settings
   * @throws IllegalArgumentException naming the parameter when the map is empty or a parameter has another type,
   *     another device, no gradient, or appears twice
   */
  public AdamW(Map<String, NDArray> parameters, AdamWConfig config) {
    this(parameters, config, hasHalf(parameters) ? LossScaling.dynamic() : null);
  }

  /**
   * Creates an optimizer with zero moments and the given loss scaling (see the class comment); FLOAT16 parameters
   * get FLOAT32 master copies.
   *
   * @param parameters the trainable parameters by name (see {@link #AdamW(Map, AdamWConfig)})
   * @param config the settings
   * @param lossScaling the loss scaling, or {@code null} for none (a loss scale of 1 throughout)
   * @throws IllegalArgumentException naming the parameter when the map is empty or a parameter has another type,
   *     another device, no gradient, or appears twice
   */
  public AdamW(Map<String, NDArray> parameters, AdamWConfig config, LossScaling lossScaling) {
    this.config = Objects.requireNonNull(config, "config");
    this.lossScaling = lossScaling;
    this.lossScale = lossScaling == null ? 1.0 : lossScaling.initialScale();
    Objects.requireNonNull(parameters, "parameters");
    if (parameters.isEmpty()) {
      throw new IllegalArgumentException("no parameters to optimize");
    }
    Map<String, NDArray> copy = new LinkedHashMap<>();
    Map<NDArray, String> seen = new IdentityHashMap<>();
    Device device = null;
    String firstName = null;
    for (Map.Entry<String, NDArray> e : parameters.entrySet()) {
      String name = Objects.requireNonNull(e.getKey(), "parameter name");
      NDArray p = Objects.requireNonNull(e.getValue(), () -> "parameter '" + name + "'");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("a parameter name is empty");
      }
      DataType type = p.getDataType();
      if (type != DataType.FLOAT32 && type != DataType.FLOAT64 && type != DataType.FLOAT16) {
        throw new IllegalArgumentException("parameter '" + name + "' is " + type.name()
            + "; AdamW trains FLOAT32, FLOAT16 (with FLOAT32 master weights) or, for exact tests, FLOAT64 parameters");
      }
      if (!p.hasGradient()) {
        throw new IllegalArgumentException("parameter '" + name
            + "' does not require gradients; call setRequiresGradient(true) (Qwen3Weights.requireGradients) first");
      }
      String other = seen.put(p, name);
      if (other != null) {
        throw new IllegalArgumentException("parameters '" + other + "' and '" + name
            + "' are the same array; list a shared (tied) array once");
      }
      if (device == null) {
        device = p.getDevice();
        firstName = name;
      } else if (!device.equals(p.getDevice())) {
        throw new IllegalArgumentException("parameter '" + name + "' is on " + p.getDevice() + " but '" + firstName
            + "' is on " + device + "; all parameters must be on one device");
      }
      copy.put(name, p);
    }
    this.parameters = Collections.unmodifiableMap(copy);
    String engine = copy.values().iterator().next().getManager().getEngine().getEngineName();
    this.manager = NDManager.newBaseManager(device, engine);
    try {
      for (Map.Entry<String, NDArray> e : copy.entrySet()) {
        firstMoments.put(e.getKey(), zerosLike(e.getValue()));
        secondMoments.put(e.getKey(), zerosLike(e.getValue()));
        if (e.getValue().getDataType() == DataType.FLOAT16) {
          masters.put(e.getKey(), widened(e.getValue()));
        }
      }
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
  }

  private NDArray zerosLike(NDArray p) {
    NDArray z = manager.zeros(p.getShape(), stateType(p));
    NDScope.unregister(z); // the state outlives any scope the caller may have open
    return z;
  }

  /** A FLOAT32 copy of a FLOAT16 parameter, owned by the optimizer's manager. */
  private NDArray widened(NDArray p) {
    GradMode noGrad = GradMode.disabled();
    try {
      NDArray w = p.toType(DataType.FLOAT32, true);
      w.attach(manager);
      NDScope.unregister(w);
      return w;
    } finally {
      noGrad.close();
    }
  }

  /** The type of a parameter's moments and master: FLOAT64 for FLOAT64, FLOAT32 otherwise. */
  private static DataType stateType(NDArray p) {
    return p.getDataType() == DataType.FLOAT64 ? DataType.FLOAT64 : DataType.FLOAT32;
  }

  private static boolean hasHalf(Map<String, NDArray> parameters) {
    Objects.requireNonNull(parameters, "parameters");
    return parameters.values().stream().anyMatch(p -> p != null && p.getDataType() == DataType.FLOAT16);
  }

  /**
   * Creates an optimizer for the given parameters from a state saved by {@link #save(Path)}, with the saved config.
   *
   * @param dir the save directory
   * @param parameters the trainable parameters, named and shaped as when the state was saved
   * @return the optimizer, continuing where the saved one stopped
   * @throws CheckpointException naming the file (and the tensor or field) when the state is missing, malformed
   *     or does not match the parameters
   */
  public static AdamW load(Path dir, Map<String, NDArray> parameters) {
    AdamWFiles.SavedState saved = AdamWFiles.readState(dir);
    // loss scaling when the state was saved with it or a parameter is FLOAT16; the saved scale then applies
    AdamW optimizer = new AdamW(parameters, saved.config(),
        saved.lossScale() > 0 || hasHalf(parameters) ? LossScaling.dynamic() : null);
    try {
      optimizer.restore(dir, saved);
      return optimizer;
    } catch (RuntimeException e) {
      optimizer.close();
      throw e;
    }
  }

  /** @return the settings */
  public AdamWConfig config() {
    return config;
  }

  /** @return the parameters by name, in the order given (unmodifiable) */
  public Map<String, NDArray> parameters() {
    return parameters;
  }

  /** @return the number of applied updates so far (skipped steps not included) */
  public long stepCount() {
    return stepCount;
  }

  /** @return the number of steps skipped because a gradient was not finite */
  public long skippedCount() {
    return skippedCount;
  }

  /** @return the loss scaling, if any */
  public java.util.Optional<LossScaling> lossScaling() {
    return java.util.Optional.ofNullable(lossScaling);
  }

  /**
   * The factor the caller multiplies its loss by before the backward pass that feeds the next {@link #step()}: the
   * current dynamic scale with {@link LossScaling}, exactly 1 without (then there is nothing to multiply).
   *
   * @return the loss scale
   */
  public double lossScale() {
    return lossScale;
  }

  /**
   * The FLOAT32 master copy of a FLOAT16 parameter, owned by the optimizer: read it, never modify or close it.
   *
   * @param parameter the parameter's name
   * @return the master, or empty for a parameter that is not FLOAT16 (it is its own master)
   * @throws IllegalArgumentException when there is no such parameter
   */
  public java.util.Optional<NDArray> masterWeight(String parameter) {
    moment(firstMoments, parameter);
    return java.util.Optional.ofNullable(masters.get(parameter));
  }

  /**
   * The first-moment average of a parameter, owned by the optimizer: read it, never modify or close it.
   *
   * @param parameter the parameter's name
   * @return the array
   * @throws IllegalArgumentException when there is no such parameter
   */
  public NDArray firstMoment(String parameter) {
    return moment(firstMoments, parameter);
  }

  /**
   * The second-moment average of a parameter, owned by the optimizer: read it, never modify or close it.
   *
   * @param parameter the parameter's name
   * @return the array
   * @throws IllegalArgumentException when there is no such parameter
   */
  public NDArray secondMoment(String parameter) {
    return moment(secondMoments, parameter);
  }

  private NDArray moment(Map<String, NDArray> moments, String parameter) {
    checkOpen();
    NDArray a = moments.get(parameter);
    if (a == null) {
      throw new IllegalArgumentException("no parameter named '" + parameter + "'");
    }
    return a;
  }

  /**
   * Applies one update from the accumulated gradients (see the class comment), then zeroes the gradients.
   * A parameter that has not received a gradient yet counts as having a zero gradient. An engine error in the
   * middle of an update (a closed parameter, say) can leave it partly applied.
   *
   * @return what was done
   * @throws IllegalStateException when the optimizer is closed
   */
  public StepReport step() {
    return step(1.0);
  }

  /**
   * {@link #step()} with the scheduled learning rate multiplied by {@code scale} (for this update only; weight decay
   * uses the scaled rate too). {@link PolicyUpdater}'s update check retries an update that moved the policy too far
   * with half the rate.
   *
   * @param rateScale the factor, finite and above 0
   * @return what was done (its learning rate is the scaled one)
   * @throws IllegalArgumentException when the scale is not finite and above 0
   * @throws IllegalStateException when the optimizer is closed
   */
  public StepReport step(double rateScale) {
    checkOpen();
    if (!(rateScale > 0) || Double.isInfinite(rateScale)) {
      throw new IllegalArgumentException("the learning-rate scale must be finite and above 0, got " + rateScale);
    }
    long next = stepCount + 1;
    double lr = config.learningRateAt(next) * rateScale;
    GradMode noGrad = GradMode.disabled(); // in-place writes to leaves that require gradients
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      List<NDArray> grads = gradients();
      // with loss scaling the gradients are the scaled loss's: the norm of the true ones is exactly this over the
      // scale (a power of two)
      double norm = lossScale == 1.0 ? globalNorm(grads) : globalNorm(grads) / lossScale;
      if (!Double.isFinite(norm)) {
        skippedCount++;
        if (lossScaling != null) {
          double was = lossScale;
          lossScale = LossScaling.backedOff(lossScale);
          scaledSteps = 0;
          LOG.info("AdamW: the gradients overflowed at loss scale {} (update {}); step skipped, loss scale now {} ({}"
              + " skipped so far)", was, next, lossScale, skippedCount);
        } else {
          LOG.warn("AdamW: gradient norm is {} at update {}; step skipped ({} skipped so far)", norm, next,
              skippedCount);
        }
        zero(grads);
        return new StepReport(next, lr, norm, false, true);
      }
      boolean clipped = config.clipsGradients() && norm > config.gradientClip();
      double scale = clipped ? config.gradientClip() / (norm + CLIP_EPSILON) : 1.0;
      double decay = 1.0 - lr * config.weightDecay();
      double oneMinusBeta1 = 1.0 - config.beta1();
      double oneMinusBeta2 = 1.0 - config.beta2();
      double stepSize = lr / (1.0 - Math.pow(config.beta1(), next));
      double correction2Sqrt = Math.sqrt(1.0 - Math.pow(config.beta2(), next));
      // the scalar operands as arrays, made once per step rather than once per parameter and operation: DJL turns
      // every Java scalar operand into a new array (a native allocation, tens of microseconds), which is most of a
      // step's cost when there are many small parameters (LoRA). Each is exactly the FLOAT64 0-d array that
      // muli(double) and the like would create, so the arithmetic is unchanged bit for bit.
      NDArray scaleArray = scalar(scale);
      NDArray decayArray = scalar(decay);
      NDArray oneMinusBeta1Array = scalar(oneMinusBeta1);
      NDArray oneMinusBeta2Array = scalar(oneMinusBeta2);
      NDArray beta2Array = scalar(config.beta2());
      NDArray correction2SqrtArray = scalar(correction2Sqrt);
      NDArray epsArray = scalar(config.eps());
      NDArray stepSizeArray = scalar(stepSize);
      NDArray lossScaleArray = lossScale == 1.0 ? null : scalar(lossScale);
      int i = 0;
      for (Map.Entry<String, NDArray> e : parameters.entrySet()) {
        NDArray param = e.getValue();
        NDArray master = masters.get(e.getKey());
        // a FLOAT16 parameter's update goes to its FLOAT32 master, which is then rounded back into it
        NDArray p = master == null ? param : master;
        NDArray g = grads.get(i++);
        NDArray m = firstMoments.get(e.getKey());
        NDArray v = secondMoments.get(e.getKey());
        // a scope per parameter catches anything the engine creates on the way; the temporaries as large as the
        // parameter are closed as soon as they are used, so at most two exist at a time
        try (NDScope inner = new NDScope()) {
          inner.suppressNotUsedWarning();
          if (g.getDataType() != p.getDataType()) {
            g = g.toType(p.getDataType(), false); // a FLOAT16 gradient read in FLOAT32 (closed by the scope)
          }
          if (lossScaleArray != null) {
            g.divi(lossScaleArray); // exact: the scale is a power of two
          }
          if (clipped) {
            g.muli(scaleArray);
          }
          if (decay != 1.0) {
            p.muli(decayArray);
          }
          try (NDArray delta = g.sub(m)) {
            m.addi(delta.muli(oneMinusBeta1Array));
          }
          try (NDArray square = g.mul(oneMinusBeta2Array)) {
            v.muli(beta2Array).addi(square.muli(g));
          }
          try (NDArray denominator = v.sqrt()) {
            denominator.divi(correction2SqrtArray).addi(epsArray);
            try (NDArray update = m.mul(stepSizeArray)) {
              p.subi(update.divi(denominator));
            }
          }
          if (master != null) {
            try (NDArray rounded = master.toType(param.getDataType(), false)) {
              param.set(ALL, rounded);
            }
          }
        }
      }
      stepCount = next;
      if (lossScaling != null && ++scaledSteps >= lossScaling.growthInterval()) {
        lossScale = LossScaling.grown(lossScale);
        scaledSteps = 0;
      }
      zero(grads);
      return new StepReport(next, lr, norm, clipped, false);
    } finally {
      noGrad.close();
    }
  }

  /**
   * Skips the pending update without reading the gradients, because the caller saw a non-finite loss: the
   * parameters and the moments stay bit-identical, the skip is counted and the gradients are zeroed.
   *
   * @return the report of the skipped update (its gradient norm is NaN)
   * @throws IllegalStateException when the optimizer is closed
   */
  public StepReport skip() {
    checkOpen();
    long next = stepCount + 1;
    skippedCount++;
    LOG.warn("AdamW: non-finite loss at update {}; step skipped ({} skipped so far)", next, skippedCount);
    zeroGradients();
    return new StepReport(next, config.learningRateAt(next), Double.NaN, false, true);
  }

  /**
   * Whether the accumulated gradients hold an infinity or a NaN (what {@link #step()} would skip), read without
   * changing anything. With loss scaling a caller can then {@linkplain #rescaleAfterOverflow() halve the scale} and
   * run the same minibatch again instead of losing it.
   *
   * @return whether the gradients' global norm is not finite
   * @throws IllegalStateException when the optimizer is closed
   */
  public boolean gradientsOverflowed() {
    checkOpen();
    GradMode noGrad = GradMode.disabled();
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      List<NDArray> grads = gradients();
      return !Double.isFinite(globalNorm(grads));
    } finally {
      noGrad.close();
    }
  }

  /**
   * After gradients that overflowed ({@link #gradientsOverflowed()}): halves the loss scale and zeroes the gradients,
   * without counting a step or a skip, so that the caller can run the same minibatch's backward pass again at the
   * smaller scale. Does nothing but return false without loss scaling or when the scale is at its floor ({@link
   * LossScaling#MIN_SCALE}: the gradients are then not finite whatever the scale).
   *
   * @return whether the scale was halved
   * @throws IllegalStateException when the optimizer is closed
   */
  public boolean rescaleAfterOverflow() {
    checkOpen();
    if (lossScaling == null || lossScale <= LossScaling.MIN_SCALE) {
      return false;
    }
    double was = lossScale;
    lossScale = LossScaling.backedOff(lossScale);
    scaledSteps = 0;
    LOG.info("AdamW: the gradients overflowed at loss scale {}; loss scale now {}, the minibatch runs again", was,
        lossScale);
    zeroGradients();
    return true;
  }

  /** @return the learning rate the next update will use (warm-up included) */
  public double learningRate() {
    return config.learningRateAt(stepCount + 1);
  }

  /**
   * A scalar operand for this step: a 0-d FLOAT64 array on the parameters' device, as DJL's {@code muli(double)}
   * makes one, owned by the optimizer's manager and closed by the step's scope.
   */
  private NDArray scalar(double value) {
    return manager.create(value);
  }

  /**
   * The L2 norm over all gradients; NaN or infinite when any gradient holds a NaN or an infinity. A FLOAT16
   * gradient's norm is taken in FLOAT32 (its sum of squares would overflow FLOAT16).
   */
  private static double globalNorm(List<NDArray> grads) {
    NDList norms = new NDList(grads.size());
    for (NDArray g : grads) {
      NDArray flat = g.reshape(-1);
      if (flat.getDataType() == DataType.FLOAT16) {
        flat = flat.toType(DataType.FLOAT32, false);
      }
      norms.add(flat.norm().toType(DataType.FLOAT64, false));
    }
    double sumOfSquares = 0;
    for (double n : NDArrays.stack(norms).toDoubleArray()) {
      sumOfSquares += n * n;
    }
    return Math.sqrt(sumOfSquares);
  }

  /** Writes zeros into each gradient (an assignment, so NaN and infinite entries are cleared too). */
  private static void zero(List<NDArray> grads) {
    NDIndex all = new NDIndex("...");
    for (NDArray g : grads) {
      g.set(all, 0);
    }
  }

  /** Every parameter's gradient, in the parameters' order (call inside a scope: getGradient makes handles). */
  private List<NDArray> gradients() {
    List<NDArray> grads = new ArrayList<>(parameters.size());
    for (NDArray p : parameters.values()) {
      grads.add(p.getGradient());
    }
    return grads;
  }

  /**
   * Sets every parameter's gradient to zero without updating anything.
   *
   * @throws IllegalStateException when the optimizer is closed
   */
  public void zeroGradients() {
    checkOpen();
    GradMode noGrad = GradMode.disabled();
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      List<NDArray> grads = gradients();
      zero(grads);
    } finally {
      noGrad.close();
    }
  }

  /**
   * Copies the parameters, both moments (and the master weights, if any) and the step counts, so that {@link #restore(Snapshot)} can undo the updates
   * that follow (the trust-region check of {@link PolicyUpdater} undoes an update that moved the policy too far). The
   * copies live on the parameters' device and take three times the trainable parameters' memory until the snapshot
   * is closed.
   *
   * @return the snapshot; close it when done
   * @throws IllegalStateException when the optimizer is closed
   */
  public Snapshot snapshot() {
    checkOpen();
    NDManager copies = manager.newSubManager();
    GradMode noGrad = GradMode.disabled();
    try {
      Map<String, NDArray[]> state = new LinkedHashMap<>();
      for (Map.Entry<String, NDArray> e : parameters.entrySet()) {
        NDArray master = masters.get(e.getKey());
        state.put(e.getKey(), new NDArray[] {
            copy(e.getValue(), copies), copy(firstMoments.get(e.getKey()), copies),
            copy(secondMoments.get(e.getKey()), copies), master == null ? null : copy(master, copies)});
      }
      return new Snapshot(this, copies, state, stepCount, skippedCount);
    } catch (RuntimeException e) {
      copies.close();
      throw e;
    } finally {
      noGrad.close();
    }
  }

  private static NDArray copy(NDArray a, NDManager into) {
    NDArray c = a.duplicate();
    c.attach(into);
    return c;
  }

  /**
   * Puts back the parameters, moments, master weights and step counts a snapshot of this optimizer holds (the loss
   * scale stays what the steps since found, as GradScaler's is independent of the model) (written in place: the
   * parameter arrays stay the same objects) and zeroes the gradients. The snapshot stays open and can be restored
   * again.
   *
   * @param snapshot a snapshot taken by this optimizer
   * @throws IllegalArgumentException when the snapshot belongs to another optimizer
   * @throws IllegalStateException when the optimizer or the snapshot is closed
   */
  public void restore(Snapshot snapshot) {
    checkOpen();
    Objects.requireNonNull(snapshot, "snapshot");
    if (snapshot.owner != this) {
      throw new IllegalArgumentException("the snapshot was taken by another optimizer");
    }
    if (snapshot.closed) {
      throw new IllegalStateException("the snapshot is closed");
    }
    NDIndex all = new NDIndex("...");
    GradMode noGrad = GradMode.disabled();
    try {
      for (Map.Entry<String, NDArray> e : parameters.entrySet()) {
        NDArray[] saved = snapshot.state.get(e.getKey());
        e.getValue().set(all, saved[0]);
        firstMoments.get(e.getKey()).set(all, saved[1]);
        secondMoments.get(e.getKey()).set(all, saved[2]);
        if (saved[3] != null) {
          masters.get(e.getKey()).set(all, saved[3]);
        }
      }
    } finally {
      noGrad.close();
    }
    stepCount = snapshot.stepCount;
    skippedCount = snapshot.skippedCount;
    zeroGradients();
  }

  /** A copy of an optimizer's parameters and state ({@link AdamW#snapshot()}); holds device memory until closed. */
  public static final class Snapshot implements AutoCloseable {
    private final AdamW owner;
    private final NDManager copies;
    private final Map<String, NDArray[]> state;
    private final long stepCount;
    private final long skippedCount;
    private boolean closed;

    private Snapshot(AdamW owner, NDManager copies, Map<String, NDArray[]> state, long stepCount,
        long skippedCount) {
      this.owner = owner;
      this.copies = copies;
      this.state = state;
      this.stepCount = stepCount;
      this.skippedCount = skippedCount;
    }

    /** @return the optimizer's step count when the snapshot was taken */
    public long stepCount() {
      return stepCount;
    }

    /** Releases the copies. Idempotent. */
    @Override
    public void close() {
      if (!closed) {
        closed = true;
        copies.close();
      }
    }
  }

  /**
   * Saves the complete state into a directory (created if missing): the moments file first, then {@value
   * #STATE_FILE} by an atomic rename; moments files of earlier saves in the directory are deleted afterwards.
   *
   * @param dir the directory; it should hold nothing but this optimizer's state (and, say, the model's files)
   * @throws UncheckedIOException naming the file when writing fails
   * @throws IllegalStateException when the optimizer is closed
   */
  public void save(Path dir) {
    checkOpen();
    Objects.requireNonNull(dir, "dir");
    String saveId = UUID.randomUUID().toString().replace("-", "");
    String momentsName = MOMENTS_FILE_PREFIX + saveId + MOMENTS_FILE_SUFFIX;
    SafetensorsWriter writer = new SafetensorsWriter();
    for (String name : parameters.keySet()) {
      AdamWFiles.addMoment(writer, FIRST_MOMENT_PREFIX + name, firstMoments.get(name));
      AdamWFiles.addMoment(writer, SECOND_MOMENT_PREFIX + name, secondMoments.get(name));
      if (masters.containsKey(name)) {
        AdamWFiles.addMoment(writer, MASTER_PREFIX + name, masters.get(name));
      }
    }
    writer.addMetadata(SAVE_ID_METADATA, saveId);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the optimizer state directory " + dir + ": " + e.getMessage(), e);
    }
    writer.write(dir.resolve(momentsName));
    Path stateFile = dir.resolve(STATE_FILE);
    byte[] json = stateJson(saveId, momentsName).getBytes(StandardCharsets.UTF_8);
    try {
      AtomicFiles.write(stateFile, json);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + stateFile + ": " + e.getMessage(), e);
    }
    AdamWFiles.deleteStaleMoments(dir, momentsName);
  }


  private String stateJson(String saveId, String momentsName) {
    StringWriter text = new StringWriter();
    try (JsonWriter json = new JsonWriter(text)) {
      json.setIndent("  ");
      json.beginObject();
      json.name("format").value(FORMAT);
      json.name("version").value(FORMAT_VERSION);
      json.name("step_count").value(stepCount);
      json.name("skipped_count").value(skippedCount);
      json.name("moments_file").value(momentsName);
      json.name("save_id").value(saveId);
      json.name("parameter_count").value(parameters.size());
      if (lossScaling != null) {
        json.name("loss_scale").value(lossScale);
        json.name("loss_scale_applied_steps").value(scaledSteps);
      }
      json.name("config").beginObject();
      json.name("learning_rate").value(config.learningRate());
      json.name("beta1").value(config.beta1());
      json.name("beta2").value(config.beta2());
      json.name("eps").value(config.eps());
      json.name("weight_decay").value(config.weightDecay());
      // JSON has no infinity; 0 disables clipping just as well
      json.name("gradient_clip").value(config.clipsGradients() ? config.gradientClip() : 0.0);
      json.name("warmup_steps").value(config.warmupSteps());
      json.endObject();
      json.endObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return text + "\n";
  }


  /**
   * Replaces this optimizer's state (moments, step and skip counts) by one saved with {@link #save(Path)}. The
   * config stays this optimizer's; a saved config that differs is logged. Nothing changes when the load fails.
   *
   * @param dir the save directory
   * @throws CheckpointException naming the file (and the tensor or field) when the state is missing or malformed,
   *     or when its tensors do not match this optimizer's parameters (a missing or extra parameter, another shape
   *     or type)
   * @throws IllegalStateException when the optimizer is closed
   */
  public void load(Path dir) {
    checkOpen();
    AdamWFiles.SavedState saved = AdamWFiles.readState(dir);
    if (!saved.config().equals(normalized(config))) {
      LOG.warn("{}: the saved optimizer config {} differs from this optimizer's {}; keeping this optimizer's",
          saved.file(), saved.config(), config);
    }
    restore(dir, saved);
  }

  /** The config as the state file records it (a disabled clip as 0). */
  private static AdamWConfig normalized(AdamWConfig c) {
    return c.clipsGradients() || c.gradientClip() == 0 ? c : c.toBuilder().optGradientClip(0).build();
  }







  /** Validates the moments file against the parameters, reads it, and only then swaps the state in. */
  private void restore(Path dir, AdamWFiles.SavedState saved) {
    Path file = dir.resolve(saved.momentsFile());
    if (!Files.isRegularFile(file)) {
      throw new CheckpointException(file + ": the moments file named by " + saved.file() + " does not exist");
    }
    Map<String, NDArray> loaded = new LinkedHashMap<>();
    try (SafetensorsFile st = SafetensorsFile.open(file)) {
      String id = st.metadata().get(SAVE_ID_METADATA);
      if (!saved.saveId().equals(id)) {
        throw new CheckpointException(file + ": save id " + id + " does not match " + saved.file() + "'s "
            + saved.saveId() + "; the two files come from different saves");
      }
      Set<String> expected = new TreeSet<>();
      for (Map.Entry<String, NDArray> e : parameters.entrySet()) {
        for (String prefix : prefixes(e.getKey())) {
          String tensor = prefix + e.getKey();
          expected.add(tensor);
          if (!st.names().contains(tensor)) {
            throw new CheckpointException(file + ": no tensor '" + tensor + "' for parameter '" + e.getKey()
                + "'; the state was saved for other parameters");
          }
          AdamWFiles.checkTensor(st.info(tensor), e.getKey(), e.getValue(), file);
        }
      }
      for (String name : new TreeSet<>(st.names())) {
        if (!expected.contains(name)) {
          throw new CheckpointException(file + ": tensor '" + name
              + "' belongs to no parameter of this optimizer; the state was saved for other parameters");
        }
      }
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        for (String name : parameters.keySet()) {
          for (String prefix : prefixes(name)) {
            String tensor = prefix + name;
            loaded.put(tensor, read(channel, st, tensor, parameters.get(name)));
          }
        }
      } catch (IOException e) {
        throw new CheckpointException(file + ": cannot read the moments: " + e.getMessage(), e);
      }
    } catch (RuntimeException e) {
      loaded.values().forEach(NDArray::close);
      throw e;
    }
    for (String name : parameters.keySet()) {
      firstMoments.put(name, swap(firstMoments.get(name), loaded.get(FIRST_MOMENT_PREFIX + name)));
      secondMoments.put(name, swap(secondMoments.get(name), loaded.get(SECOND_MOMENT_PREFIX + name)));
      if (masters.containsKey(name)) {
        masters.put(name, swap(masters.get(name), loaded.get(MASTER_PREFIX + name)));
      }
    }
    stepCount = saved.stepCount();
    skippedCount = saved.skippedCount();
    if (lossScaling != null) {
      lossScale = saved.lossScale() > 0 ? saved.lossScale() : lossScaling.initialScale();
      scaledSteps = saved.lossScale() > 0 ? saved.scaledSteps() : 0;
    }
  }

  /** The tensor-name prefixes of a parameter's state: both moments, and the master of a FLOAT16 parameter. */
  private List<String> prefixes(String parameter) {
    return masters.containsKey(parameter) ? List.of(FIRST_MOMENT_PREFIX, SECOND_MOMENT_PREFIX, MASTER_PREFIX)
        : List.of(FIRST_MOMENT_PREFIX, SECOND_MOMENT_PREFIX);
  }

  private static NDArray swap(NDArray old, NDArray replacement) {
    old.close();
    return replacement;
  }


  /** Copies one tensor into a new array of the optimizer's manager that owns its memory. */
  private NDArray read(FileChannel channel, SafetensorsFile st, String tensor, NDArray like) throws IOException {
    long[] range = st.byteRange(tensor);
    long length = range[1] - range[0];
    Shape shape = like.getShape();
    DataType type = stateType(like);
    NDArray owned;
    if (length == 0) {
      owned = manager.zeros(shape, type);
    } else {
      MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, range[0], length);
      bytes.order(ByteOrder.LITTLE_ENDIAN);
      // an array created from Java memory only borrows it: keep a copy that owns its storage
      try (NDArray borrowed = type == DataType.FLOAT64
          ? manager.create(bytes.asDoubleBuffer(), shape, type)
          : manager.create(bytes.asFloatBuffer(), shape, type)) {
        owned = borrowed.duplicate();
      }
    }
    NDScope.unregister(owned);
    return owned;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the optimizer is closed");
    }
  }

  /** Releases the moments (the parameters stay open). Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      manager.close();
    }
  }

  /** @return the parameter count, step and skip counts, for logs */
  @Override
  public String toString() {
    return "AdamW[" + parameters.size() + " parameters, " + stepCount + " steps, " + skippedCount + " skipped, "
        + config + "]";
  }
}
