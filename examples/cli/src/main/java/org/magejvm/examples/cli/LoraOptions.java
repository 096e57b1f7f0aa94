package org.magejvm.examples.cli;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.model.Projection;
import picocli.CommandLine.Option;

/** The LoRA adapter's shape (picocli mixin of {@code sft}, {@code lora} and {@code memory}). */
final class LoraOptions {

  /** What {@code --lora-targets} means when it is not given. */
  static final String DEFAULT_TARGETS = "all-linear";

  @Option(names = "--lora-rank", paramLabel = "R",
      description = "LoRA rank r (sft: trains a LoRA adapter instead of every weight; lora and memory: default 16,"
          + " and memory takes 0 for full fine-tuning).")
  Integer rank;

  @Option(names = "--lora-alpha", paramLabel = "A",
      description = "LoRA alpha; the adapter's output is scaled by alpha / r (default: 2 x rank).")
  Double alpha;

  @Option(names = "--lora-targets", paramLabel = "LIST", defaultValue = DEFAULT_TARGETS,
      description = "Adapted projections of every layer: all-linear (all seven) or a comma-separated list of"
          + " q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj (default: ${DEFAULT-VALUE}).")
  String targets;

  /**
   * @param defaultRank the rank when {@code --lora-rank} is not given
   * @return the rank, checked
   * @throws IllegalArgumentException naming {@code --lora-rank} when it is below 1
   */
  int rank(int defaultRank) {
    int r = rank == null ? defaultRank : rank;
    if (r < 1) {
      throw new IllegalArgumentException("--lora-rank must be >= 1, got " + r);
    }
    return r;
  }

  /**
   * @return the adapted projections
   * @throws IllegalArgumentException naming {@code --lora-targets} and the known names when one is unknown
   */
  Set<Projection> targets() {
    return parseTargets(targets);
  }

  /**
   * @param text {@code all-linear} or comma-separated module names
   * @return the projections
   * @throws IllegalArgumentException naming {@code --lora-targets} and the known names when one is unknown
   */
  static Set<Projection> parseTargets(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("all-linear") || t.equals("all")) {
      return EnumSet.allOf(Projection.class);
    }
    List<Projection> out = new ArrayList<>();
    for (String name : t.split(",")) {
      if (name.isBlank()) {
        continue;
      }
      out.add(Projection.fromModuleName(name.trim()).orElseThrow(() -> new IllegalArgumentException(
          "--lora-targets: unknown module '" + name.trim() + "'; expected all-linear or some of "
              + Projection.moduleNames())));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("--lora-targets names no module; expected all-linear or some of "
          + Projection.moduleNames());
    }
    return EnumSet.copyOf(out);
  }

  /**
   * The adapter's hyper-parameters: no dropout, B initialised to zero (a new adapter changes nothing).
   *
   * @param defaultRank the rank when {@code --lora-rank} is not given
   * @param baseModel the base checkpoint, written as {@code base_model_name_or_path}
   * @return the config
   * @throws IllegalArgumentException naming the option that is out of range
   */
  LoraConfig toConfig(int defaultRank, String baseModel) {
    int r = rank(defaultRank);
    double a = alpha == null ? 2.0 * r : alpha;
    if (!(a > 0) || Double.isInfinite(a)) {
      throw new IllegalArgumentException("--lora-alpha must be finite and > 0, got " + a);
    }
    return LoraConfig.builder().setRank(r).optAlpha(a).optTargetModules(targets())
        .optBaseModelNameOrPath(baseModel).build();
  }
}
