package org.magejvm.examples.quickstart;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.credit.EpisodeScore;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.text.ChatMessage;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.AdamW;
import org.magejvm.impl.train.AdamWConfig;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.ModelSaver;
import org.magejvm.impl.train.PolicyUpdater;
import org.magejvm.impl.train.SupervisedExample;
import org.magejvm.impl.train.SupervisedResult;
import org.magejvm.impl.train.SupervisedTrainer;
import org.magejvm.impl.train.TrainingListener;
import org.magejvm.impl.train.Transcript;
import org.magejvm.impl.train.TranscriptWriter;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * The shared recipe of the quick start and the method comparisons: a tiny Qwen3 model, a warm start that teaches the
 * action format but not adaptation, training with a method preset, and evaluation per opponent, for one of the
 * {@link Game}s (Kuhn Poker for the quick start; Kuhn Poker or Tic-Tac-Toe for the comparisons).
 *
 * <p>Settings that differ from the reference, and why (also in docs/results.md): the prompt holds the earlier
 * attempts' moves and outcomes ({@link ContextMode#HISTORY_ONLY}) instead of written reflections, because a model of
 * this size writes no useful reflection; compact prompts; a full-batch update per iteration and a higher learning
 * rate, because the batch is small and the model tiny; GiGPO step groups keyed by the whole prompt
 * ({@link AnchorScope#PROMPT}) and an invalid-action penalty of 25 instead of the preset's; and GiGPO's episode-level
 * advantage scored with the whole meta-episode ({@link EpisodeScore#META_EPISODE}) instead of each turn's attempt (see
 * the constants).
 */
public final class GameRecipe {

  /**
   * What the recipe needs to know about a game.
   *
   * @param environment the environment id
   * @param pool the pool opponents evaluated one set each (the training population is the environment's own)
   * @param heldOut the held-out opponent, never played in training
   * @param heldOutSeat the agent's seat against the held-out opponent
   * @param poolSeating the agent's seats against the pool in evaluation
   * @param fixedPolicy the environment's scripted policy that plays the warm start's fixed line (it must not read
   *     earlier attempts)
   * @param referencePolicy the scripted policy whose rates are printed beside the model's
   * @param referenceLabel what that policy's rates mean
   * @param cacheSuffix appended to the names of the cached tiny model and warm start ("" for Kuhn Poker, which
   *     keeps the names of earlier versions)
   * @param draws whether the game has draws (their rates are then reported beside the success rates)
   */
  public record Game(
      String environment, List<String> pool, String heldOut, Seat heldOutSeat, Seating poolSeating,
      String fixedPolicy, String referencePolicy, String referenceLabel, String cacheSuffix, boolean draws) {

    /**
     * Validates and copies.
     *
     * @param environment environment id
     * @param pool pool sets
     * @param heldOut held-out opponent
     * @param heldOutSeat seat against it
     * @param poolSeating seats against the pool
     * @param fixedPolicy the fixed line
     * @param referencePolicy the reference player
     * @param referenceLabel its label
     * @param cacheSuffix cache name suffix
     * @param draws whether the game has draws
     */
    public Game {
      Objects.requireNonNull(environment, "environment");
      pool = List.copyOf(pool);
      Objects.requireNonNull(heldOut, "heldOut");
      Objects.requireNonNull(heldOutSeat, "heldOutSeat");
      Objects.requireNonNull(poolSeating, "poolSeating");
      Objects.requireNonNull(fixedPolicy, "fixedPolicy");
      Objects.requireNonNull(referencePolicy, "referencePolicy");
      Objects.requireNonNull(referenceLabel, "referenceLabel");
      Objects.requireNonNull(cacheSuffix, "cacheSuffix");
    }

    /**
     * @param sets metrics per evaluation set
     * @param key the metric
     * @return the metric's mean over the pool's sets
     */
    public double poolAverage(Map<String, Map<String, Number>> sets, String key) {
      double sum = 0;
      for (String opp : pool) {
        sum += sets.get(opp).get(key).doubleValue();
      }
      return sum / pool.size();
    }

    /** @return the evaluation sets: the pool opponents, then the held-out one */
    public List<String> evaluationSets() {
      List<String> sets = new ArrayList<>(pool);
      sets.add(heldOut);
      return sets;
    }
  }

  /**
   * Kuhn Poker: the pool {conservative, aggressive, intermediate} with mixed seats, the held-out {@code cfr} with the
   * agent second as in the reference's validation; the warm start's fixed line is {@code fixed-line}; the
   * hand-written {@code adaptive} player on the same deals gives the winnable-deal ceiling (it wins a meta-episode
   * exactly when its deal is winnable). The reward is the reference's (5 per chip). With {@code reward=win-loss} the
   * model learns to bet in every state: always betting wins every winnable deal against any opponent, so it reaches the
   * ceiling of every set without exploiting anyone (docs/results.md).
   */
  public static final Game KUHN = new Game("mage-kuhn-poker", List.of("conservative", "aggressive", "intermediate"),
      "cfr", Seat.SECOND, Seating.mixed(0.5), "fixed-line", "adaptive", "winnable-deal ceiling", "", false);

  /**
   * Tic-Tac-Toe: one evaluation set per pool opponent (MCTS with 100 simulations, the six preferred-position players,
   * random), the held-out MCTS with 1,000 simulations; the agent moves first everywhere, as in the reference. The
   * warm start's fixed line is the perfect {@code minimax} player (it never reads earlier attempts, so it cannot
   * teach exploiting an opponent); minimax's own rates are printed beside the model's as a reference (they are not
   * a ceiling: an exploiting player can win more often against the weak opponents).
   */
  public static final Game TIC_TAC_TOE = new Game("mage-tictactoe",
      List.of("mcts-100", "preferred-center-first", "preferred-corners-first", "preferred-edges-first",
          "preferred-main-diagonal", "preferred-anti-diagonal", "preferred-reverse", "random"),
      "mcts-1000", Seat.FIRST, Seating.of(Seat.FIRST), "minimax", "minimax", "minimax (not a ceiling)",
      "-tictactoe", true);

  /** Response tokens per turn (an action answer is a handful of tokens). */
  public static final int MAX_NEW_TOKENS = 16;
  /**
   * The default share of warm-start turns (after the first attempt) that repeat the previous attempt's action at the
   * same point of the betting, whatever its outcome: this teaches the model to read the earlier attempts in its
   * prompt, but not to adapt (a repeating player never changes its line because it lost).
   */
  public static final double DEFAULT_REPEAT_SHARE = 0.5;
  /**
   * The default invalid-action penalty of the quick start. The Kuhn preset's 2.0 (the reference's) is smaller than
   * what an unreadable answer can gain under the differential return: an attempt cut short by invalid answers scores
   * 0, so after a lost attempt (-5 or -10) it earns +5 to +10 minus 2, and a small model learns to write nonsense
   * (measured: invalid-action rate 0.36 after 10 iterations). 25 exceeds the largest possible gain (+20, from -10 to
   * +10).
   */
  public static final double DEFAULT_INVALID_PENALTY = 25.0;
  /**
   * The default passes of the supervised warm start over its examples. With one pass over 3,200 turns (100 steps at
   * learning rate 3e-3) the tiny model learned only how often to bet: P(BET) was the same in all twelve information
   * states in every seed we probed ({@link KuhnPolicyProbe}; spread 0.001). With four passes at 3e-3 seed 1 learned to
   * bet with the King and pass with the Jack as the scripted players do (spread 0.52) but seed 2 did not; four passes
   * at 1e-3 ({@link #DEFAULT_WARM_START_LEARNING_RATE}) learned it in both (docs/results.md).
   */
  public static final int DEFAULT_WARM_START_EPOCHS = 4;
  /** The default learning rate of the supervised warm start (see {@link #DEFAULT_WARM_START_EPOCHS}). */
  public static final double DEFAULT_WARM_START_LEARNING_RATE = 1e-3;
  /**
   * The default limit of the mean per-token KL divergence one update may cause on its batch's turns before it is redone
   * with half the learning rate ({@link PolicyUpdater.Settings#maxUpdateKl()}): off. It caught the update that broke
   * the seed-1 quick start's answer format (0.743 on its batch) but not LaMer's (0.0011 on its batch, which held none
   * of the states it broke), and even a quarter of the first broke the format (docs/results.md); the anchor check
   * ({@link #DEFAULT_MAX_ANCHOR_DROP}) catches both.
   */
  public static final double DEFAULT_MAX_UPDATE_KL = 0;
  /**
   * The default limit of the mean per-token drop of the {@link #ANCHOR_TURNS} anchor answers' log-probability one update
   * may cause ({@link PolicyUpdater.Settings#maxAnchorDrop()}). Measured on seed 1 (docs/results.md): the updates that
   * broke the answer format lowered the anchors by 1.078 (MAGE) and 0.106 (LaMer) per token, every other update by at
   * most 0.005.
   */
  public static final double DEFAULT_MAX_ANCHOR_DROP = 0.01;
  /**
   * The default episode score of GiGPO's episode-level advantage: the whole meta-episode's outcome ({@link
   * EpisodeScore#META_EPISODE}), not the reference's per-attempt score. Near the objective's optimum the reference's
   * score favours repeating a lost line where the optimum switches, and training from the optimum with it drifts away
   * (pool success rate 0.625 to 0.431 in 40 iterations, against 0.618 with this one; docs/results.md).
   */
  public static final EpisodeScore DEFAULT_EPISODE_SCORE = EpisodeScore.META_EPISODE;
  /**
   * How many turns of the warm start's scripted players (a fresh sample, not the warm start's own examples) serve as
   * anchors: answers in the format the model must keep.
   */
  public static final int ANCHOR_TURNS = 256;
  /** The default GiGPO anchors: the whole prompt, so that turns after different earlier attempts are not pooled. */
  public static final AnchorScope DEFAULT_ANCHORS = AnchorScope.PROMPT;

  /**
   * Settings of a recipe run. Build them with {@link #builder(Path)} (the method comparison's defaults) and copy them
   * with {@link #toBuilder()}; the canonical constructor validates every component.
   *
   * @param workDir where the tiny model and the warm start are cached
   * @param warmStartExamples supervised examples (turns) of the warm start, one epoch
   * @param iterations training iterations
   * @param tasks task groups per iteration
   * @param evalMetaEpisodes meta-episodes per evaluation set
   * @param learningRate the RL learning rate
   * @param klCoefficient the KL weight to the warm start (a frozen copy); 0 turns it off
   * @param miniBatchTurns turns per optimizer step
   * @param epochs passes over each batch (PPO epochs)
   * @param seed the model/warm-start seed and the base seed of training and evaluation
   * @param repeatShare the share of warm-start turns that repeat the previous attempt's action (see
   *     {@link #DEFAULT_REPEAT_SHARE}); 0 gives a warm start that never reads the earlier attempts
   * @param anchors the GiGPO step-group anchors
   * @param invalidPenalty the invalid-action penalty of credit assignment
   * @param evalTemperature the evaluation's temperature with neither top-p nor top-k (0: greedy), or NaN for the
   *     reference's evaluation sampling (temperature 0.7, top-p 0.8, top-k 20), which turns any action above 0.8
   *     probability into a certainty
   * @param stepTimeout the limit of one environment call in every rollout of the recipe ({@link
   *     RolloutConfig#stepTimeout()}), empty for none
   * @param environmentOptions the game environment's options for every rollout of the recipe (warm start, training
   *     and evaluation), empty for its defaults
   * @param warmStartEpochs passes of the supervised warm start over its examples (see {@link
   *     #DEFAULT_WARM_START_EPOCHS})
   * @param warmStartLearningRate the supervised warm start's AdamW learning rate (see {@link
   *     #DEFAULT_WARM_START_LEARNING_RATE})
   * @param maxUpdateKl the largest mean per-token KL divergence one update may cause on its batch before it is
   *     redone with half the learning rate ({@link PolicyUpdater.Settings#maxUpdateKl()}; see {@link
   *     #DEFAULT_MAX_UPDATE_KL}), 0 for no check
   * @param maxAnchorDrop the largest mean per-token drop of the log-probability of {@link #ANCHOR_TURNS} scripted
   *     answers one update may cause ({@link PolicyUpdater.Settings#maxAnchorDrop()}; see {@link
   *     #DEFAULT_MAX_ANCHOR_DROP}), 0 for no check
   * @param episodeScore the episode score of GiGPO's episode-level advantage (see {@link #DEFAULT_EPISODE_SCORE})
   * @param trajGamma the discount between the attempts of a meta-episode in credit assignment, in [0, 1], or NaN for
   *     the environment's reference value (Kuhn Poker and Tic-Tac-Toe: 0.6); 1 makes MAGE's differential return of
   *     an attempt's turn the final attempt's reward, the paper's objective
   */
  public record Settings(
      Path workDir, int warmStartExamples, int iterations, int tasks, int evalMetaEpisodes, double learningRate,
      double klCoefficient, int miniBatchTurns, int epochs, long seed, double repeatShare, AnchorScope anchors,
      double invalidPenalty, double evalTemperature, Optional<Duration> stepTimeout,
      Map<String, String> environmentOptions, int warmStartEpochs, double warmStartLearningRate,
      double maxUpdateKl, double maxAnchorDrop, EpisodeScore episodeScore, double trajGamma) {

    /**
     * Validates.
     *
     * @param workDir work directory
     * @param warmStartExamples warm-start examples
     * @param iterations iterations
     * @param tasks tasks
     * @param evalMetaEpisodes evaluation size
     * @param learningRate learning rate
     * @param klCoefficient KL weight
     * @param miniBatchTurns minibatch
     * @param epochs epochs
     * @param seed seed
     * @param repeatShare warm-start repeat share
     * @param anchors anchors
     * @param invalidPenalty invalid-action penalty
     * @param evalTemperature evaluation temperature, NaN for the reference's evaluation sampling
     * @param stepTimeout environment call limit
     * @param environmentOptions environment options
     * @param warmStartEpochs warm-start epochs
     * @param warmStartLearningRate warm-start learning rate
     * @param maxUpdateKl the update's KL limit, 0 for none
     * @param maxAnchorDrop the anchors' log-probability drop limit, 0 for none
     * @param episodeScore the episode score of GiGPO's episode-level advantage
     * @param trajGamma the discount between attempts, NaN for the environment's
     */
    public Settings {
      Objects.requireNonNull(workDir, "workDir");
      Objects.requireNonNull(episodeScore, "episodeScore");
      Objects.requireNonNull(anchors, "anchors");
      Objects.requireNonNull(stepTimeout, "stepTimeout");
      environmentOptions = Map.copyOf(environmentOptions);
      if (warmStartExamples < 1 || iterations < 0 || tasks < 1 || evalMetaEpisodes < 1 || miniBatchTurns < 1
          || epochs < 1) {
        throw new IllegalArgumentException("warm-start examples, tasks, evaluation size, minibatch and epochs must be"
            + " >= 1 and iterations >= 0");
      }
      if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
        throw new IllegalArgumentException("the learning rate must be finite and > 0, got " + learningRate);
      }
      if (!(klCoefficient >= 0) || Double.isInfinite(klCoefficient)) {
        throw new IllegalArgumentException("the KL weight must be finite and >= 0, got " + klCoefficient);
      }
      if (!(maxAnchorDrop >= 0) || Double.isInfinite(maxAnchorDrop)) {
        throw new IllegalArgumentException("the anchors' drop limit must be finite and >= 0 (0: no check), got "
            + maxAnchorDrop);
      }
      if (!(maxUpdateKl >= 0) || Double.isInfinite(maxUpdateKl)) {
        throw new IllegalArgumentException("the update's KL limit must be finite and >= 0 (0: no check), got "
            + maxUpdateKl);
      }
      if (warmStartEpochs < 1) {
        throw new IllegalArgumentException("the warm start needs at least 1 epoch, got " + warmStartEpochs);
      }
      if (!(warmStartLearningRate > 0) || Double.isInfinite(warmStartLearningRate)) {
        throw new IllegalArgumentException("the warm start's learning rate must be finite and > 0, got "
            + warmStartLearningRate);
      }
      if (!(repeatShare >= 0 && repeatShare <= 1)) {
        throw new IllegalArgumentException("the warm start's repeat share must be in [0, 1], got " + repeatShare);
      }
      if (!(invalidPenalty >= 0) || Double.isInfinite(invalidPenalty)) {
        throw new IllegalArgumentException("the invalid-action penalty must be finite and >= 0, got "
            + invalidPenalty);
      }
      if (!Double.isNaN(evalTemperature) && !(evalTemperature >= 0 && evalTemperature <= 10)) {
        throw new IllegalArgumentException("the evaluation temperature must be in [0, 10] (0: greedy), got "
            + evalTemperature);
      }
      if (!Double.isNaN(trajGamma) && !(trajGamma >= 0 && trajGamma <= 1)) {
        throw new IllegalArgumentException("the discount between attempts must be in [0, 1] (NaN: the environment's),"
            + " got " + trajGamma);
      }
    }

    /**
     * A builder with the defaults of {@code mage experiment}: 3,200 warm-start examples, 40 iterations of 4 task
     * groups, 48 evaluation meta-episodes, learning rate 5e-4, KL weight 1.0, minibatches of 512 turns, 1 epoch, seed 1,
     * the environment's attempt discount, and the {@code DEFAULT_*} constants of {@link GameRecipe} for the rest ({@code
     * mage quickstart} trains with 120 iterations of 8 groups and attempt discount 1).
     *
     * @param workDir where the tiny model and the warm start are cached
     * @return the builder
     */
    public static Builder builder(Path workDir) {
      return new Builder(workDir);
    }

    /** @return a builder preset with these settings */
    public Builder toBuilder() {
      Builder b = new Builder(workDir);
      b.warmStartExamples = warmStartExamples;
      b.iterations = iterations;
      b.tasks = tasks;
      b.evalMetaEpisodes = evalMetaEpisodes;
      b.learningRate = learningRate;
      b.klCoefficient = klCoefficient;
      b.miniBatchTurns = miniBatchTurns;
      b.epochs = epochs;
      b.seed = seed;
      b.repeatShare = repeatShare;
      b.anchors = anchors;
      b.invalidPenalty = invalidPenalty;
      b.evalTemperature = evalTemperature;
      b.stepTimeout = stepTimeout;
      b.environmentOptions = environmentOptions;
      b.warmStartEpochs = warmStartEpochs;
      b.warmStartLearningRate = warmStartLearningRate;
      b.maxUpdateKl = maxUpdateKl;
      b.maxAnchorDrop = maxAnchorDrop;
      b.episodeScore = episodeScore;
      b.trajGamma = trajGamma;
      return b;
    }

    /** @return the sampling of evaluations (without its seed) */
    public SamplingConfig evaluationSampling() {
      if (Double.isNaN(evalTemperature)) {
        return SamplingConfig.evaluation(MAX_NEW_TOKENS);
      }
      return SamplingConfig.builder().optTemperature(evalTemperature).optMaxNewTokens(MAX_NEW_TOKENS).build();
    }

    /** Builds {@link Settings}; every value has a default, and {@link #build()} validates them all. */
    public static final class Builder {
      private final Path workDir;
      private int warmStartExamples = 3200;
      private int iterations = 40;
      private int tasks = 4;
      private int evalMetaEpisodes = 48;
      private double learningRate = 5e-4;
      private double klCoefficient = 1.0;
      private int miniBatchTurns = 512;
      private int epochs = 1;
      private long seed = 1;
      private double repeatShare = DEFAULT_REPEAT_SHARE;
      private AnchorScope anchors = DEFAULT_ANCHORS;
      private double invalidPenalty = DEFAULT_INVALID_PENALTY;
      private double evalTemperature = Double.NaN;
      private Optional<Duration> stepTimeout = Optional.empty();
      private Map<String, String> environmentOptions = Map.of();
      private int warmStartEpochs = DEFAULT_WARM_START_EPOCHS;
      private double warmStartLearningRate = DEFAULT_WARM_START_LEARNING_RATE;
      private double maxUpdateKl = DEFAULT_MAX_UPDATE_KL;
      private double maxAnchorDrop = DEFAULT_MAX_ANCHOR_DROP;
      private EpisodeScore episodeScore = DEFAULT_EPISODE_SCORE;
      private double trajGamma = Double.NaN;

      private Builder(Path workDir) {
        this.workDir = Objects.requireNonNull(workDir, "workDir");
      }

      /**
       * @param v supervised examples (turns) of the warm start (default 3,200)
       * @return this builder
       */
      public Builder optWarmStartExamples(int v) {
        warmStartExamples = v;
        return this;
      }

      /**
       * @param v training iterations (default 40)
       * @return this builder
       */
      public Builder optIterations(int v) {
        iterations = v;
        return this;
      }

      /**
       * @param v task groups per iteration (default 4)
       * @return this builder
       */
      public Builder optTasks(int v) {
        tasks = v;
        return this;
      }

      /**
       * @param v meta-episodes per evaluation set (default 48)
       * @return this builder
       */
      public Builder optEvalMetaEpisodes(int v) {
        evalMetaEpisodes = v;
        return this;
      }

      /**
       * @param v the reinforcement-learning phase's learning rate (default 5e-4)
       * @return this builder
       */
      public Builder optLearningRate(double v) {
        learningRate = v;
        return this;
      }

      /**
       * @param v the KL weight to the warm start, 0 for none (default 1.0)
       * @return this builder
       */
      public Builder optKlCoefficient(double v) {
        klCoefficient = v;
        return this;
      }

      /**
       * @param v turns per optimizer step (default 512)
       * @return this builder
       */
      public Builder optMiniBatchTurns(int v) {
        miniBatchTurns = v;
        return this;
      }

      /**
       * @param v passes over each batch (default 1)
       * @return this builder
       */
      public Builder optEpochs(int v) {
        epochs = v;
        return this;
      }

      /**
       * @param v the model/warm-start seed and the base seed of training and evaluation (default 1)
       * @return this builder
       */
      public Builder optSeed(long v) {
        seed = v;
        return this;
      }

      /**
       * @param v the share of warm-start turns that repeat the previous attempt's action (default {@link
       *     #DEFAULT_REPEAT_SHARE})
       * @return this builder
       */
      public Builder optRepeatShare(double v) {
        repeatShare = v;
        return this;
      }

      /**
       * @param v the GiGPO step-group anchors (default {@link #DEFAULT_ANCHORS})
       * @return this builder
       */
      public Builder optAnchors(AnchorScope v) {
        anchors = v;
        return this;
      }

      /**
       * @param v the invalid-action penalty (default {@link #DEFAULT_INVALID_PENALTY})
       * @return this builder
       */
      public Builder optInvalidPenalty(double v) {
        invalidPenalty = v;
        return this;
      }

      /**
       * @param v the evaluation temperature with neither top-p nor top-k, 0 for greedy, NaN for the reference's
       *     evaluation sampling (default NaN)
       * @return this builder
       */
      public Builder optEvalTemperature(double v) {
        evalTemperature = v;
        return this;
      }

      /**
       * @param v the limit of one environment call, empty for none (default empty)
       * @return this builder
       */
      public Builder optStepTimeout(Optional<Duration> v) {
        stepTimeout = v;
        return this;
      }

      /**
       * @param v the game environment's options (for Kuhn Poker {@code reward=win-loss}), empty for its defaults
       *     (default empty)
       * @return this builder
       */
      public Builder optEnvironmentOptions(Map<String, String> v) {
        environmentOptions = v;
        return this;
      }

      /**
       * @param epochs passes of the supervised warm start over its examples (default {@link
       *     #DEFAULT_WARM_START_EPOCHS})
       * @param lr its learning rate (default {@link #DEFAULT_WARM_START_LEARNING_RATE})
       * @return this builder
       */
      public Builder optWarmStart(int epochs, double lr) {
        warmStartEpochs = epochs;
        warmStartLearningRate = lr;
        return this;
      }

      /**
       * @param v the update's KL limit, 0 for none (default {@link #DEFAULT_MAX_UPDATE_KL})
       * @return this builder
       */
      public Builder optMaxUpdateKl(double v) {
        maxUpdateKl = v;
        return this;
      }

      /**
       * @param v the anchors' log-probability drop limit, 0 for none (default {@link #DEFAULT_MAX_ANCHOR_DROP})
       * @return this builder
       */
      public Builder optMaxAnchorDrop(double v) {
        maxAnchorDrop = v;
        return this;
      }

      /**
       * @param v the episode score of GiGPO's episode-level advantage (default {@link #DEFAULT_EPISODE_SCORE})
       * @return this builder
       */
      public Builder optEpisodeScore(EpisodeScore v) {
        episodeScore = v;
        return this;
      }

      /**
       * @param v the discount between attempts in [0, 1], NaN for the environment's reference value (default NaN)
       * @return this builder
       */
      public Builder optTrajGamma(double v) {
        trajGamma = v;
        return this;
      }

      /**
       * @return the validated settings
       * @throws IllegalArgumentException naming the first value out of range
       */
      public Settings build() {
        return new Settings(workDir, warmStartExamples, iterations, tasks, evalMetaEpisodes, learningRate,
            klCoefficient, miniBatchTurns, epochs, seed, repeatShare, anchors, invalidPenalty, evalTemperature,
            stepTimeout, environmentOptions, warmStartEpochs, warmStartLearningRate, maxUpdateKl, maxAnchorDrop,
            episodeScore, trajGamma);
      }
    }
  }

  private final EnvironmentRegistry registry;
  private final Game game;
  private final EnvironmentProvider provider;
  private final Settings settings;
  private final PrintWriter out;

  /**
   * A Kuhn Poker recipe.
   *
   * @param registry where the Kuhn environment is found
   * @param settings the settings
   * @param out where progress goes
   */
  public GameRecipe(EnvironmentRegistry registry, Settings settings, PrintWriter out) {
    this(registry, KUHN, settings, out);
  }

  /**
   * @param registry where the game's environment is found
   * @param game the game
   * @param settings the settings
   * @param out where progress goes
   */
  public GameRecipe(EnvironmentRegistry registry, Game game, Settings settings, PrintWriter out) {
    this.registry = registry;
    this.game = game;
    this.provider = registry.require(game.environment());
    this.settings = settings;
    this.out = out;
  }

  /** @return the game */
  public Game game() {
    return game;
  }

  /** @return the settings */
  public Settings settings() {
    return settings;
  }

  /**
   * @return the discount between attempts in credit assignment: the settings' ({@link Settings#trajGamma()}), or the
   *     environment's reference value when they leave it open
   */
  public double trajGamma() {
    return Double.isNaN(settings.trajGamma()) ? provider.defaults().trajGamma() : settings.trajGamma();
  }

  /** @return the environment options of every rollout (the settings') */
  public Map<String, String> environmentOptions() {
    return settings.environmentOptions();
  }

  /**
   * @return the tiny model's directory: the cached model whatever its shape (see {@link #tinyModel(int, int)}), or
   *     one written now with the default shape (width 64, 2 layers)
   */
  public Path tinyModel() {
    Path dir = tinyModelDir();
    return Files.exists(dir.resolve("model.safetensors")) ? dir : tinyModel(64, 2);
  }

  /** @return where the untrained tiny model is cached in the work directory (it may not exist yet) */
  public Path tinyModelDir() {
    return settings.workDir().resolve("tiny-qwen3" + game.cacheSuffix());
  }

  /**
   * The tiny model's directory, written on first use with the given shape: heads of width 16 (half as many key/value
   * heads), an MLP three times the width, 256 BPE merges learned from the game's prompts.
   *
   * @param width the residual width, a multiple of 32
   * @param layers the decoder layers
   * @return the directory
   * @throws IllegalArgumentException when the shape is impossible
   * @throws IllegalStateException when the cached model or the cached warm start has another shape
   */
  public Path tinyModel(int width, int layers) {
    requireModelShape(width, layers);
    Path dir = tinyModelDir();
    Path warm = warmStartDir();
    if (Files.exists(warm.resolve("config.json"))) {
      // a warm start cached (or shipped) without its tiny model must have the asked shape as well
      Qwen3Config cached = Qwen3Config.fromFile(warm);
      if (cached.hiddenSize() != width || cached.numHiddenLayers() != layers) {
        throw new IllegalStateException("the warm start cached in " + warm + " has width " + cached.hiddenSize()
            + " and " + cached.numHiddenLayers() + " layers, not " + width + " and " + layers
            + "; use another work directory or delete " + warm);
      }
    }
    if (!Files.exists(dir.resolve("model.safetensors"))) {
      out.println("Writing a tiny Qwen3 checkpoint (width " + width + ", " + layers + " layers; tokenizer learned from "
          + game.environment() + " prompts) to " + dir);
      TinyCheckpoint.Spec small = TinyCheckpoint.Spec.small(PromptCorpus.of(provider, settings.seed()),
          Seeds.derive(settings.seed(), 7, 0));
      // width 64 and 2 layers give exactly Spec.small's heads (4 of width 16, 2 key/value) and MLP (192)
      int heads = width / 16;
      TinyCheckpoint.write(dir, new TinyCheckpoint.Spec(width, layers, heads, heads / 2, 16, 3 * width,
          small.maxMerges(), small.corpus(), small.seed()));
      return dir;
    }
    Qwen3Config cached = Qwen3Config.fromFile(dir);
    if (cached.hiddenSize() != width || cached.numHiddenLayers() != layers) {
      throw new IllegalStateException("the tiny model cached in " + dir + " has width " + cached.hiddenSize()
          + " and " + cached.numHiddenLayers() + " layers, not " + width + " and " + layers
          + "; use another work directory or delete " + dir);
    }
    return dir;
  }

  /**
   * Checks a tiny model shape for {@link #tinyModel(int, int)}.
   *
   * @param width the residual width
   * @param layers the decoder layers
   * @throws IllegalArgumentException unless the width is a multiple of 32 in [32, 1024] and the layers in [1, 32]
   */
  public static void requireModelShape(int width, int layers) {
    if (width < 32 || width > 1024 || width % 32 != 0 || layers < 1 || layers > 32) {
      throw new IllegalArgumentException("the tiny model's width must be a multiple of 32 in [32, 1024] and its"
          + " layers in [1, 32], got width " + width + " and " + layers + " layers");
    }
  }

  /** The file in a warm start's directory that records the settings it was made with ({@link #warmStartKey()}). */
  public static final String WARM_START_SETTINGS_FILE = "warm-start-settings.txt";

  /** @return where the warm start is cached in the work directory */
  public Path warmStartDir() {
    return settings.workDir().resolve("warm-start" + game.cacheSuffix());
  }

  /**
   * @return the settings the warm start depends on, as recorded in {@link #WARM_START_SETTINGS_FILE} (one line): a
   *     cached warm start is reused only when its line is the same
   */
  public String warmStartKey() {
    boolean firstRecipe = settings.warmStartEpochs() == 1 && settings.warmStartLearningRate() == 3e-3;
    return String.format(Locale.ROOT, "examples=%d repeat_share=%s seed=%d%s%s%n",
        settings.warmStartExamples(), settings.repeatShare(), settings.seed(),
        firstRecipe ? "" : " epochs=" + settings.warmStartEpochs() + " lr=" + settings.warmStartLearningRate(),
        environmentOptions().isEmpty() ? "" : " options=" + new java.util.TreeMap<>(environmentOptions()));
  }

  /**
   * @return the warm-started model's directory (trained on first use, then reused while the warm-start settings are
   *     the same)
   * @throws IllegalStateException when the cached warm start was made with other warm-start settings
   */
  public Path warmStart() {
    Path warm = warmStartDir();
    Path recipe = warm.resolve(WARM_START_SETTINGS_FILE);
    String wanted = warmStartKey();
    if (Files.exists(warm.resolve("model.safetensors"))) {
      String cached;
      try {
        cached = Files.exists(recipe) ? Files.readString(recipe) : "(no " + recipe.getFileName() + ")";
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot read " + recipe, e);
      }
      if (!cached.equals(wanted)) {
        throw new IllegalStateException("the warm start cached in " + warm + " was made with " + cached.trim()
            + ", not " + wanted.trim() + "; use another work directory or delete " + warm);
      }
      return warm;
    }
    Path tiny = tinyModel();
    List<Transcript> transcripts = transcripts(settings.warmStartExamples());
    try {
      Files.createDirectories(warm);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot create " + warm, e);
    }
    TranscriptWriter.write(settings.workDir().resolve("warm-start" + game.cacheSuffix() + "-transcripts.jsonl"),
        transcripts);
    out.printf(Locale.ROOT, "Warm start: %d turns of non-adaptive scripted players (after the first attempt %.0f%% of"
        + " turns repeat the previous attempt's action whatever its outcome; the rest the fixed line or a random legal"
        + " action), %d epoch(s) of supervised training at learning rate %s%n", transcripts.size(),
        100 * settings.repeatShare(), settings.warmStartEpochs(), settings.warmStartLearningRate());
    try (DjlLanguagePolicy policy = load(tiny)) {
      Qwen3Model model = MageTrainer.modelOf(policy);
      SupervisedResult r;
      try (SupervisedTrainer sft = SupervisedTrainer.builderFor(policy)
          .optEnableThinking(false)
          .optBatchSize(32)
          .optEpochs(settings.warmStartEpochs())
          .optSeed(settings.seed())
          .optOptimizerConfig(AdamWConfig.builder().optLearningRate(settings.warmStartLearningRate())
              .optWeightDecay(0).optWarmupSteps(5)
              .build())
          .build()) {
        r = sft.train(transcripts);
      }
      model.weights().requireGradients(false);
      out.printf(Locale.ROOT, "  loss %.3f -> %.3f over %d steps%n", r.firstLoss(), r.lastLoss(), r.steps().size());
      ModelSaver.save(model, tiny, warm);
    }
    try {
      Files.writeString(recipe, wanted);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot write " + recipe, e);
    }
    return warm;
  }

  /**
   * Meta-episodes of the warm start's scripted player (its repeat share, but at least 1/2 so that later attempts
   * appear), for prompts to probe a model on ({@link KuhnPolicyProbe}); the same ones on every call.
   *
   * @param count how many
   * @return the meta-episodes
   */
  public List<MetaEpisode> probeMetaEpisodes(int count) {
    RolloutConfig config = rollout(MethodPreset.MAGE, count).optGroupSize(1)
        .optSeed(Seeds.derive(settings.seed(), 14, 0)).build();
    try (LanguagePolicy mix = new MixedScripted(provider, game.fixedPolicy(), Seeds.derive(settings.seed(), 15, 0),
        Math.max(0.5, settings.repeatShare()))) {
      return new MetaEpisodeRunner(registry).run(config, mix).metaEpisodes();
    }
  }

  /** Chat transcripts (one user prompt, one assistant answer) of non-adaptive scripted players' turns. */
  private List<Transcript> transcripts(int count) {
    return transcripts(count, 9, 10);
  }

  /**
   * The anchor turns of the update check: {@link #ANCHOR_TURNS} scripted turns (drawn apart from the warm start's
   * examples) as the policy sees them, the prompt rendered by its chat template and the answer ended by its first
   * stop token.
   *
   * @param policy the policy being trained
   * @return the anchor rows
   */
  public List<PolicyUpdater.Row> anchorTurns(DjlLanguagePolicy policy) {
    List<PolicyUpdater.Row> rows = new ArrayList<>(ANCHOR_TURNS);
    for (SupervisedExample e : SupervisedTrainer.tokenize(transcripts(ANCHOR_TURNS, 16, 17), policy.tokenizer(),
        policy.chatTemplate(), policy.templateVariables(), policy.stopTokenIds().iterator().next())) {
      rows.add(new PolicyUpdater.Row(e.promptIds(), e.responseIds(), null, 0));
    }
    return rows;
  }

  private List<Transcript> transcripts(int count, int configStream, int playerStream) {
    List<Transcript> out = new ArrayList<>(count);
    int round = 0;
    while (out.size() < count) {
      RolloutConfig config = rollout(MethodPreset.MAGE, 16).optGroupSize(4)
          .optSeed(Seeds.derive(settings.seed(), configStream, round)).build();
      try (LanguagePolicy mix = new MixedScripted(provider, game.fixedPolicy(),
          Seeds.derive(settings.seed(), playerStream, round), settings.repeatShare())) {
        for (MetaEpisode m : new MetaEpisodeRunner(registry).run(config, mix).metaEpisodes()) {
          for (var e : m.episodes()) {
            for (Turn t : e.turns()) {
              if (out.size() < count) {
                out.add(Transcript.of(ChatMessage.user(t.prompt()), ChatMessage.assistant(t.response())));
              }
            }
          }
        }
      }
      round++;
    }
    return out;
  }

  /**
   * The training rollout of a method preset, with this recipe's prompt settings.
   *
   * @param method the method
   * @param tasks task groups
   * @return the builder
   */
  public RolloutConfig.Builder rollout(MethodPreset method, int tasks) {
    RolloutConfig.Builder b = method.trainingRollout(provider)
        .optTasks(tasks)
        .optContextMode(method.multiEpisode() ? ContextMode.HISTORY_ONLY : ContextMode.NONE)
        .optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(MAX_NEW_TOKENS));
    settings.stepTimeout().ifPresent(b::optStepTimeout);
    b.optEnvironmentOptions(environmentOptions());
    return b;
  }

  /**
   * Loads a model directory as a policy.
   *
   * @param dir the directory
   * @return the policy (thinking off: the tiny template then opens an empty think block)
   */
  public DjlLanguagePolicy load(Path dir) {
    return Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu().withThinking(false)
        .withSeed(settings.seed()));
  }

  /**
   * Trains a policy in place with a method preset.
   *
   * @param method mage, lamer, gigpo or grpo
   * @param policy the policy (loaded from the warm start)
   * @param referenceDir the directory of the frozen reference (the warm start) for the KL term
   * @param listeners training listeners
   */
  public void train(MethodPreset method, DjlLanguagePolicy policy, Path referenceDir,
      List<TrainingListener> listeners) {
    train(method, policy, referenceDir, listeners, settings.seed());
  }

  /**
   * Trains a policy in place with a method preset and a training seed of its own (the rollouts of iteration i are
   * drawn from this seed; the warm start and the evaluation sets keep the settings' seed).
   *
   * @param method mage, lamer, gigpo or grpo
   * @param policy the policy (loaded from the warm start)
   * @param referenceDir the directory of the frozen reference (the warm start) for the KL term
   * @param listeners training listeners
   * @param trainingSeed the seed of the training rollouts
   */
  public void train(MethodPreset method, DjlLanguagePolicy policy, Path referenceDir,
      List<TrainingListener> listeners, long trainingSeed) {
    Qwen3Model model = MageTrainer.modelOf(policy);
    model.weights().requireGradients(true);
    OptimizerConfig oc = OptimizerConfig.builder().optKlCoefficient(settings.klCoefficient())
        .optAnchorScope(settings.anchors())
        .optLearningRate(settings.learningRate()).build();
    PolicyOptimizer optimizer = ProviderRegistry.discover(PolicyOptimizerProvider.class)
        .require(method.optimizerId().orElseThrow()).create(oc);
    try (AdamW adamw = new AdamW(model.weights().parameters(), AdamWConfig.of(oc));
        Qwen3Model reference = settings.klCoefficient() > 0
            ? Qwen3Checkpoint.loadModel(referenceDir, Device.cpu(), DataType.FLOAT32) : null) {
      MageTrainer.Builder b = MageTrainer.builder()
          .setRegistry(registry)
          .setPolicy(policy)
          .setRollout(rollout(method, settings.tasks()).build())
          .setCredit(CreditConfig.forEnvironment(provider.defaults()).optMetaReturn(method.metaReturn().orElseThrow())
              .optInvalidPenalty(settings.invalidPenalty())
              .optEpisodeScore(settings.episodeScore())
              .optGammaTraj(trajGamma())
              .build())
          .setOptimizer(optimizer)
          .setAdamW(adamw)
          .optReference(reference)
          .optUpdateSettings(new PolicyUpdater.Settings(settings.miniBatchTurns(), 64, settings.epochs(), true, true,
              settings.maxUpdateKl(), settings.maxAnchorDrop()))
          .optAnchorTurns(settings.maxAnchorDrop() > 0 ? anchorTurns(policy) : List.of())
          .optValidateEvery(0)
          .optSeed(Seeds.derive(trainingSeed, 13, 0));
      listeners.forEach(b::addListener);
      b.build().fit(settings.iterations());
    } finally {
      model.weights().requireGradients(false);
    }
  }

  /**
   * Evaluates a policy: each pool opponent and the held-out opponent with the game's seats; 3 episodes, evaluation
   * sampling, the same seeds for every policy.
   *
   * @param policy the policy
   * @param context what the prompt shows of earlier attempts
   * @return the metrics per evaluation set, by opponent id
   */
  public Map<String, Map<String, Number>> evaluate(LanguagePolicy policy, ContextMode context) {
    Map<String, Map<String, Number>> result = new LinkedHashMap<>();
    List<String> sets = game.evaluationSets();
    for (int i = 0; i < sets.size(); i++) {
      String opp = sets.get(i);
      RolloutConfig c = rollout(MethodPreset.MAGE, settings.evalMetaEpisodes())
          .optGroupSize(1)
          .optContextMode(context)
          .optFixedOpponent(opp)
          .optSeating(opp.equals(game.heldOut()) ? Seating.of(game.heldOutSeat()) : game.poolSeating())
          .optSampling(settings.evaluationSampling().withSeed(Seeds.derive(settings.seed(), 11, i)))
          .optSeed(Seeds.derive(settings.seed(), 12, i))
          .build();
      RolloutResult r = new MetaEpisodeRunner(registry).run(c, policy);
      result.put(opp, EvaluationMetrics.of(r.metaEpisodes(), r.episodes()).toMap());
    }
    return result;
  }

  /**
   * The game's reference player on every evaluation set (same deals or boards, seats and opponents); for Kuhn Poker
   * the winnable-deal ceiling: the hand-written adaptive player wins a meta-episode exactly when its deal is
   * winnable.
   *
   * @return its metrics per evaluation set
   */
  public Map<String, Map<String, Number>> ceilings() {
    try (LanguagePolicy scripted = provider.scriptedPolicy(game.referencePolicy(), 0)) {
      return evaluate(scripted, ContextMode.HISTORY_ONLY);
    }
  }

  /**
   * A non-adaptive scripted player for the warm start: per turn, with probability {@code repeat} (from the second
   * attempt on) the action the previous attempt took at the same turn, whatever that attempt's outcome (when still
   * legal); otherwise the fixed line's action with probability 1/2, else a uniformly random legal action. It reads
   * the earlier attempts' moves but never their outcomes, so it cannot teach the model to change a losing line.
   */
  static final class MixedScripted implements LanguagePolicy {
    private final LanguagePolicy fixed;
    private final LanguagePolicy random;
    private final Random coin;
    private final double copy;
    private final String fixedName;

    MixedScripted(EnvironmentProvider provider, String fixedLine, long seed, double copy) {
      fixed = provider.scriptedPolicy(fixedLine, seed);
      fixedName = fixedLine;
      random = provider.scriptedPolicy("random", seed + 1);
      coin = new Random(seed + 2);
      this.copy = copy;
    }

    @Override
    public String name() {
      return fixedName + "+random";
    }

    @Override
    public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
      List<Generation> result = new ArrayList<>(requests.size());
      for (PolicyRequest r : requests) {
        if (copy > 0 && coin.nextDouble() < copy) {
          String again = previousAttempt(r);
          if (again != null) {
            result.add(Generation.ofText("<action>" + again + "</action>"));
            continue;
          }
        }
        LanguagePolicy p = coin.nextBoolean() ? fixed : random;
        result.add(p.generate(List.of(r), sampling).get(0));
      }
      return result;
    }

    /** The action the previous attempt took at this point of the betting, or null. */
    private static String previousAttempt(PolicyRequest r) {
      if (r.pastEpisodes().isEmpty()) {
        return null;
      }
      var last = r.pastEpisodes().get(r.pastEpisodes().size() - 1);
      List<String> played = new ArrayList<>();
      for (Turn t : last.turns()) {
        if (t.valid()) {
          played.add(t.action());
        }
      }
      int own = r.turnIndex();
      return own < played.size() && r.legalActions().contains(played.get(own)) ? played.get(own) : null;
    }

    @Override
    public void close() {
      fixed.close();
      random.close();
    }
  }
}
