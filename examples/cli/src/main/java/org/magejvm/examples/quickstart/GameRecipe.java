package org.magejvm.examples.quickstart;

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
import java.util.Random;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.keeper.GoalkeeperEnvironment;
import org.magejvm.impl.env.keeper.GoalkeeperProvider;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.AdamWConfig;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.ModelSaver;
import org.magejvm.impl.train.SupervisedResult;
import org.magejvm.impl.train.SupervisedTrainer;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingListener;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.train.Transcript;
import org.magejvm.impl.train.TranscriptWriter;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * The shared recipe of the quick start and the method comparisons: a tiny Qwen3 model, a warm start that teaches the
 * action format but not adaptation, training from a {@link TrainingConfig} (the quick start's is the {@code mage}
 * preset with a small budget: {@link #quickStartConfig}), and evaluation per opponent, for one of the {@link Game}s
 * (Goalkeeper and Kuhn Poker for the quick start; all three for the comparisons). The prompts are compact; what a
 * later attempt sees of the earlier ones is the training config's context mode: on Goalkeeper the reflections the
 * model wrote ({@link ContextMode#REFLECTION_ONLY}, the {@code mage} preset's, warm-started on a player that writes
 * lessons in the game's format and acts on them), on Kuhn Poker and Tic-Tac-Toe, which have no such player, the earlier
 * attempts' moves and outcomes ({@link ContextMode#HISTORY_ONLY}). Why the {@code mage} preset's other settings differ
 * from the reference's is said in {@link TrainingPreset} and docs/configuration.md.
 */
public final class GameRecipe {

  /**
   * What the recipe needs to know about a game.
   *
   * @param environment the environment id
   * @param pool the pool opponents evaluated one set each (the training population is the environment's own); empty
   *     for a game without opponents, which is evaluated as one set, {@link #ALL_SET}
   * @param heldOut the held-out opponent, never played in training ("" for a game without opponents)
   * @param heldOutSeat the agent's seat against the held-out opponent
   * @param poolSeating the agent's seats against the pool in evaluation
   * @param fixedPolicy the environment's scripted policy that plays the warm start's fixed line (it must not read
   *     earlier attempts)
   * @param referencePolicy the scripted policy whose rates are printed beside the model's
   * @param referenceLabel what that policy's rates mean
   * @param cacheSuffix appended to the names of the cached tiny model and warm start ("" for Kuhn Poker, which
   *     keeps the names of earlier versions)
   * @param draws whether the game has draws (their rates are then reported beside the success rates)
   * @param reflectivePolicy the environment's scripted policy whose turns, reflections included, are the warm start
   *     of a run that trains with reflections: it must write reflections in the format the game's prompts ask for
   *     while they carry nothing about the task, and act on what they say; "" when the game has none (a run with
   *     reflections then warm-starts on play turns only, and is warned that its model has never seen a reflection)
   */
  public record Game(
      String environment, List<String> pool, String heldOut, Seat heldOutSeat, Seating poolSeating,
      String fixedPolicy, String referencePolicy, String referenceLabel, String cacheSuffix, boolean draws,
      String reflectivePolicy) {

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
     * @param reflectivePolicy the warm start's reflective player, "" for none
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
      Objects.requireNonNull(reflectivePolicy, "reflectivePolicy");
    }

    /**
     * @param sets metrics per evaluation set
     * @param key the metric
     * @return the metric's mean over the pool's sets (the one set of a game without opponents)
     */
    public double poolAverage(Map<String, Map<String, Number>> sets, String key) {
      if (pool.isEmpty()) {
        return sets.get(ALL_SET).get(key).doubleValue();
      }
      double sum = 0;
      for (String opp : pool) {
        sum += sets.get(opp).get(key).doubleValue();
      }
      return sum / pool.size();
    }

    /** @return whether the game has opponents (pool sets and a held-out one) */
    public boolean hasOpponents() {
      return !pool.isEmpty();
    }

    /** @return the evaluation sets: the pool opponents, then the held-out one; {@link #ALL_SET} without opponents */
    public List<String> evaluationSets() {
      if (pool.isEmpty()) {
        return List.of(ALL_SET);
      }
      List<String> sets = new ArrayList<>(pool);
      sets.add(heldOut);
      return sets;
    }
  }

  /** The name of the one evaluation set of a game without opponents. */
  public static final String ALL_SET = "all";

  /**
   * Goalkeeper, the quick start's showcase: no opponents (the striker's habit is drawn per task), one evaluation set,
   * balanced over the striker's spot when its size is a multiple of the spots; the warm start's fixed line is {@code
   * sweep} (a different spot each attempt, the best history-blind keeper), and the reference player is {@code
   * follow}, which dives where the last shot went: the adaptive ceiling. With reflections the warm start is {@code
   * random-plan}'s: lessons that name a random spot, and dives where the lesson says.
   */
  public static final Game GOALKEEPER = new Game("mage-goalkeeper", List.of(), "", Seat.FIRST,
      Seating.of(Seat.FIRST), "sweep", "follow", "adaptive ceiling", "-goalkeeper", false,
      GoalkeeperProvider.RANDOM_PLAN_POLICY);

  /**
   * Kuhn Poker: the pool {conservative, aggressive, intermediate} with mixed seats, the held-out {@code cfr} with the
   * agent second as in the reference's validation; the warm start's fixed line is {@code fixed-line}; the
   * hand-written {@code adaptive} player on the same deals gives the winnable-deal ceiling (it wins a meta-episode
   * exactly when its deal is winnable). The reward is the reference's (5 per chip). With {@code reward=win-loss} the
   * model learns to bet in every state: always betting wins every winnable deal against any opponent, so it reaches the
   * ceiling of every set without exploiting anyone (docs/results.md).
   */
  public static final Game KUHN = new Game("mage-kuhn-poker", List.of("conservative", "aggressive", "intermediate"),
      "cfr", Seat.SECOND, Seating.mixed(0.5), "fixed-line", "adaptive", "winnable-deal ceiling", "", false, "");

  /**
   * Tic-Tac-Toe: one evaluation set per pool opponent (MCTS with 100 simulations, the six preferred-position players,
   * random), the held-out MCTS with 1,000 simulations; the agent moves first in every evaluation set, as in the
   * reference (training seats half of its groups second). The warm start's fixed line is the perfect {@code
   * minimax} player (it never reads earlier attempts, so it cannot teach exploiting an opponent); minimax's own rates
   * are printed beside the model's as a reference (they are not a ceiling: an exploiting player can win more often
   * against the weak opponents).
   */
  public static final Game TIC_TAC_TOE = new Game("mage-tictactoe",
      List.of("mcts-100", "preferred-center-first", "preferred-corners-first", "preferred-edges-first",
          "preferred-main-diagonal", "preferred-anti-diagonal", "preferred-reverse", "random"),
      "mcts-1000", Seat.FIRST, Seating.of(Seat.FIRST), "minimax", "minimax", "minimax (not a ceiling)",
      "-tictactoe", true, "");

  /** Response tokens per turn (an action answer is a handful of tokens). */
  public static final int MAX_NEW_TOKENS = 16;
  /**
   * The default share of warm-start turns (after the first attempt) that repeat the previous attempt's action at the
   * same point of the betting, whatever its outcome: this teaches the model to read the earlier attempts in its
   * prompt, but not to adapt (a repeating player never changes its line because it lost).
   */
  public static final double DEFAULT_REPEAT_SHARE = 0.5;
  /**
   * The default passes of the supervised warm start over its examples. With one pass over 3,200 turns (100 steps at
   * learning rate 3e-3) the tiny model learned only how often to bet: P(BET) was the same in all twelve information
   * states in every seed we probed ({@link KuhnPolicyProbe}; spread 0.001). With four passes at 3e-3 seed 1 learned to
   * bet with the King and pass with the Jack as the scripted players do (spread 0.52) but seed 2 did not; four passes
   * at 1e-3 ({@link #DEFAULT_WARM_START_LEARNING_RATE}) learned it in both (docs/lab-notes.md).
   */
  public static final int DEFAULT_WARM_START_EPOCHS = 4;
  /** The default learning rate of the supervised warm start (see {@link #DEFAULT_WARM_START_EPOCHS}). */
  public static final double DEFAULT_WARM_START_LEARNING_RATE = 1e-3;
  /** The seed stream that turns the recipe's seed into the training config's seed. */
  public static final long TRAINING_SEED_STREAM = 13;

  /** The quick start's training iterations on Kuhn Poker and Tic-Tac-Toe (about 8 minutes of Kuhn Poker). */
  public static final int QUICK_START_ITERATIONS = 120;
  /**
   * The quick start's training iterations on Goalkeeper: its model starts to use the shots it saw after 60 to 100
   * iterations, five training seeds at 200 ended at Pass@3 0.644 (sd 0.114) and at 270 at 0.714 (sd 0.067)
   * (docs/results.md), and 270 fit the quick start's 5 minutes on 2 cores since an iteration takes about 0.9 s.
   */
  public static final int GOALKEEPER_QUICK_START_ITERATIONS = 270;

  /**
   * The quick start's training config on a game: the {@code mage} preset (on Kuhn Poker and Tic-Tac-Toe with the
   * history as the context, {@code rollout.context_mode} {@code history_only}, since their warm starts teach no
   * reflection format) with the recipe's budget and prompts (8 task groups, {@value #GOALKEEPER_QUICK_START_ITERATIONS} iterations on Goalkeeper and {@value #QUICK_START_ITERATIONS}
   * on the other games, compact prompts, 16 response tokens, no validation during training: the recipe evaluates
   * before and after) and the training seed derived from the recipe's seed.
   *
   * @param provider the game's environment
   * @param seed the recipe's seed
   * @return the config
   */
  public static TrainingConfig quickStartConfig(EnvironmentProvider provider, long seed) {
    boolean keeper = provider.id().equals(GOALKEEPER.environment());
    TrainingConfig preset = TrainingPreset.MAGE.config(provider);
    return preset.toBuilder()
        // Goalkeeper keeps the preset's reflections; the other games' warm starts teach no reflection format
        .set("rollout.context_mode", keeper ? preset.rollout().contextMode() : ContextMode.HISTORY_ONLY)
        .set("rollout.tasks", 8)
        .set("rollout.prompt_style", PromptStyle.COMPACT)
        .set("sampling.max_new_tokens", MAX_NEW_TOKENS)
        .set("validation.every", 0)
        .set("iterations", keeper ? GOALKEEPER_QUICK_START_ITERATIONS : QUICK_START_ITERATIONS)
        .set("seed", Seeds.derive(seed, TRAINING_SEED_STREAM, 0))
        .build();
  }

  /**
   * Settings of a recipe run: the training config and what the recipe adds around it (the warm start, the
   * evaluation). Build them with {@link #builder(Path, TrainingConfig)} and copy them with {@link #toBuilder()}; the
   * canonical constructor validates every component.
   *
   * @param workDir where the tiny model and the warm start are cached
   * @param training the training run: its environment options and step time-out also apply to the warm start's and
   *     the evaluations' rollouts
   * @param warmStartExamples supervised examples (turns) of the warm start, one epoch
   * @param evalMetaEpisodes meta-episodes per evaluation set
   * @param seed the model/warm-start seed and the base seed of the evaluation (the training config has its own)
   * @param repeatShare the share of warm-start turns that repeat the previous attempt's action (see
   *     {@link #DEFAULT_REPEAT_SHARE}); 0 gives a warm start that never reads the earlier attempts
   * @param evalTemperature the evaluation's temperature with neither top-p nor top-k (0: greedy), or NaN for the
   *     reference's evaluation sampling (temperature 0.7, top-p 0.8, top-k 20), which turns any action above 0.8
   *     probability into a certainty
   * @param warmStartEpochs passes of the supervised warm start over its examples (see {@link
   *     #DEFAULT_WARM_START_EPOCHS})
   * @param warmStartLearningRate the supervised warm start's AdamW learning rate (see {@link
   *     #DEFAULT_WARM_START_LEARNING_RATE})
   */
  public record Settings(
      Path workDir, TrainingConfig training, int warmStartExamples, int evalMetaEpisodes, long seed,
      double repeatShare, double evalTemperature, int warmStartEpochs, double warmStartLearningRate) {

    /**
     * Validates.
     *
     * @param workDir work directory
     * @param training training config
     * @param warmStartExamples warm-start examples
     * @param evalMetaEpisodes evaluation size
     * @param seed seed
     * @param repeatShare warm-start repeat share
     * @param evalTemperature evaluation temperature, NaN for the reference's evaluation sampling
     * @param warmStartEpochs warm-start epochs
     * @param warmStartLearningRate warm-start learning rate
     */
    public Settings {
      Objects.requireNonNull(workDir, "workDir");
      Objects.requireNonNull(training, "training");
      if (warmStartExamples < 1 || evalMetaEpisodes < 1) {
        throw new IllegalArgumentException("warm-start examples and the evaluation size must be >= 1");
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
      if (!Double.isNaN(evalTemperature) && !(evalTemperature >= 0 && evalTemperature <= 10)) {
        throw new IllegalArgumentException("the evaluation temperature must be in [0, 10] (0: greedy), got "
            + evalTemperature);
      }
    }

    /**
     * A builder with the recipe's defaults: 3,200 warm-start examples, 48 evaluation meta-episodes, seed 1, and the
     * {@code DEFAULT_*} constants of {@link GameRecipe} for the warm start.
     *
     * @param workDir where the tiny model and the warm start are cached
     * @param training the training config
     * @return the builder
     */
    public static Builder builder(Path workDir, TrainingConfig training) {
      return new Builder(workDir, training);
    }

    /** @return a builder preset with these settings */
    public Builder toBuilder() {
      Builder b = new Builder(workDir, training);
      b.warmStartExamples = warmStartExamples;
      b.evalMetaEpisodes = evalMetaEpisodes;
      b.seed = seed;
      b.repeatShare = repeatShare;
      b.evalTemperature = evalTemperature;
      b.warmStartEpochs = warmStartEpochs;
      b.warmStartLearningRate = warmStartLearningRate;
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
      private TrainingConfig training;
      private int warmStartExamples = 3200;
      private int evalMetaEpisodes = 48;
      private long seed = 1;
      private double repeatShare = DEFAULT_REPEAT_SHARE;
      private double evalTemperature = Double.NaN;
      private int warmStartEpochs = DEFAULT_WARM_START_EPOCHS;
      private double warmStartLearningRate = DEFAULT_WARM_START_LEARNING_RATE;

      private Builder(Path workDir, TrainingConfig training) {
        this.workDir = Objects.requireNonNull(workDir, "workDir");
        this.training = Objects.requireNonNull(training, "training");
      }

      /**
       * @param v the training config
       * @return this builder
       */
      public Builder optTraining(TrainingConfig v) {
        training = v;
        return this;
      }

      /**
       * @param v supervised warm-start examples
       * @return this builder
       */
      public Builder optWarmStartExamples(int v) {
        warmStartExamples = v;
        return this;
      }

      /**
       * @param v meta-episodes per evaluation set
       * @return this builder
       */
      public Builder optEvalMetaEpisodes(int v) {
        evalMetaEpisodes = v;
        return this;
      }

      /**
       * @param v the model, warm-start and evaluation seed
       * @return this builder
       */
      public Builder optSeed(long v) {
        seed = v;
        return this;
      }

      /**
       * @param v the warm start's repeat share (default {@link #DEFAULT_REPEAT_SHARE})
       * @return this builder
       */
      public Builder optRepeatShare(double v) {
        repeatShare = v;
        return this;
      }

      /**
       * @param v the evaluation temperature, NaN for the reference's evaluation sampling
       * @return this builder
       */
      public Builder optEvalTemperature(double v) {
        evalTemperature = v;
        return this;
      }

      /**
       * @param epochs passes of the warm start (default {@link #DEFAULT_WARM_START_EPOCHS})
       * @param lr its learning rate (default {@link #DEFAULT_WARM_START_LEARNING_RATE})
       * @return this builder
       */
      public Builder optWarmStart(int epochs, double lr) {
        warmStartEpochs = epochs;
        warmStartLearningRate = lr;
        return this;
      }

      /** @return the settings, validated */
      public Settings build() {
        return new Settings(workDir, training, warmStartExamples, evalMetaEpisodes, seed, repeatShare,
            evalTemperature, warmStartEpochs, warmStartLearningRate);
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

  /** @return the discount between attempts in credit assignment (the training config's {@code credit.gamma_traj}) */
  public double trajGamma() {
    return settings.training().credit().gammaTraj();
  }

  /** @return the environment options of every rollout (the training config's {@code environment.options}) */
  public Map<String, String> environmentOptions() {
    return settings.training().environment().options();
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
    return settings.workDir().resolve("tiny-qwen3" + cacheSuffix());
  }

  /**
   * @return whether this run's warm start teaches reflections: the training config's context mode writes them and the
   *     game has a {@linkplain Game#reflectivePolicy() reflective player}
   */
  public boolean reflectiveWarmStart() {
    return settings.training().rollout().contextMode().reflects() && !game.reflectivePolicy().isEmpty();
  }

  /**
   * @return the suffix of the cached tiny model's and warm start's names: the game's, with {@code -reflect} added for
   *     a {@linkplain #reflectiveWarmStart() reflective warm start} (its tokenizer also learns the reflections' text)
   */
  public String cacheSuffix() {
    return game.cacheSuffix() + (reflectiveWarmStart() ? "-reflect" : "");
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
      String corpus = PromptCorpus.of(provider, settings.seed());
      if (reflectiveWarmStart()) {
        corpus += reflectiveCorpus();
      }
      TinyCheckpoint.Spec small = TinyCheckpoint.Spec.small(corpus, Seeds.derive(settings.seed(), 7, 0));
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
    return settings.workDir().resolve("warm-start" + cacheSuffix());
  }

  /**
   * @return the settings the warm start depends on, as recorded in {@link #WARM_START_SETTINGS_FILE} (one line): a
   *     cached warm start is reused only when its line is the same
   */
  public String warmStartKey() {
    boolean firstRecipe = settings.warmStartEpochs() == 1 && settings.warmStartLearningRate() == 3e-3;
    return String.format(Locale.ROOT, "examples=%d repeat_share=%s seed=%d%s%s%s%n",
        settings.warmStartExamples(), settings.repeatShare(), settings.seed(),
        firstRecipe ? "" : " epochs=" + settings.warmStartEpochs() + " lr=" + settings.warmStartLearningRate(),
        environmentOptions().isEmpty() ? "" : " options=" + new java.util.TreeMap<>(environmentOptions()),
        reflectiveWarmStart() ? " reflections=" + game.reflectivePolicy() + " context="
            + settings.training().rollout().contextMode().name().toLowerCase(Locale.ROOT) + " acting=" + ACTING_EXAMPLES
            + "x" + ACTING_EPOCHS + " lr=" + ACTING_LEARNING_RATE + " wd=" + ACTING_WEIGHT_DECAY : "");
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
    TranscriptWriter.write(settings.workDir().resolve("warm-start" + cacheSuffix() + "-transcripts.jsonl"),
        transcripts);
    if (reflectiveWarmStart()) {
      out.printf(Locale.ROOT, "Warm start: %d turns of the scripted %s player, reflections included (its reflections"
          + " follow the format but carry nothing about the task, and its play acts on them), %d epoch(s) of supervised"
          + " training at learning rate %s%n", transcripts.size(), game.reflectivePolicy(),
          settings.warmStartEpochs(), settings.warmStartLearningRate());
    } else {
      if (settings.training().rollout().contextMode().reflects()) {
        out.println("warning: " + game.environment() + " has no scripted player that writes reflections, so the warm"
            + " start learns play turns only and its model has never seen a reflection prompt; expect invalid"
            + " reflections (rollout.context_mode=history_only trains without them)");
      }
      out.printf(Locale.ROOT, "Warm start: %d turns of non-adaptive scripted players (after the first attempt %.0f%% of"
          + " turns repeat the previous attempt's action whatever its outcome; the rest the fixed line or a random"
          + " legal action), %d epoch(s) of supervised training at learning rate %s%n", transcripts.size(),
          100 * settings.repeatShare(), settings.warmStartEpochs(), settings.warmStartLearningRate());
    }
    try (DjlLanguagePolicy policy = load(tiny)) {
      Qwen3Model model = MageTrainer.modelOf(policy);
      SupervisedResult r;
      if (reflectiveWarmStart()) {
        // first the turns that act on a lesson alone: mixed with the first dives and the lessons' guesses, whose
        // targets are random draws, the tiny model never learnt to copy a lesson's spot into its answer
        List<Transcript> acting = actingTranscripts(ACTING_EXAMPLES);
        try (SupervisedTrainer sft = SupervisedTrainer.builderFor(policy)
            .optEnableThinking(false)
            .optBatchSize(32)
            .optEpochs(ACTING_EPOCHS)
            .optSeed(settings.seed())
            .optOptimizerConfig(AdamWConfig.builder().optLearningRate(ACTING_LEARNING_RATE)
                .optWeightDecay(ACTING_WEIGHT_DECAY).optWarmupSteps(5)
                .build())
            .build()) {
          r = sft.train(acting);
        }
        out.printf(Locale.ROOT, "  first acting on a lesson alone (%d turns, %d epochs at learning rate %s, weight decay"
            + " %s): loss %.3f -> %.3f%n", acting.size(), ACTING_EPOCHS, ACTING_LEARNING_RATE, ACTING_WEIGHT_DECAY,
            r.firstLoss(), r.lastLoss());
      }
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
      ModelSaver.saveReplacing(model, tiny, warm);
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
    RolloutConfig config = rollout(TrainingPreset.MAGE, count).optGroupSize(1)
        .optSeed(Seeds.derive(settings.seed(), 14, 0)).build();
    try (LanguagePolicy mix = new MixedScripted(provider, game.fixedPolicy(), Seeds.derive(settings.seed(), 15, 0),
        Math.max(0.5, settings.repeatShare()))) {
      return new MetaEpisodeRunner(registry).run(config, mix).metaEpisodes();
    }
  }

  /**
   * Chat transcripts (one user prompt, one assistant answer) of non-adaptive scripted players' turns: with a
   * {@linkplain #reflectiveWarmStart() reflective warm start} every turn of the reflective player, reflections
   * included, in the training config's context mode; otherwise the play turns of the fixed line mixed with random and
   * repeated actions ({@link MixedScripted}).
   */
  private List<Transcript> transcripts(int count) {
    if (reflectiveWarmStart()) {
      return Transcript.ofAllTurns(registry, count,
          round -> rollout(TrainingPreset.MAGE, 16).optGroupSize(4).optSeed(Seeds.derive(settings.seed(), 9, round))
              .build(),
          round -> provider.scriptedPolicy(game.reflectivePolicy(), Seeds.derive(settings.seed(), 10, round)));
    }
    return Transcript.ofPlayTurns(registry, count,
        round -> rollout(TrainingPreset.MAGE, 16).optGroupSize(4).optSeed(Seeds.derive(settings.seed(), 9, round))
            .build(),
        round -> new MixedScripted(provider, game.fixedPolicy(), Seeds.derive(settings.seed(), 10, round),
            settings.repeatShare()));
  }

  /** Turns of the first stage of a reflective warm start: play turns that act on a lesson. */
  static final int ACTING_EXAMPLES = 1600;
  /** Passes of that stage over its turns. */
  static final int ACTING_EPOCHS = 16;
  /** That stage's learning rate. */
  static final double ACTING_LEARNING_RATE = 2e-3;
  /**
   * That stage's AdamW weight decay: without it the copy from the lesson to the answer stalled with three spots
   * confused (the dive spread over them whatever the lesson said); with 0.1 every spot was followed with probability
   * 0.99 (docs/results.md).
   */
  static final double ACTING_WEIGHT_DECAY = 0.1;

  /**
   * The reflective player's play turns that come after a lesson (attempts 1, 2, ...), in the training config's
   * context mode: the first stage of a reflective warm start.
   */
  private List<Transcript> actingTranscripts(int count) {
    return Transcript.ofTurns(registry, count,
        round -> rollout(TrainingPreset.MAGE, 16).optGroupSize(4).optSeed(Seeds.derive(settings.seed(), 19, round))
            .build(),
        round -> provider.scriptedPolicy(game.reflectivePolicy(), Seeds.derive(settings.seed(), 20, round)),
        t -> !t.isReflection() && t.episodeIndex() > 0);
  }

  /**
   * The text of the reflective player's turns, prompts and answers, for the tiny tokenizer to learn the reflections'
   * words from (the same meta-episodes on every call).
   */
  private String reflectiveCorpus() {
    StringBuilder sb = new StringBuilder();
    RolloutConfig c = rollout(TrainingPreset.MAGE, 8).optGroupSize(1).optSeed(Seeds.derive(settings.seed(), 16, 0))
        .build();
    try (LanguagePolicy p = provider.scriptedPolicy(game.reflectivePolicy(), Seeds.derive(settings.seed(), 17, 0))) {
      for (MetaEpisode m : new MetaEpisodeRunner(registry).run(c, p).metaEpisodes()) {
        for (Turn t : m.turns()) {
          sb.append(t.prompt()).append('\n').append(t.response()).append('\n');
        }
      }
    }
    return sb.toString();
  }

  /**
   * The training rollout of a method preset, with this recipe's prompt settings: a multi-episode method in the
   * training config's context mode ({@link ContextMode#HISTORY_ONLY} when that is {@link ContextMode#NONE}), a
   * single-episode one without context.
   *
   * @param method the method
   * @param tasks task groups
   * @return the builder
   */
  public RolloutConfig.Builder rollout(TrainingPreset method, int tasks) {
    ContextMode trained = settings.training().rollout().contextMode();
    RolloutConfig.Builder b = method.trainingRollout(provider)
        .optTasks(tasks)
        .optContextMode(!method.multiEpisode() ? ContextMode.NONE
            : trained == ContextMode.NONE ? ContextMode.HISTORY_ONLY : trained)
        .optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(MAX_NEW_TOKENS));
    double timeout = settings.training().rollout().stepTimeoutSeconds();
    if (timeout > 0) {
      b.optStepTimeout(Duration.ofNanos(Math.round(timeout * 1e9)));
    }
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
   * The training config of a training preset in this recipe: the settings' config with the preset's method swapped
   * in (returns, estimator, group size, attempts and context, as {@code methodConfig} describes), and for {@code
   * mage-reference} also the keys in which that preset differs from {@code mage} (the
   * environment's attempt discount and invalid-action penalty, per-attempt episode scores, global anchors, learning
   * rate 1e-6, KL weight 0.1, no anchor check, old log-probabilities recomputed). Its context stays the config's:
   * the recipe's prompts show the earlier attempts' moves and outcomes, since a model of this size writes no useful
   * reflection.
   *
   * @param preset a training preset
   * @return its config
   * @throws IllegalArgumentException when the preset does not train
   */
  public TrainingConfig trainingConfig(TrainingPreset preset) {
    if (!preset.trains()) {
      throw new IllegalArgumentException("preset '" + preset.id() + "' trains nothing");
    }
    TrainingConfig c = methodConfig(preset == TrainingPreset.MAGE_REFERENCE ? TrainingPreset.MAGE : preset);
    if (preset != TrainingPreset.MAGE_REFERENCE) {
      return c;
    }
    TrainingConfig r = preset.config(provider);
    return c.toBuilder()
        .set("preset", r.preset())
        .set("credit.gamma_traj", r.credit().gammaTraj())
        .set("credit.invalid_penalty", r.credit().invalidPenalty())
        .set("credit.episode_score", r.credit().episodeScore())
        .set("advantages.anchor_scope", r.advantages().anchorScope())
        .set("adamw.learning_rate", r.adamw().learningRate())
        .set("loss.kl_coefficient", r.loss().klCoefficient())
        .set("checks.max_anchor_drop", r.checks().maxAnchorDrop())
        .set("checks.anchor_policy", r.checks().anchorPolicy())
        .set("update.old_log_probs", r.update().oldLogProbs())
        .build();
  }

  /**
   * The training config of a method in this recipe: the settings' config ({@link Settings#training()}) with the
   * method's returns, estimator, group size, attempts and context swapped in (single-episode methods see no earlier
   * attempt; multi-episode ones keep the config's context), so that every method trains on the same budget, the
   * same prompts and the same update settings.
   *
   * @param method a training preset other than {@code mage-reference}
   * @return its config
   */
  private TrainingConfig methodConfig(TrainingPreset method) {
    TrainingConfig base = settings.training();
    TrainingConfig m = method.config(provider);
    return base.toBuilder()
        .set("preset", method == TrainingPreset.MAGE ? base.preset() : m.preset())
        .set("credit.meta_return", m.credit().metaReturn())
        .set("advantages.estimator", m.advantages().estimator())
        .set("rollout.group_size", m.rollout().groupSize())
        .set("rollout.episodes", m.rollout().episodes())
        .set("rollout.context_mode", method.multiEpisode() ? base.rollout().contextMode() : ContextMode.NONE)
        .build();
  }

  /**
   * Trains the policy (in place) as the config describes ({@link MageTrainer#create}).
   *
   * @param config the training config
   * @param policy the warm-started policy
   * @param listeners training listeners
   */
  public void train(TrainingConfig config, DjlLanguagePolicy policy, List<TrainingListener> listeners) {
    MageTrainer.Builder b = MageTrainer.builder(config, policy, registry);
    listeners.forEach(b::addListener);
    try (MageTrainer trainer = b.build()) {
      trainer.fit(config.iterations());
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
    return evaluate(policy, context, ReflectionControl.OWN);
  }

  /**
   * Evaluates a policy as {@link #evaluate(LanguagePolicy, ContextMode)} does, with a reflection control.
   *
   * @param policy the policy
   * @param context what the prompt shows of earlier attempts
   * @param control what later attempts are shown of the reflections (matters only in a reflecting context)
   * @return the metrics per evaluation set, by opponent id
   */
  public Map<String, Map<String, Number>> evaluate(LanguagePolicy policy, ContextMode context,
      ReflectionControl control) {
    Map<String, Map<String, Number>> result = new LinkedHashMap<>();
    for (Map.Entry<String, RolloutResult> e : evaluationRollouts(policy, context, control).entrySet()) {
      RolloutResult r = e.getValue();
      result.put(e.getKey(), EvaluationMetrics.of(r.metaEpisodes(), r.episodes()).toMap());
    }
    return result;
  }

  /**
   * The rollouts behind {@link #evaluate(LanguagePolicy, ContextMode, ReflectionControl)}, one per evaluation set.
   * On Goalkeeper, a set whose size is a multiple of the spots is balanced over the striker's spot ({@link
   * GoalkeeperEnvironment#balancedTaskSeeds}).
   *
   * @param policy the policy
   * @param context what the prompt shows of earlier attempts
   * @param control what later attempts are shown of the reflections
   * @return the rollout per evaluation set, by opponent id
   */
  public Map<String, RolloutResult> evaluationRollouts(LanguagePolicy policy, ContextMode context,
      ReflectionControl control) {
    Map<String, RolloutResult> result = new LinkedHashMap<>();
    List<String> sets = game.evaluationSets();
    for (int i = 0; i < sets.size(); i++) {
      String opp = sets.get(i);
      RolloutConfig.Builder b = rollout(TrainingPreset.MAGE, settings.evalMetaEpisodes())
          .optGroupSize(1)
          .optContextMode(context)
          .optReflectionControl(control)
          .optSampling(settings.evaluationSampling().withSeed(Seeds.derive(settings.seed(), 11, i)))
          .optSeed(Seeds.derive(settings.seed(), 12, i));
      balancedSeeds(Seeds.derive(settings.seed(), 12, i)).ifPresent(b::optTaskSeeds);
      if (game.hasOpponents()) {
        b.optFixedOpponent(opp)
            .optSeating(opp.equals(game.heldOut()) ? Seating.of(game.heldOutSeat()) : game.poolSeating());
      }
      RolloutConfig c = b.build();
      result.put(opp, new MetaEpisodeRunner(registry).run(c, policy));
    }
    return result;
  }

  /**
   * @param base the set's seed
   * @return on Goalkeeper with an evaluation size that is a multiple of the spots, task seeds balanced over the
   *     striker's spot; otherwise empty (the rollout derives its own)
   */
  private java.util.Optional<List<Long>> balancedSeeds(long base) {
    if (!game.environment().equals(GOALKEEPER.environment())) {
      return java.util.Optional.empty();
    }
    int spots = GoalkeeperQuickStart.spots(settings.training());
    int n = settings.evalMetaEpisodes();
    return n % spots == 0 ? java.util.Optional.of(GoalkeeperEnvironment.balancedTaskSeeds(base, spots, n / spots))
        : java.util.Optional.empty();
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

    /**
     * The action the previous attempt took at this point of the game, or null: the turn's action text when it is a
     * legal action, else its answer's {@code <action>} block (games whose history text carries what the action
     * revealed, such as Goalkeeper's {@code dove 3, shot 5}, record the answer there).
     */
    private static String previousAttempt(PolicyRequest r) {
      if (r.pastEpisodes().isEmpty()) {
        return null;
      }
      var last = r.pastEpisodes().get(r.pastEpisodes().size() - 1);
      List<String> played = new ArrayList<>();
      for (Turn t : last.turns()) {
        if (t.valid()) {
          String action = t.action();
          if (!r.legalActions().contains(action)) {
            action = org.magejvm.spi.Tags.first(t.response(), "action").map(String::strip).orElse(action);
          }
          played.add(action);
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
