package org.magejvm.examples.cli;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.types.DataType;
import java.util.Locale;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;
import org.magejvm.impl.train.TrainingConfig;
import picocli.CommandLine.Option;

/**
 * Where a model runs and in which precision (picocli mixin), and the one parser of every command's {@code --device}
 * ({@link #parseDevice}: {@code cpu}, {@code gpu}, {@code gpu:N}, the spelling of the training config's {@code
 * hardware.device}), with its check that the engine sees the GPU.
 */
final class ModelOptions {

  @Option(names = "--device", paramLabel = "cpu|gpu[:N]", defaultValue = "cpu",
      description = "Where the model runs: the CPU, or CUDA device N (gpu is gpu:0) (default: ${DEFAULT-VALUE});"
          + " see docs/gpu.md.")
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
    Qwen3Checkpoint.Options o = options(parseDevice("--device", device, false));
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

  /**
   * Reads a {@code --device} value: {@code cpu}, {@code gpu}, {@code gpu:N} ({@link
   * TrainingConfig.HardwareSettings#parseDevice}, the parser of the training config's {@code hardware.device}) and,
   * where the command allows it, {@code auto} (the first GPU when the engine sees one, else the CPU). A GPU the engine
   * does not see is refused here, in one line, before any model is loaded.
   *
   * @param option the option's name, for messages
   * @param text the value as given
   * @param auto whether {@code auto} is allowed
   * @return the device
   * @throws IllegalArgumentException naming the option when the value is not a device
   * @throws IllegalStateException naming the option when it names a GPU the engine does not see
   */
  static Device parseDevice(String option, String text, boolean auto) {
    if (auto && text != null && text.trim().equalsIgnoreCase("auto")) {
      return gpuCount(option, text) > 0 ? Device.gpu(0) : Device.cpu();
    }
    Device d;
    try {
      d = TrainingConfig.HardwareSettings.parseDevice(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + " " + e.getMessage().replace("must be cpu, gpu or gpu:N",
          "must be " + (auto ? "auto, " : "") + "cpu, gpu or gpu:N"), e);
    }
    if (d.isGpu()) {
      requireGpu(option, text.trim(), d.getDeviceId());
    }
    return d;
  }

  /**
   * @param d a device
   * @return the load options for it: {@link Qwen3Checkpoint.Options#cpu()}, or {@link
   *     Qwen3Checkpoint.Options#gpu()} (float16) on that GPU
   */
  static Qwen3Checkpoint.Options options(Device d) {
    return d.isGpu() ? Qwen3Checkpoint.Options.gpu().withDevice(d) : Qwen3Checkpoint.Options.cpu();
  }

  /**
   * Fails with one line, before any model is loaded, when the PyTorch engine sees no CUDA GPU (or fewer than the one
   * asked for).
   *
   * @param option the option, for the message
   * @param given its value as given
   * @param index the CUDA device asked for
   */
  static void requireGpu(String option, String given, int index) {
    int gpus = gpuCount(option, given);
    if (gpus < 1) {
      throw new IllegalStateException(option + " " + given + ": the PyTorch engine sees no CUDA GPU (no driver or"
          + " device, or a CPU-only libtorch); use " + option + " cpu, or see docs/gpu.md");
    }
    if (index >= gpus) {
      throw new IllegalStateException(option + " " + given + ": the PyTorch engine sees " + gpus + " CUDA GPU"
          + (gpus == 1 ? "" : "s") + ", numbered from 0; see docs/gpu.md");
    }
  }

  private static int gpuCount(String option, String given) {
    try {
      return Engine.getEngine("PyTorch").getGpuCount();
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      throw new IllegalStateException(option + " " + given + ": the PyTorch engine could not be loaded to look for a"
          + " GPU (" + e.getMessage() + "); see docs/gpu.md", e);
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
