package org.magejvm.impl.llm.finetune;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.magejvm.impl.llm.model.Projection;

/**
 * The hyper-parameters of a LoRA adapter, named after the fields of PEFT's {@code LoraConfig} that they are written
 * to ({@code adapter_config.json}).
 *
 * <p>Each targeted projection {@code y = x W^T} of every decoder layer becomes
 * {@code y = x W^T + scaling * dropout(x) A^T B^T} with {@code A} of shape (r, in) and {@code B} of shape (out, r);
 * {@code scaling} is {@code alpha / r}, or {@code alpha / sqrt(r)} with rank-stabilised LoRA.
 *
 * @param rank the rank r ({@code r}), at least 1
 * @param alpha the scale numerator ({@code lora_alpha}), finite and positive
 * @param dropout the dropout probability on the adapter's input while training ({@code lora_dropout}), in [0, 1)
 * @param targetModules the adapted projections of every layer ({@code target_modules}), not empty, unmodifiable
 * @param useRslora whether the scale is {@code alpha / sqrt(r)} ({@code use_rslora})
 * @param initLoraWeights PEFT's {@code init_lora_weights}: true (the default) starts B at zero so that a new adapter
 *     changes nothing; false draws B like A, which only tests want
 * @param baseModelNameOrPath the base checkpoint the adapter belongs to ({@code base_model_name_or_path}), if known
 */
public record LoraConfig(
    int rank,
    double alpha,
    double dropout,
    Set<Projection> targetModules,
    boolean useRslora,
    boolean initLoraWeights,
    Optional<String> baseModelNameOrPath) {

  /** PEFT's default {@code lora_alpha}. */
  public static final double DEFAULT_ALPHA = 8;

  /**
   * Validates and copies.
   *
   * @param rank rank
   * @param alpha alpha
   * @param dropout dropout probability
   * @param targetModules adapted projections
   * @param useRslora rank-stabilised scaling
   * @param initLoraWeights zero-initialised B
   * @param baseModelNameOrPath base checkpoint
   * @throws IllegalArgumentException naming the PEFT field that is out of range
   */
  public LoraConfig {
    Objects.requireNonNull(targetModules, "targetModules");
    Objects.requireNonNull(baseModelNameOrPath, "baseModelNameOrPath");
    if (rank < 1) {
      throw new IllegalArgumentException("r (the LoRA rank) must be >= 1, got " + rank);
    }
    if (!(alpha > 0) || Double.isInfinite(alpha)) {
      throw new IllegalArgumentException("lora_alpha must be finite and > 0, got " + alpha);
    }
    if (!(dropout >= 0 && dropout < 1)) {
      throw new IllegalArgumentException("lora_dropout must be in [0, 1), got " + dropout);
    }
    if (targetModules.isEmpty()) {
      throw new IllegalArgumentException("target_modules must name at least one of " + Projection.moduleNames());
    }
    targetModules = Collections.unmodifiableSet(EnumSet.copyOf(targetModules));
  }

  /** @return the factor of the adapter's product: {@code alpha / r}, or {@code alpha / sqrt(r)} with rsLoRA */
  public double scaling() {
    return useRslora ? alpha / Math.sqrt(rank) : alpha / rank;
  }

  /**
   * @param projection a projection
   * @return whether this config adapts it
   */
  public boolean targets(Projection projection) {
    return targetModules.contains(projection);
  }

  /**
   * @param name the base checkpoint (a Hugging Face model id or a path), or null for unknown
   * @return a copy naming that base model
   */
  public LoraConfig withBaseModelNameOrPath(String name) {
    return new LoraConfig(rank, alpha, dropout, targetModules, useRslora, initLoraWeights,
        Optional.ofNullable(name));
  }

  /**
   * A builder with PEFT's defaults: alpha 8, no dropout, targets {@code q_proj} and {@code v_proj} (PEFT's default
   * for Qwen models), plain scaling, B initialised to zero, no base model named. The rank is required.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link LoraConfig}; {@link #setRank} is required. */
  public static final class Builder {
    private Integer rank;
    private double alpha = DEFAULT_ALPHA;
    private double dropout;
    private Set<Projection> targets = EnumSet.of(Projection.Q_PROJ, Projection.V_PROJ);
    private boolean useRslora;
    private boolean initLoraWeights = true;
    private String baseModel;

    private Builder() {}

    /**
     * @param r the rank (required), at least 1
     * @return this builder
     */
    public Builder setRank(int r) {
      this.rank = r;
      return this;
    }

    /**
     * @param a {@code lora_alpha} (default {@value LoraConfig#DEFAULT_ALPHA})
     * @return this builder
     */
    public Builder optAlpha(double a) {
      this.alpha = a;
      return this;
    }

    /**
     * @param p the dropout probability while training (default 0)
     * @return this builder
     */
    public Builder optDropout(double p) {
      this.dropout = p;
      return this;
    }

    /**
     * @param modules the adapted projections (default {@code q_proj}, {@code v_proj})
     * @return this builder
     */
    public Builder optTargetModules(Projection... modules) {
      return optTargetModules(Arrays.asList(modules));
    }

    /**
     * @param modules the adapted projections (default {@code q_proj}, {@code v_proj})
     * @return this builder
     */
    public Builder optTargetModules(Collection<Projection> modules) {
      Objects.requireNonNull(modules, "modules");
      this.targets = modules.isEmpty() ? EnumSet.noneOf(Projection.class) : EnumSet.copyOf(modules);
      return this;
    }

    /**
     * Targets all seven projections, as PEFT's {@code "all-linear"} does for a causal language model.
     *
     * @return this builder
     */
    public Builder optAllLinear() {
      this.targets = EnumSet.allOf(Projection.class);
      return this;
    }

    /**
     * @param on whether the scale is {@code alpha / sqrt(r)} (default false)
     * @return this builder
     */
    public Builder optUseRslora(boolean on) {
      this.useRslora = on;
      return this;
    }

    /**
     * @param zeroB whether B starts at zero (default true; false draws it like A, for tests)
     * @return this builder
     */
    public Builder optInitLoraWeights(boolean zeroB) {
      this.initLoraWeights = zeroB;
      return this;
    }

    /**
     * @param name the base checkpoint written as {@code base_model_name_or_path} (default none)
     * @return this builder
     */
    public Builder optBaseModelNameOrPath(String name) {
      this.baseModel = name;
      return this;
    }

    /**
     * @return the config
     * @throws IllegalStateException when no rank was set
     * @throws IllegalArgumentException when a value is out of range
     */
    public LoraConfig build() {
      if (rank == null) {
        throw new IllegalStateException("setRank(...) is required");
      }
      return new LoraConfig(rank, alpha, dropout, targets, useRslora, initLoraWeights,
          Optional.ofNullable(baseModel));
    }
  }
}
