package org.magejvm.impl.llm.model;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The seven linear projections of a decoder layer, named as in Hugging Face checkpoints and PEFT's
 * {@code target_modules}: four in the attention block and three in the SwiGLU MLP.
 */
public enum Projection {
  /** Query projection, hidden size to heads x head width. */
  Q_PROJ("self_attn", "q_proj"),
  /** Key projection, hidden size to key/value heads x head width. */
  K_PROJ("self_attn", "k_proj"),
  /** Value projection, hidden size to key/value heads x head width. */
  V_PROJ("self_attn", "v_proj"),
  /** Attention output projection, heads x head width to hidden size. */
  O_PROJ("self_attn", "o_proj"),
  /** SwiGLU gate, hidden size to intermediate size. */
  GATE_PROJ("mlp", "gate_proj"),
  /** SwiGLU up projection, hidden size to intermediate size. */
  UP_PROJ("mlp", "up_proj"),
  /** SwiGLU down projection, intermediate size to hidden size. */
  DOWN_PROJ("mlp", "down_proj");

  private final String block;
  private final String moduleName;

  Projection(String block, String moduleName) {
    this.block = block;
    this.moduleName = moduleName;
  }

  /** @return the module's own name, for example {@code q_proj} (what PEFT's {@code target_modules} lists) */
  public String moduleName() {
    return moduleName;
  }

  /** @return the module's path inside a decoder layer, for example {@code self_attn.q_proj} */
  public String path() {
    return block + "." + moduleName;
  }

  /**
   * @param layer a decoder layer index
   * @return the module's full name, for example {@code model.layers.0.self_attn.q_proj}
   */
  public String modulePath(int layer) {
    return "model.layers." + layer + "." + path();
  }

  /**
   * @param layer a decoder layer index
   * @return the Hugging Face name of the projection's weight, for example
   *     {@code model.layers.0.self_attn.q_proj.weight}
   */
  public String weightName(int layer) {
    return modulePath(layer) + ".weight";
  }

  /**
   * @param config the architecture
   * @return the width of the projection's input (the second dimension of its weight)
   */
  public long inFeatures(Qwen3Config config) {
    switch (this) {
      case O_PROJ:
        return (long) config.numAttentionHeads() * config.headDim();
      case DOWN_PROJ:
        return config.intermediateSize();
      default:
        return config.hiddenSize();
    }
  }

  /**
   * @param config the architecture
   * @return the width of the projection's output (the first dimension of its weight)
   */
  public long outFeatures(Qwen3Config config) {
    switch (this) {
      case Q_PROJ:
        return (long) config.numAttentionHeads() * config.headDim();
      case K_PROJ:
      case V_PROJ:
        return (long) config.numKeyValueHeads() * config.headDim();
      case GATE_PROJ:
      case UP_PROJ:
        return config.intermediateSize();
      default:
        return config.hiddenSize();
    }
  }

  /**
   * @param name a module name such as {@code q_proj}
   * @return the projection of that name, or empty
   */
  public static Optional<Projection> fromModuleName(String name) {
    for (Projection p : values()) {
      if (p.moduleName.equals(name)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** @return every module name, comma-separated, for messages */
  public static String moduleNames() {
    return Arrays.stream(values()).map(Projection::moduleName).collect(Collectors.joining(", "));
  }
}
