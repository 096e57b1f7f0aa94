package org.magejvm.impl.train;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.Advantages;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Turn;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The MAGE training loop. One {@link #step()} is one iteration of the reference's training (spec section 11): play a
 * batch of meta-episodes with the current policy (training sampling), assign credit (differential, cumulative or
 * single-episode returns), compute GiGPO or GRPO advantages, recompute old (and reference) log-probabilities, run the
 * minibatch updates, and report metrics. Every few iterations it validates with the evaluation sampling against
 * the configured opponents.
 *
 * <p>Reproducible: iteration {@code i} draws its tasks, opponents, seats and sampling seeds from {@code (seed, i)}
 * only, so a run restored at iteration {@code i} (weights and optimizer state) continues exactly as an uninterrupted
 * one on the same CPU and thread count.
 */
public final class MageTrainer {

  /** Seed stream of the training rollouts of each iteration. */
  static final long ITERATION_STREAM = 101;
  /** Seed stream of validation rollouts (the same for every validation, so curves compare like with like). */
  static final long VALIDATION_STREAM = 102;

  /**
   * A validation set.
   *
   * @param name a label; the metrics of a set named {@code ""} are reported as {@code val/KEY}, those of any other
   *     set only per opponent ({@code val/OPPONENT/KEY}), so a held-out opponent gets {@code val/cfr/success_rate[2]}
   * @param config the evaluation rollout (its sampling should be the evaluation sampling)
   */
  public record Validation(String name, RolloutConfig config) {

    /**
     * Validates.
     *
     * @param name label
     * @param config rollout
     */
    public Validation {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(config, "config");
    }
  }

  private final EnvironmentRegistry registry;
  private final DjlLanguagePolicy policy;
  private final RolloutConfig rollout;
  private final CreditAssigner credit;
  private final PolicyOptimizer optimizer;
  private final AdamW adamw;
  private final PolicyUpdater updater;
  private final List<Validation> validations;
  private final int validateEvery;
  private final double maxFailureShare;
  private final long seed;
  private final List<TrainingListener> listeners;
  private int iteration;

  private MageTrainer(Builder b) {
    registry = b.registry;
    policy = b.policy;
    rollout = b.rollout;
    credit = new CreditAssigner(b.credit);
    optimizer = b.optimizer;
    adamw = b.adamw;
    Qwen3Model model = modelOf(policy);
    updater = new PolicyUpdater(model, b.reference, optimizer, adamw, b.updateSettings);
    validations = List.copyOf(b.validations);
    validateEvery = b.validateEvery;
    maxFailureShare = b.maxFailureShare;
    seed = b.seed;
    listeners = List.copyOf(b.listeners);
    iteration = b.startIteration;
  }

  /**
   * The Qwen3 model behind a policy built by {@code Qwen3Checkpoint.loadPolicy} or with a {@link Qwen3Generator}.
   *
   * @param policy the policy
   * @return its model
   * @throws IllegalArgumentException when the policy does not generate with a {@link Qwen3Generator}
   */
  public static Qwen3Model modelOf(DjlLanguagePolicy policy) {
    if (!(policy.generator() instanceof Qwen3Generator)) {
      throw new IllegalArgumentException("policy '" + policy.name() + "' generates with "
          + policy.generator().getClass().getName() + "; training needs a Qwen3Generator over the model to train");
    }
    return ((Qwen3Generator) policy.generator()).model();
  }

  /** @return the number of iterations done so far */
  public int iteration() {
    return iteration;
  }

  /** @return the optimizer (its state is part of a checkpoint) */
  public AdamW adamW() {
    return adamw;
  }

  /** @return the policy being trained */
  public DjlLanguagePolicy policy() {
    return policy;
  }

  /**
   * Runs iterations until {@link #iteration()} reaches {@code until}.
   *
   * @param until the iteration count to stop at
   * @return the metrics of the last iteration run (empty when none ran)
   */
  public Map<String, Object> fit(int until) {
    Map<String, Object> last = Map.of();
    while (iteration < until) {
      last = step(until);
    }
    return last;
  }

  /**
   * Runs one iteration.
   *
   * @return its metrics, as written to {@code metrics.jsonl}
   */
  public Map<String, Object> step() {
    return step(-1);
  }

  private Map<String, Object> step(int total) {
    int it = iteration;
    for (TrainingListener l : listeners) {
      l.onIterationStart(it, total);
    }
    long t0 = System.nanoTime();
    long iterationSeed = Seeds.derive(seed, ITERATION_STREAM, it);
    RolloutConfig config = reseeded(rollout, iterationSeed);
    RolloutResult batch = new MetaEpisodeRunner(registry).run(config, policy);
    int planned = batch.metaEpisodes().size() + batch.failures().size();
    double failureShare = planned == 0 ? 0 : (double) batch.failures().size() / planned;
    if (failureShare > maxFailureShare) {
      throw new TrainingException(String.format(Locale.ROOT,
          "iteration %d: %d of %d meta-episodes failed (more than the allowed share %.2f); first failure: %s", it,
          batch.failures().size(), planned, maxFailureShare, batch.failures().get(0).describe()));
    }
    long t1 = System.nanoTime();
    List<ScoredTurn> scored = credit.assign(batch.metaEpisodes());
    Advantages advantages = optimizer.advantageNormalizer().compute(scored);
    List<PolicyUpdater.Row> rows = new ArrayList<>(scored.size());
    double[] a = advantages.values();
    for (int i = 0; i < scored.size(); i++) {
      Turn t = scored.get(i).turn();
      rows.add(new PolicyUpdater.Row(t.promptTokenIds(), t.responseTokenIds(), t.logProbs(), a[i]));
    }
    long t2 = System.nanoTime();
    PolicyUpdater.Report update = updater.update(rows);
    long t3 = System.nanoTime();

    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("iteration", it);
    EvaluationMetrics.of(batch.metaEpisodes(), batch.episodes()).toMap().forEach(metrics::put);
    metrics.put("failed_meta_episodes", batch.failures().size());
    metrics.put("turns", rows.size());
    metrics.put("trained_turns", update.trainedRows());
    metrics.put("skipped_zero_advantage_turns", update.skippedZeroAdvantage());
    metrics.put("mean_abs_advantage", meanAbs(a));
    metrics.put("step_groups", advantages.stepGroupCount());
    metrics.put("mean_step_group_size", advantages.meanStepGroupSize());
    metrics.put("optimizer_steps", update.optimizerSteps());
    metrics.put("skipped_steps", update.skippedSteps());
    metrics.put("grad_norm", update.meanGradNorm());
    metrics.put("learning_rate", adamw.learningRate());
    update.diagnostics().forEach(metrics::put);
    metrics.put("timing/rollout_s", (t1 - t0) / 1e9);
    metrics.put("timing/scoring_s", (t2 - t1) / 1e9);
    metrics.put("timing/update_s", (t3 - t2) / 1e9);
    iteration = it + 1;
    if (update.skippedSteps() > 0) {
      for (TrainingListener l : listeners) {
        l.onSkippedSteps(it, update.skippedSteps());
      }
    }
    if (validateEvery > 0 && iteration % validateEvery == 0 && !validations.isEmpty()) {
      long v0 = System.nanoTime();
      Map<String, Number> val = validate(it);
      metrics.putAll(val);
      metrics.put("timing/validation_s", (System.nanoTime() - v0) / 1e9);
    }
    metrics.put("timing/iteration_s", (System.nanoTime() - t0) / 1e9);
    for (TrainingListener l : listeners) {
      l.onIterationEnd(it, metrics);
    }
    return metrics;
  }

  /**
   * Validates the current policy on every validation set, with the same seeds each time.
   *
   * @return the {@code val/} metrics
   */
  public Map<String, Number> validate() {
    return validate(iteration - 1);
  }

  private Map<String, Number> validate(int after) {
    Map<String, Number> out = new LinkedHashMap<>();
    for (int v = 0; v < validations.size(); v++) {
      Validation val = validations.get(v);
      long s = Seeds.derive(seed, VALIDATION_STREAM, v);
      RolloutConfig config = reseeded(val.config(), s);
      RolloutResult r = new MetaEpisodeRunner(registry).run(config, policy);
      Map<String, Number> m = EvaluationMetrics.of(r.metaEpisodes(), r.episodes()).toMap();
      for (Map.Entry<String, Number> e : m.entrySet()) {
        boolean perOpponent = e.getKey().contains("/");
        if (val.name().isEmpty() || perOpponent) {
          out.put("val/" + e.getKey(), e.getValue());
        }
      }
    }
    for (TrainingListener l : listeners) {
      l.onValidation(after, out);
    }
    return out;
  }

  /** The config with its task seed and its sampling seed (when it has a sampling config) taken from {@code seed}. */
  private static RolloutConfig reseeded(RolloutConfig c, long seed) {
    RolloutConfig.Builder b = c.toBuilder().optSeed(seed);
    c.sampling().ifPresent(s -> b.optSampling(s.withSeed(Seeds.derive(seed, Seeds.SAMPLING, 0))));
    return b.build();
  }

  private static double meanAbs(double[] a) {
    double s = 0;
    for (double v : a) {
      s += Math.abs(v);
    }
    return a.length == 0 ? 0 : s / a.length;
  }

  /** @return a builder */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures a {@link MageTrainer}. */
  public static final class Builder {
    private EnvironmentRegistry registry;
    private DjlLanguagePolicy policy;
    private RolloutConfig rollout;
    private CreditConfig credit;
    private PolicyOptimizer optimizer;
    private AdamW adamw;
    private Qwen3Model reference;
    private PolicyUpdater.Settings updateSettings = PolicyUpdater.Settings.defaults();
    private final List<Validation> validations = new ArrayList<>();
    private int validateEvery = 5;
    private double maxFailureShare = 0.25;
    private long seed;
    private final List<TrainingListener> listeners = new ArrayList<>();
    private int startIteration;

    private Builder() {}

    /**
     * @param v where environments are found
     * @return this builder
     */
    public Builder setRegistry(EnvironmentRegistry v) {
      registry = v;
      return this;
    }

    /**
     * @param v the policy to train (a Qwen3 policy whose model the optimizer's parameters belong to)
     * @return this builder
     */
    public Builder setPolicy(DjlLanguagePolicy v) {
      policy = v;
      return this;
    }

    /**
     * @param v the training rollout (its seed and sampling seed are replaced per iteration)
     * @return this builder
     */
    public Builder setRollout(RolloutConfig v) {
      rollout = v;
      return this;
    }

    /**
     * @param v how rewards become returns and scores
     * @return this builder
     */
    public Builder setCredit(CreditConfig v) {
      credit = v;
      return this;
    }

    /**
     * @param v the policy optimizer (advantages and loss), found by id through ServiceLoader
     * @return this builder
     */
    public Builder setOptimizer(PolicyOptimizer v) {
      optimizer = v;
      return this;
    }

    /**
     * @param v AdamW over the trainable parameters of the policy's model
     * @return this builder
     */
    public Builder setAdamW(AdamW v) {
      adamw = v;
      return this;
    }

    /**
     * @param v the frozen reference model for the KL term (required when the optimizer's KL coefficient is not 0)
     * @return this builder
     */
    public Builder optReference(Qwen3Model v) {
      reference = v;
      return this;
    }

    /**
     * @param v minibatch, micro-batch, epochs, old log-prob source, zero-advantage skipping
     * @return this builder
     */
    public Builder optUpdateSettings(PolicyUpdater.Settings v) {
      updateSettings = Objects.requireNonNull(v, "updateSettings");
      return this;
    }

    /**
     * @param v a validation set
     * @return this builder
     */
    public Builder addValidation(Validation v) {
      validations.add(Objects.requireNonNull(v, "validation"));
      return this;
    }

    /**
     * @param v validate after every {@code v}-th iteration (0: never; default 5)
     * @return this builder
     */
    public Builder optValidateEvery(int v) {
      validateEvery = v;
      return this;
    }

    /**
     * @param v the largest share of an iteration's meta-episodes that may fail before the run stops (default 0.25)
     * @return this builder
     */
    public Builder optMaxFailureShare(double v) {
      maxFailureShare = v;
      return this;
    }

    /**
     * @param v the base seed of every iteration's rollouts and of validation
     * @return this builder
     */
    public Builder optSeed(long v) {
      seed = v;
      return this;
    }

    /**
     * @param v a listener
     * @return this builder
     */
    public Builder addListener(TrainingListener v) {
      listeners.add(Objects.requireNonNull(v, "listener"));
      return this;
    }

    /**
     * @param v the iteration to continue from (a resumed run)
     * @return this builder
     */
    public Builder optStartIteration(int v) {
      startIteration = v;
      return this;
    }

    /** @return the trainer */
    public MageTrainer build() {
      Objects.requireNonNull(registry, "registry");
      Objects.requireNonNull(policy, "policy");
      Objects.requireNonNull(rollout, "rollout");
      Objects.requireNonNull(credit, "credit");
      Objects.requireNonNull(optimizer, "optimizer");
      Objects.requireNonNull(adamw, "adamw");
      if (optimizer.config().klCoefficient() > 0 && reference == null) {
        throw new IllegalArgumentException("the optimizer's KL coefficient is " + optimizer.config().klCoefficient()
            + " but no reference model was given; pass optReference(...) or set the KL coefficient to 0");
      }
      if (validateEvery < 0 || startIteration < 0) {
        throw new IllegalArgumentException("validateEvery and startIteration must be >= 0");
      }
      if (!(maxFailureShare >= 0 && maxFailureShare <= 1)) {
        throw new IllegalArgumentException("maxFailureShare must be in [0, 1], got " + maxFailureShare);
      }
      registry.require(rollout.environmentId());
      return new MageTrainer(this);
    }
  }
}
