package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A decoding step of {@link Qwen3Model} (every layer and the final norm, one new slot per row, a KV cache) run as
 * one TorchScript call instead of some 600 calls from Java, each of which costs DJL a native call and a Java array.
 * The step's code is the text resource {@code decode_step.torchscript}, which mirrors {@code Qwen3Model.layer}
 * operation for operation, so both compute the same values to the bit ({@code ScriptedDecodeStepTest} checks that on
 * every dtype the CPU runs).
 *
 * <p>{@link ScriptModule} packs the code into the archive libtorch loads, in memory. Where libtorch refuses it (a
 * future libtorch that dropped the format), the step is unavailable and the model decodes from Java as before, after
 * one warning.
 */
final class ScriptedDecodeStep {

  private static final Logger LOG = LoggerFactory.getLogger(ScriptedDecodeStep.class);
  private static final String RESOURCE = "/org/magejvm/impl/llm/model/decode_step.torchscript";

  /** Steps run through the script in this JVM (tests check that the scripted path ran, not the Java one). */
  private static final AtomicLong RUNS = new AtomicLong();

  private final PyTorchNative.Script script;

  private ScriptedDecodeStep(PyTorchNative.Script script) {
    this.script = script;
  }

  /** The one module of this JVM, loaded on first use. */
  private static final class Holder {
    static final Optional<ScriptedDecodeStep> INSTANCE = load();
  }

  /** @return the step, or empty where libtorch could not load it (logged once) */
  static Optional<ScriptedDecodeStep> instance() {
    return Holder.INSTANCE;
  }

  private static Optional<ScriptedDecodeStep> load() {
    return ScriptModule.load(RESOURCE, "DecodeStep", "decode_step", LOG,
        "libtorch could not load the scripted decoding step; decoding runs from Java ({})")
        .map(ScriptedDecodeStep::new);
  }

  /** @return the TorchScript code of the step */
  static String code() {
    return ScriptModule.resource(RESOURCE);
  }

  /**
   * Packs TorchScript code into an archive such as {@code torch.jit.save} writes for a module without parameters.
   *
   * @param code the source of class {@code DecodeStep}
   * @return the archive's bytes (a zip of stored entries under {@code decode_step/})
   */
  static byte[] archive(String code) throws IOException {
    return ScriptModule.archive("DecodeStep", "decode_step", code);
  }

  /** @return the steps run through the script in this JVM so far */
  static long runs() {
    return RUNS.get();
  }

  /**
   * @param type an array type
   * @return PyTorch's scalar type code for it, or -1 where the step does not run on it
   */
  static int scalarType(DataType type) {
    switch (type) {
      case FLOAT16:
        return 5;
      case FLOAT32:
        return 6;
      case FLOAT64:
        return 7;
      case BFLOAT16:
        return 15;
      default:
        return -1;
    }
  }

  /**
   * @param weights the model's parameters
   * @return the arrays {@link #run} takes as its {@code weights}, in its order
   */
  static NDArray[] weights(Qwen3Weights weights) {
    List<Qwen3Weights.Layer> layers = weights.layers();
    NDArray[] w = new NDArray[11 * layers.size() + 1];
    for (int l = 0; l < layers.size(); l++) {
      Qwen3Weights.Layer layer = layers.get(l);
      int i = 11 * l;
      w[i] = layer.inputNorm();
      w[i + 1] = layer.qProj();
      w[i + 2] = layer.kProj();
      w[i + 3] = layer.vProj();
      // without q/k norms the script never reads these two; any array fills the slots
      w[i + 4] = layer.qNorm() != null ? layer.qNorm() : layer.inputNorm();
      w[i + 5] = layer.kNorm() != null ? layer.kNorm() : layer.inputNorm();
      w[i + 6] = layer.oProj();
      w[i + 7] = layer.postNorm();
      w[i + 8] = layer.gateProj();
      w[i + 9] = layer.upProj();
      w[i + 10] = layer.downProj();
    }
    w[w.length - 1] = weights.finalNorm();
    return w;
  }

  /**
   * Runs every layer and the final norm for one new slot per row.
   *
   * @param out the manager that owns the result
   * @param h (B, 1, D) embedded tokens in the norm type
   * @param weights per layer the eleven arrays of {@code decode_step.torchscript}, then the final norm
   * @param keys the cache's keys, one array per layer, written at slot {@code length}
   * @param values the cache's values
   * @param cos (B, 1, 1, hd) rotary cosines
   * @param sin (B, 1, 1, hd) rotary sines
   * @param rotate the (hd, hd) rotate-half matrix
   * @param bias the (B, 1, 1, 1, S) mask, or null
   * @param constants eps, -1/2 and the query scale
   * @param length the slots filled before this step
   * @param config the model's configuration
   * @param dtype the weights' type
   * @param normType the norms' type
   * @return (B, 1, D) the final norm's output
   */
  NDArray run(NDManager out, NDArray h, NDArray[] weights, NDArray[] keys, NDArray[] values, NDArray cos,
      NDArray sin, NDArray rotate, NDArray bias, NDArray[] constants, int length, Qwen3Config config,
      DataType dtype, DataType normType) {
    RUNS.incrementAndGet();
    return PyTorchNative.runScript(script, "forward", out, h, weights, keys, values, cos, sin, rotate,
        bias == null ? constants[0] : bias, bias != null, constants[0], constants[1], constants[2], (long) length,
        (long) config.numAttentionHeads(), (long) config.numKeyValueHeads(), (long) config.headDim(),
        config.qkNorm(), (long) scalarType(dtype), (long) scalarType(normType));
  }
}
