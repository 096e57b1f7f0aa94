package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.magejvm.api.annotation.Api;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A type conversion that stays in the autograd graph. DJL's {@code NDArray.toType} converts under libtorch's {@code
 * NoGradGuard} (in DJL 0.35.1 as in 0.36.0), so its result never carries a gradient back to its input: a model
 * whose matrices are FLOAT16 and whose norms are FLOAT32 would train nothing upstream of its first conversion. {@link
 * #toType} converts through a one-line TorchScript module ({@code cast.torchscript}) whenever the graph needs it, and
 * through DJL's {@code toType} otherwise, so a float32 model (whose conversions are no-ops) and every pass without
 * gradients compute exactly what they did before, bit for bit.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class DifferentiableCast {
  private static final Logger LOG = LoggerFactory.getLogger(DifferentiableCast.class);
  private static final String RESOURCE = "/org/magejvm/impl/llm/model/cast.torchscript";

  private final PyTorchNative.Script script;
  /** A 0-d array of each target type, naming the type to the module (never closed: they live with the module). */
  private final Map<DataType, NDArray> likes = new EnumMap<>(DataType.class);
  private final NDManager manager;

  private DifferentiableCast(PyTorchNative.Script script) {
    this.script = script;
    this.manager = NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch");
    for (DataType t : new DataType[] {DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64}) {
      try (NDArray raw = manager.create(0f)) {
        NDArray like = raw.toType(t, true);
        NDScope.unregister(like);
        likes.put(t, like);
      }
    }
  }

  /** The one module of this JVM, loaded on first use. */
  private static final class Holder {
    static final Optional<DifferentiableCast> INSTANCE = ScriptModule.load(RESOURCE, "Cast", "cast", LOG,
        "libtorch could not load the cast module; reduced-precision training is unavailable ({})")
        .map(DifferentiableCast::new);
  }

  /**
   * {@code x} converted to {@code type}, connected to {@code x}'s autograd graph when this thread records one (so the
   * gradient flows back through the conversion, converted to {@code x}'s type). Without grad mode, and always when
   * {@code x} already has the type, this is {@code x.toType(type, false)}: the same array for the same type; the
   * values are the same either way.
   *
   * @param x the array; its manager owns the result
   * @param type FLOAT16, FLOAT32 or FLOAT64 when a graph is recorded; any type DJL converts to otherwise
   * @return the converted array
   * @throws IllegalStateException where libtorch could not load the cast module and a graph needs the conversion
   * @throws IllegalArgumentException for another target type when a graph needs the conversion
   */
  public static NDArray toType(NDArray x, DataType type) {
    // (DJL's hasGradient() reads false for any array that is not a leaf, so whether x is part of a graph cannot be
    // asked cheaply: with grad mode on every conversion goes through the module, which computes the same values)
    if (x.getDataType() == type || !PyTorchNative.isGradMode()) {
      return x.toType(type, false);
    }
    DifferentiableCast cast = Holder.INSTANCE.orElseThrow(() -> new IllegalStateException("a training pass needs a"
        + " differentiable conversion from " + x.getDataType() + " to " + type + ", but libtorch could not load the"
        + " cast module (see the warning above); train in float32"));
    NDArray like = cast.likes.get(type);
    if (like == null) {
      throw new IllegalArgumentException("a differentiable conversion goes to FLOAT16, FLOAT32 or FLOAT64, not "
          + type);
    }
    return PyTorchNative.runScriptWithAutograd(cast.script, x, like);
  }
}
