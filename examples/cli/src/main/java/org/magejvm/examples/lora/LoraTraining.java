package org.magejvm.examples.lora;

import org.magejvm.impl.train.TrainerBuilder;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.eval.Evaluator;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.Precision;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * Trains a LoRA adapter on a real Qwen3 checkpoint with the MAGE preset, and evaluates the policy before and after.
 *
 * <ol>
 *   <li>Loads the checkpoint directory as a policy ({@link Qwen3Checkpoint#loadPolicy}): float16 on a GPU, float32
 *       on the CPU, as the options say.
 *   <li>Attaches a new LoRA adapter, or one saved earlier in PEFT layout, and freezes the base weights
 *       ({@link FineTuning#lora}); AdamW updates only the adapter's A and B
 *       ({@link FineTuning#trainableParameters()}).
 *   <li>Evaluates with the preset's evaluation (the environment's held-out opponent and seat, evaluation sampling,
 *       reflections between episodes), trains with {@link MageTrainer} (differential meta-reward,
 *       opponent-stationary GiGPO groups, the preset's rollout with mixed seats), evaluates again on the same seeds,
 *       and saves the adapter.
 * </ol>
 *
 * <p><b>KL term.</b> The preset's KL coefficient (0.1, as the reference's Kuhn Poker and Tic-Tac-Toe runs) against
 * the base model, computed by switching the adapter off while scoring ({@link FineTuning.KlReference#BASE_WEIGHTS}
 * through {@code ReferencePolicy.of(FineTuning)}): no second copy of the weights. Everything else is the
 * {@code mage-reference} preset's: the run is a {@link TrainingConfig} ({@link #trainingConfig}) given to
 * {@link MageTrainer#builder(TrainingConfig, DjlLanguagePolicy, EnvironmentRegistry)}.
 *
 * <p>The base weights are never changed; the result is the adapter, which {@code mage play --model BASE} does not
 * pick up by itself: load it with {@link Qwen3Checkpoint#loadPolicy(Path, Qwen3Checkpoint.Options, Path)}, or merge
 * it with {@code LoraMerge.exportMerged}.
 */
public final class LoraTraining {

  /**
   * What to run.
   *
   * @param model the base checkpoint directory
   * @param adapter a PEFT adapter directory to continue from, or null for a new adapter
   * @param out where to save the trained adapter, or null to keep it only in memory
   * @param environment the environment id
   * @param options how to load the checkpoint (device, type, thinking switch)
   * @param lora the new adapter's shape (ignored when {@code adapter} is given)
   * @param iterations MAGE iterations (0: evaluate only)
   * @param tasks task groups per iteration (the preset's is 16)
   * @param groupSize meta-episodes per group (the preset's is 8)
   * @param evalMetaEpisodes meta-episodes per evaluation (the preset's is 128)
   * @param maxNewTokens the response-token limit of every turn, in training and evaluation
   * @param learningRate AdamW's learning rate
   * @param microBatchTurns turns per forward and backward pass (gradients of a 64-turn minibatch accumulate)
   * @param promptStyle verbose or compact prompts
   * @param seed base seed of the adapter's initialisation, the rollouts and the evaluations
   */
  public record Settings(
      Path model, Path adapter, Path out, String environment, Qwen3Checkpoint.Options options, LoraConfig lora,
      int iterations, int tasks, int groupSize, int evalMetaEpisodes, int maxNewTokens, double learningRate,
      int microBatchTurns, PromptStyle promptStyle, long seed) {

    /**
     * Validates.
     *
     * @param model base checkpoint
     * @param adapter adapter to continue from, or null
     * @param out output directory, or null
     * @param environment environment id
     * @param options load options
     * @param lora new adapter's shape
     * @param iterations iterations
     * @param tasks task groups
     * @param groupSize group size
     * @param evalMetaEpisodes evaluation meta-episodes
     * @param maxNewTokens response-token limit
     * @param learningRate learning rate
     * @param microBatchTurns micro-batch turns
     * @param promptStyle prompt style
     * @param seed seed
     */
    public Settings {
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(environment, "environment");
      Objects.requireNonNull(options, "options");
      Objects.requireNonNull(lora, "lora");
      Objects.requireNonNull(promptStyle, "promptStyle");
      if (iterations < 0 || tasks < 1 || groupSize < 1 || evalMetaEpisodes < 1 || maxNewTokens < 1
          || microBatchTurns < 1) {
        throw new IllegalArgumentException("iterations must be >= 0; tasks, group size, evaluation meta-episodes,"
            + " max new tokens and micro-batch turns >= 1");
      }
      if (!(learningRate > 0)) {
        throw new IllegalArgumentException("the learning rate must be > 0, got " + learningRate);
      }
    }
  }

  private static final TrainingPreset PRESET = TrainingPreset.MAGE;

  private final EnvironmentRegistry registry;
  private final PrintWriter out;
  private java.util.function.BiConsumer<TrainerBuilder, DjlLanguagePolicy> trainerCustomizer = (b, p) -> { };

  /**
   * @param registry where the environment is found
   * @param out where progress and the tables go
   */
  public LoraTraining(EnvironmentRegistry registry, PrintWriter out) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.out = Objects.requireNonNull(out, "out");
  }

  /**
   * @param c last changes to the trainer's builder before it is built (for example a remote rollout policy and a
   *     policy sync), given the trained policy
   * @return this
   */
  public LoraTraining optTrainerCustomizer(java.util.function.BiConsumer<TrainerBuilder, DjlLanguagePolicy> c) {
    this.trainerCustomizer = Objects.requireNonNull(c, "customizer");
    return this;
  }

  /**
   * Runs the evaluation, the training and the second evaluation, and saves the adapter.
   *
   * @param s what to run
   * @return {@code {"before": metrics, "iterations": [metrics...], "after": metrics}}, metrics keyed as
   *     {@code mage play --json} keys them ({@code "after"} is absent when no iteration ran)
   */
  public Map<String, Object> run(Settings s) {
    EnvironmentProvider provider = registry.require(s.environment());
    Map<String, Object> result = new LinkedHashMap<>();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(s.model(), s.options())) {
      Qwen3Model model = MageTrainer.modelOf(policy);
      TrainingConfig config = trainingConfig(provider, s);
      // the builder attaches the adapter (new, or the saved one) and owns it until the trainer is built
      try (TrainerBuilder builder = MageTrainer.builder(config, policy, registry)) {
        LoraAdapter adapter = builder.fineTuning().flatMap(FineTuning::adapter).orElseThrow();
        out.printf(Locale.ROOT, "%s on the %s (%s): %,d base parameters frozen; LoRA r=%d alpha=%s on %d projections"
                + " per layer, %,d trainable parameters%s%n", s.model(), model.device().isGpu()
                ? "GPU " + model.device().getDeviceId() : "CPU",
            model.dtype().name().toLowerCase(Locale.ROOT), model.config().parameterCount(), adapter.config().rank(),
            BigDecimal.valueOf(adapter.config().alpha()).stripTrailingZeros().toPlainString(),
            adapter.config().targetModules().size(), adapter.parameterCount(),
            s.adapter() == null ? " (new)" : " (from " + s.adapter() + ")");
        out.flush();
        Map<String, Number> before = evaluate(provider, policy, s);
        result.put("before", before);
        printEvaluation("before training", before);
        trainerCustomizer.accept(builder, policy);
        try (MageTrainer trainer = builder.build()) {
          if (s.iterations() > 0) {
            result.put("iterations", train(trainer, config, provider));
            Map<String, Number> after = evaluate(provider, policy, s);
            result.put("after", after);
            printEvaluation("after " + s.iterations() + " iteration(s)", after);
          }
          if (s.out() != null) {
            PeftAdapters.save(adapter, s.out());
            out.println("saved the adapter (PEFT layout) to " + s.out() + "; base model " + s.model());
          }
        }
      }
    }
    out.flush();
    return result;
  }

  /**
   * The run as a training config: the {@code mage-reference} preset (the reference's settings) with the LoRA adapter
   * and the sizes of these settings.
   *
   * @param provider the environment
   * @param s the settings
   * @return the config
   */
  static TrainingConfig trainingConfig(EnvironmentProvider provider, Settings s) {
    List<String> targets = new ArrayList<>();
    s.lora().targetModules().forEach(p -> targets.add(p.moduleName()));
    TrainingConfig.Builder b = TrainingPreset.MAGE_REFERENCE.config(provider).toBuilder()
        .set("rollout.tasks", s.tasks())
        .set("rollout.group_size", s.groupSize())
        .set("rollout.prompt_style", s.promptStyle())
        .set("sampling.max_new_tokens", s.maxNewTokens())
        .set("adamw.learning_rate", s.learningRate())
        .set("update.micro_batch_turns", s.microBatchTurns())
        .set("fine_tuning.mode", TrainingConfig.FineTuningSettings.LORA)
        .set("fine_tuning.lora_rank", s.lora().rank())
        .set("fine_tuning.lora_alpha", s.lora().alpha())
        .set("fine_tuning.lora_targets", targets)
        .set("fine_tuning.base_model", s.model().toAbsolutePath().normalize().toString())
        .set("validation.every", 0)
        .set("iterations", s.iterations())
        .set("seed", s.seed())
        // where the policy is loaded (auto: float16 on a GPU when there is one) and in which type
        .set("hardware.device", TrainingConfig.HardwareSettings.canonical(s.options().device()))
        .set("hardware.precision", Precision.of(s.options().dtype()));
    if (s.adapter() != null) {
      b.set("fine_tuning.adapter", s.adapter().toAbsolutePath().normalize().toString());
    }
    return b.build();
  }

  /** MAGE iterations with the config's rollout, credit, GiGPO and KL settings (see the class comment). */
  private List<Map<String, Object>> train(MageTrainer trainer, TrainingConfig c, EnvironmentProvider provider) {
    List<Map<String, Object>> history = new ArrayList<>();
    out.printf(Locale.ROOT, "training: %s preset, %d x %d meta-episodes of %d episodes per iteration, lr %s, KL"
        + " %s to the base weights (adapter off)%n", c.preset(), c.rollout().tasks(), c.rollout().groupSize(),
        c.rollout().episodes(), c.adamw().learningRate(), c.loss().klCoefficient());
    for (int i = 0; i < c.iterations(); i++) {
      Map<String, Object> m = trainer.step();
      history.add(m);
      out.printf(Locale.ROOT, "  iteration %d: success_rate[0] %.3f, success_rate[%d] %.3f, invalid %.3f, trained"
              + " turns %s of %s, optimizer steps %s, %.1f s%n", i, number(m, "success_rate[0]"),
          lastEpisode(m), number(m, "success_rate[" + lastEpisode(m) + "]"), number(m, "invalid_action_rate"),
          m.get("trained_turns"), m.get("turns"), m.get("optimizer_steps"), number(m, "timing/iteration_s"));
      out.flush();
    }
    return history;
  }

  private Map<String, Number> evaluate(EnvironmentProvider provider, DjlLanguagePolicy policy, Settings s) {
    EvaluationConfig config = PRESET.evaluation(provider)
        .optMetaEpisodes(s.evalMetaEpisodes())
        .rollout(r -> r.optPromptStyle(s.promptStyle())
            .optSampling(SamplingConfig.evaluation(s.maxNewTokens()).withSeed(Seeds.derive(s.seed(), 13, 0)))
            .optSeed(Seeds.derive(s.seed(), 14, 0)))
        .build();
    return new Evaluator(registry).evaluate(config, policy).metrics().toMap();
  }

  private void printEvaluation(String title, Map<String, Number> m) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; m.containsKey("success_rate[" + k + "]"); k++) {
      sb.append(String.format(Locale.ROOT, "  success_rate[%d] %.3f", k, m.get("success_rate[" + k + "]")
          .doubleValue()));
    }
    out.printf(Locale.ROOT, "%s (%s meta-episodes):%s  invalid_action_rate %.3f%n", title, m.get("meta_episodes"),
        sb, m.getOrDefault("invalid_action_rate", Double.NaN).doubleValue());
    out.flush();
  }

  private static int lastEpisode(Map<String, Object> m) {
    int k = 0;
    while (m.containsKey("success_rate[" + (k + 1) + "]")) {
      k++;
    }
    return k;
  }

  private static double number(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
  }
}
