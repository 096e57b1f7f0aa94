package org.magejvm.examples.cli;

import ai.djl.engine.Engine;
import ai.djl.ndarray.types.DataType;
import java.util.Locale;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;
import picocli.CommandLine.Option;

/** Where a model runs and in which precision (picocli mixin). */
final class ModelOptions {

  @Option(names = "--device", paramLabel = "cpu|gpu", defaultValue = "cpu",
      description = "Where the model runs (default: ${DEFAULT-VALUE}); see docs/gpu.md.")
  String device;

  @Option(names = "--dtype", paramLabel = "float32|float16",
      description = "Weight type (default: float32 on cpu, float16 on gpu).")
  String dtype;

  @Option(names = "--no-kv-cache", description = "Recompute the whole sequence for every token (for comparison).")
  boolean noKvCache;

  @Option(names = "--non-finite-weights", paramLabel = "refuse|warn|allow", defaultValue = "refuse",
      description = "What to do with a weight tensor holding NaN or infinity (default: ${DEFAULT-VALUE}).")
  String nonFiniteWeights;

  /**
   * @param seed the generator's fallback sampling seed
   * @param thinking the chat template's enable_thinking switch
   * @return the load options
   */
  Qwen3Checkpoint.Options toOptions(long seed, boolean thinking) {
    Qwen3Checkpoint.Options o;
    switch (device.toLowerCase(Locale.ROOT)) {
      case "cpu":
        o = Qwen3Checkpoint.Options.cpu();
        break;
      case "gpu":
        requireGpu();
        o = Qwen3Checkpoint.Options.gpu();
        break;
      default:
        throw new IllegalArgumentException("unknown device '" + device + "': expected cpu or gpu");
    }
    if (dtype != null) {
      o = o.withDtype(parseDtype(dtype));
    }
    return o.withKvCache(!noKvCache).withSeed(seed).withThinking(thinking)
        .withNonFiniteWeights(parseNonFinite(nonFiniteWeights));
  }

  /**
   * @param s refuse, warn or allow
   * @return the check
   * @throws IllegalArgumentException naming {@code --non-finite-weights} when the value is unknown
   */
  static NonFiniteCheck parseNonFinite(String s) {
    switch (s == null ? "refuse" : s.toLowerCase(Locale.ROOT)) {
      case "refuse":
        return NonFiniteCheck.REFUSE;
      case "warn":
        return NonFiniteCheck.WARN;
      case "allow":
        return NonFiniteCheck.ALLOW;
      default:
        throw new IllegalArgumentException("--non-finite-weights: unknown value '" + s
            + "'; expected refuse, warn or allow");
    }
  }

  /** Fails with one line, before any model is loaded, when the PyTorch engine sees no CUDA GPU. */
  private static void requireGpu() {
    int gpus;
    try {
      gpus = Engine.getEngine("PyTorch").getGpuCount();
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      throw new IllegalStateException("--device gpu: the PyTorch engine could not be loaded to look for a GPU ("
          + e.getMessage() + "); see docs/gpu.md", e);
    }
    if (gpus < 1) {
      throw new IllegalStateException("--device gpu: the PyTorch engine sees no CUDA GPU (no driver or device, or a"
          + " CPU-only libtorch); use --device cpu, or see docs/gpu.md");
    }
  }

  /**
   * @param s float32 or float16 (f32, f16)
   * @return the data type
   * @throws IllegalArgumentException naming {@code --dtype} when the value is unknown
   */
  static DataType parseDtype(String s) {
    switch (s.toLowerCase(Locale.ROOT)) {
      case "float32":
      case "f32":
        return DataType.FLOAT32;
      case "float16":
      case "f16":
        return DataType.FLOAT16;
      default:
        throw new IllegalArgumentException("--dtype: unsupported type '" + s + "'; expected float32 or float16"
            + (s.toLowerCase(Locale.ROOT).startsWith("bf") ? " (bfloat16 arrays abort the JVM on this engine;"
                + " bf16 checkpoints are widened while loading)" : ""));
    }
  }
}
