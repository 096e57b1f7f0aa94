package org.magejvm.examples.quickstart;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.keeper.GoalkeeperEnvironment;
import org.magejvm.impl.env.keeper.GoalkeeperProvider;
import org.magejvm.impl.env.penalty.GradedPenaltyProvider;
import org.magejvm.impl.env.penalty.PenaltyEnvironment;
import org.magejvm.impl.env.penalty.PenaltyProvider;
import org.magejvm.impl.env.penalty.PenaltyStrikers;
import org.magejvm.impl.env.penalty.StepsPenaltyProvider;
import org.magejvm.impl.env.penalty.Striker;
import org.magejvm.impl.eval.EvaluationSets;
import org.magejvm.impl.eval.EvaluationSuite;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.TrainerBuilder;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.train.warmstart.ScriptedWarmStart;
import org.magejvm.impl.train.warmstart.TinyBaseModel;
import org.magejvm.impl.train.warmstart.WarmStartSettings;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * The shared recipe of the quick start and the method comparisons: a tiny Qwen3 model, a warm start that teaches the
 * action format but not adaptation, training from a {@link TrainingConfig} (the quick start's is the {@code mage}
 * preset with a small budget: {@link #quickStartConfig}), and evaluation per opponent, for one of the {@link
 * RecipeGame}s (Goalkeeper and Kuhn Poker for the quick start; all three for the comparisons). The prompts are compact;
 * what a later attempt sees of the earlier ones is the training config's context mode: on Goalkeeper the reflections
 * the model wrote ({@link ContextMode#REFLECTION_ONLY}, the {@code mage} preset's, warm-started on a player that writes
 * lessons in the game's format and acts on them), on Kuhn Poker and Tic-Tac-Toe, which have no such player, the earlier
 * attempts' moves and outcomes ({@link ContextMode#HISTORY_ONLY}). Why the {@code mage} preset's other settings differ
 * from the reference's is said in {@link TrainingPreset} and docs/configuration.md.
 */
public final class GameRecipe {

  /** The name of the one evaluation set of a game without opponents. */
  public static final String ALL_SET = EvaluationSets.ALL;

  /**
   * Goalkeeper, the quick start's showcase: no opponents (the striker's habit is drawn per task), one evaluation set,
   * balanced over the striker's spot when its size is a multiple of the spots; the warm start's fixed line is {@code
   * sweep} (a different spot each attempt, the best history-blind keeper), and the reference player is {@code
   * follow}, which dives where the last shot went: the adaptive ceiling. With reflections the warm start is {@code
   * random-plan}'s: lessons that name a random spot, and dives where the lesson says.
   */
  public static final RecipeGame GOALKEEPER = new RecipeGame("mage-goalkeeper", List.of(), "", Seat.FIRST,
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
  public static final RecipeGame KUHN = new RecipeGame("mage-kuhn-poker",
      List.of("conservative", "aggressive", "intermediate"), "cfr", Seat.SECOND, Seating.mixed(0.5), "fixed-line",
      "adaptive", "winnable-deal ceiling", "", false, "");

  /**
   * Tic-Tac-Toe: one evaluation set per pool opponent (MCTS with 100 simulations, the six preferred-position players,
   * random), the held-out MCTS with 1,000 simulations; the agent moves first in every evaluation set, as in the
   * reference (training seats half of its groups second). The warm start's fixed line is the perfect {@code
   * minimax} player (it never reads earlier attempts, so it cannot teach exploiting an opponent); minimax's own rates
   * are printed beside the model's as a reference (they are not a ceiling: an exploiting player can win more often
   * against the weak opponents).
   */
  public static final RecipeGame TIC_TAC_TOE = new RecipeGame("mage-tictactoe",
      List.of("mcts-100", "preferred-center-first", "preferred-corners-first", "preferred-edges-first",
          "preferred-main-diagonal", "preferred-anti-diagonal", "preferred-reverse", "random"),
      "mcts-1000", Seat.FIRST, Seating.of(Seat.FIRST), "minimax", "minimax", "minimax (not a ceiling)",
      "-tictactoe", true, "");

  /**
   * Penalty Shoot-out ({@code mage-penalty}): one evaluation set per training striker (the population the engine
   * samples from in training) and one per held-out striker (their mirror images, never trained on); the warm start's
   * fixed line is {@code blind}, the best history-blind keeper against the training population (a dive sequence fixed
   * in advance), the reference player {@code adaptive}, the training population's optimum (its Pass@3 is 1 on the
   * training sets, not on the held-out ones). With reflections the warm start is {@code random-plan}'s, as on
   * Goalkeeper. Sets whose size is a multiple of the spots are balanced over the first shot's spot.
   */
  public static final RecipeGame PENALTY = new RecipeGame(PenaltyProvider.ID,
      ids(PenaltyStrikers.POPULATION.training()), ids(PenaltyStrikers.POPULATION.heldOut()), Seat.FIRST,
      Seating.of(Seat.FIRST), PenaltyProvider.BLIND_POLICY, PenaltyProvider.ADAPTIVE_POLICY,
      "training population's optimum", "-penalty", false, PenaltyProvider.RANDOM_PLAN_POLICY);

  /**
   * Penalty Shoot-out with graded scores ({@code mage-penalty-graded}), where the optima of MAGE's and LaMer's
   * objectives differ: sets, warm start and players as {@link #PENALTY}'s, on its own strikers.
   */
  public static final RecipeGame PENALTY_GRADED = new RecipeGame(GradedPenaltyProvider.ID,
      ids(PenaltyStrikers.GRADED_POPULATION.training()), ids(PenaltyStrikers.GRADED_POPULATION.heldOut()), Seat.FIRST,
      Seating.of(Seat.FIRST), PenaltyProvider.BLIND_POLICY, PenaltyProvider.ADAPTIVE_POLICY,
      "training population's optimum", "-penalty-graded", false, PenaltyProvider.RANDOM_PLAN_POLICY);

  /**
   * Penalty Shoot-out, steps ({@code mage-penalty-steps}): steps of 0, 1 and 2 spots to train on, steps of 3 held
   * out, 7 spots; sets, warm start and players as {@link #PENALTY}'s, on its own strikers.
   */
  public static final RecipeGame PENALTY_STEPS = new RecipeGame(StepsPenaltyProvider.ID,
      ids(PenaltyStrikers.STEPS_POPULATION.training()), ids(PenaltyStrikers.STEPS_POPULATION.heldOut()), Seat.FIRST,
      Seating.of(Seat.FIRST), PenaltyProvider.BLIND_POLICY, PenaltyProvider.ADAPTIVE_POLICY,
      "training population's optimum", "-penalty-steps", false, PenaltyProvider.RANDOM_PLAN_POLICY);

  private static List<String> ids(List<Striker> strikers) {
    return strikers.stream().map(Striker::id).toList();
  }

  /** Response tokens per turn (an action answer is a handful of tokens). */
  public static final int MAX_NEW_TOKENS = 16;
  /** The default share of warm-start turns that repeat the previous attempt ({@link WarmStartSettings}). */
  public static final double DEFAULT_REPEAT_SHARE = WarmStartSettings.DEFAULT_REPEAT_SHARE;
  /**
   * The default passes of the supervised warm start over its examples ({@link WarmStartSettings#DEFAULT_EPOCHS}:
   * with fewer the tiny model learned only how often to bet in Kuhn Poker, {@link KuhnPolicyProbe}).
   */
  public static final int DEFAULT_WARM_START_EPOCHS = WarmStartSettings.DEFAULT_EPOCHS;
  /** The default learning rate of the supervised warm start (see {@link #DEFAULT_WARM_START_EPOCHS}). */
  public static final double DEFAULT_WARM_START_LEARNING_RATE = WarmStartSettings.DEFAULT_LEARNING_RATE;
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
   * reflection format) with the recipe's budget and prompts (8 task groups, {@value #GOALKEEPER_QUICK_START_ITERATIONS}
   * iterations on Goalkeeper and {@value #QUICK_START_ITERATIONS} on the other games, compact prompts, 16 response
   * tokens, no validation during training: the recipe evaluates before and after) and the training seed derived from
   * the recipe's seed.
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

  private final EnvironmentRegistry registry;
  private final RecipeGame game;
  private final EnvironmentProvider provider;
  private final RecipeSettings settings;
  private final PrintWriter out;

  /**
   * A Kuhn Poker recipe.
   *
   * @param registry where the Kuhn environment is found
   * @param settings the settings
   * @param out where progress goes
   */
  public GameRecipe(EnvironmentRegistry registry, RecipeSettings settings, PrintWriter out) {
    this(registry, KUHN, settings, out);
  }

  /**
   * @param registry where the game's environment is found
   * @param game the game
   * @param settings the settings
   * @param out where progress goes
   */
  public GameRecipe(EnvironmentRegistry registry, RecipeGame game, RecipeSettings settings, PrintWriter out) {
    this.registry = registry;
    this.game = game;
    this.provider = registry.require(game.environment());
    this.settings = settings;
    this.out = out;
  }

  /** @return the game */
  public RecipeGame game() {
    return game;
  }

  /** @return the settings */
  public RecipeSettings settings() {
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
   *     game has a {@linkplain RecipeGame#reflectivePolicy() reflective player}
   */
  public boolean reflectiveWarmStart() {
    return scriptedWarmStart().reflective();
  }

  /**
   * @return the suffix of the cached tiny model's and warm start's names: the game's, with {@code -reflect} added for
   *     a {@linkplain #reflectiveWarmStart() reflective warm start} (its tokenizer also learns the reflections' text)
   */
  public String cacheSuffix() {
    return game.cacheSuffix() + (reflectiveWarmStart() ? "-reflect" : "");
  }

  /**
   * The tiny model's directory, written on first use with the given shape ({@link TinyBaseModel}, 256 BPE merges
   * learned from the game's prompts, and from the reflective player's turns for a reflective warm start).
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
      TinyBaseModel.requireCachedShape(warm, "warm start", width, layers);
    }
    if (!Files.exists(dir.resolve("model.safetensors"))) {
      out.println("Writing a tiny Qwen3 checkpoint (width " + width + ", " + layers + " layers; tokenizer learned from "
          + game.environment() + " prompts) to " + dir);
      String corpus = PromptCorpus.of(provider, settings.seed());
      if (reflectiveWarmStart()) {
        corpus += scriptedWarmStart().reflectiveCorpus();
      }
      return TinyBaseModel.write(dir, corpus, Seeds.derive(settings.seed(), 7, 0), width, layers);
    }
    TinyBaseModel.requireCachedShape(dir, "tiny model", width, layers);
    return dir;
  }

  /**
   * Checks a tiny model shape for {@link #tinyModel(int, int)} ({@link TinyBaseModel#requireShape}).
   *
   * @param width the residual width
   * @param layers the decoder layers
   * @throws IllegalArgumentException unless the width is a multiple of 32 in [32, 1024] and the layers in [1, 32]
   */
  public static void requireModelShape(int width, int layers) {
    TinyBaseModel.requireShape(width, layers);
  }

  /** The file in a warm start's directory that records the settings it was made with ({@link #warmStartKey()}). */
  public static final String WARM_START_SETTINGS_FILE = ScriptedWarmStart.SETTINGS_FILE;

  /** @return where the warm start is cached in the work directory */
  public Path warmStartDir() {
    return settings.workDir().resolve("warm-start" + cacheSuffix());
  }

  /**
   * @return the settings the warm start depends on, as recorded in {@link #WARM_START_SETTINGS_FILE} (one line): a
   *     cached warm start is reused only when its line is the same ({@link ScriptedWarmStart#key()})
   */
  public String warmStartKey() {
    return scriptedWarmStart().key();
  }

  /**
   * The warm start of this recipe ({@link ScriptedWarmStart}): with a {@linkplain #reflectiveWarmStart() reflective
   * warm start} every turn of the game's reflective player, reflections included, in the training config's context
   * mode; otherwise the play turns of the fixed line mixed with random and repeated actions.
   *
   * @return the warm start, on this recipe's rollouts ({@link #rollout}) and settings
   */
  public ScriptedWarmStart scriptedWarmStart() {
    return new ScriptedWarmStart(registry, rollout(TrainingPreset.MAGE, 16).build(), game.fixedPolicy(),
        game.reflectivePolicy(), settings.warmStart(), out);
  }

  /**
   * @return the warm-started model's directory (trained on first use from {@link #tinyModel()}, its turns written
   *     beside it, then reused while the warm-start settings are the same)
   * @throws IllegalStateException when the cached warm start was made with other warm-start settings
   */
  public Path warmStart() {
    return scriptedWarmStart().cachedOrTrained(warmStartDir(),
        settings.workDir().resolve("warm-start" + cacheSuffix() + "-transcripts.jsonl"), this::tinyModel);
  }

  /**
   * Meta-episodes of the warm start's scripted player (its repeat share, but at least 1/2 so that later attempts
   * appear), for prompts to probe a model on ({@link KuhnPolicyProbe}); the same ones on every call.
   *
   * @param count how many
   * @return the meta-episodes
   */
  public List<MetaEpisode> probeMetaEpisodes(int count) {
    return scriptedWarmStart().probeMetaEpisodes(count);
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
   * in (returns, estimator, group size, attempts and context; single-episode methods see no earlier attempt), so that
   * every method trains on the same budget, the same prompts and the same update settings; for {@code
   * mage-reference} also the keys in which that preset differs from {@code mage} (the environment's attempt discount
   * and invalid-action penalty, per-attempt episode scores, global anchors, learning rate 1e-6, KL weight 0.1, no
   * anchor check, old log-probabilities recomputed, zero-advantage rows kept, opponents by quota). Its context stays
   * the config's.
   *
   * @param preset a training preset
   * @return its config
   * @throws IllegalArgumentException when the preset does not train
   */
  public TrainingConfig trainingConfig(TrainingPreset preset) {
    return RecipeTrainingConfigs.of(settings.training(), provider, preset);
  }

  /**
   * Trains the policy (in place) as the config describes ({@link MageTrainer#create}).
   *
   * @param config the training config
   * @param policy the warm-started policy
   * @param listeners training listeners
   */
  public void train(TrainingConfig config, DjlLanguagePolicy policy, List<TrainingListener> listeners) {
    TrainerBuilder b = MageTrainer.builder(config, policy, registry);
    listeners.forEach(b::addListener);
    try (MageTrainer trainer = b.build()) {
      trainer.fit(config.iterations());
    }
  }

  /**
   * @return the evaluation of this recipe ({@link EvaluationSuite}): each pool opponent and the held-out opponent
   *     with the game's seats, {@link RecipeSettings#evalMetaEpisodes()} meta-episodes each on this recipe's rollouts,
   *     evaluation sampling, the same seeds for every policy; on Goalkeeper a set whose size is a multiple of the spots
   *     is balanced over the striker's spot ({@link GoalkeeperEnvironment#balancedTaskSeeds})
   */
  public EvaluationSuite evaluationSuite() {
    return new EvaluationSuite(registry, game.sets(), rollout(TrainingPreset.MAGE, settings.evalMetaEpisodes()).build(),
        settings.evaluationSampling(), settings.seed(), this::balancedSeeds);
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
    return evaluationSuite().evaluate(policy, context, control).toMaps();
  }

  /**
   * The rollouts behind {@link #evaluate(LanguagePolicy, ContextMode, ReflectionControl)}, one per evaluation set
   * ({@link EvaluationSuite#play}).
   *
   * @param policy the policy
   * @param context what the prompt shows of earlier attempts
   * @param control what later attempts are shown of the reflections
   * @return the rollout per evaluation set, by opponent id
   */
  public Map<String, RolloutResult> evaluationRollouts(LanguagePolicy policy, ContextMode context,
      ReflectionControl control) {
    return evaluationSuite().play(policy, context, control);
  }

  /**
   * @return the spots of a keeper game (Goalkeeper, Penalty Shoot-out) from the training config's environment options
   *     or the game's default; empty for the other games
   */
  public OptionalInt spots() {
    String id = game.environment();
    if (id.equals(GOALKEEPER.environment())) {
      return OptionalInt.of(GoalkeeperQuickStart.spots(settings.training()));
    }
    return penaltySpots(registry.require(id), environmentOptions());
  }

  /**
   * @param provider a game's provider
   * @param options its environment options
   * @return the number of spots of a Penalty Shoot-out game's environment made with those options (its own default
   *     where they set none); empty for the other games
   */
  public static OptionalInt penaltySpots(EnvironmentProvider provider, Map<String, String> options) {
    try (Environment e = provider.create(options)) {
      return e instanceof PenaltyEnvironment p ? OptionalInt.of(p.spots()) : OptionalInt.empty();
    }
  }

  /**
   * @param base the set's seed
   * @return on Goalkeeper and Penalty Shoot-out with an evaluation size that is a multiple of the spots, task seeds
   *     balanced over the striker's (first) spot; otherwise empty (the rollout derives its own)
   */
  private Optional<List<Long>> balancedSeeds(long base) {
    OptionalInt keeperSpots = spots();
    if (keeperSpots.isEmpty()) {
      return Optional.empty();
    }
    int spots = keeperSpots.getAsInt();
    int n = settings.evalMetaEpisodes();
    return n % spots == 0 ? Optional.of(GoalkeeperEnvironment.balancedTaskSeeds(base, spots, n / spots))
        : Optional.empty();
  }

  /**
   * The game's reference player on every evaluation set (same deals or boards, seats and opponents); for Kuhn Poker
   * the winnable-deal ceiling: the hand-written adaptive player wins a meta-episode exactly when its deal is
   * winnable.
   *
   * @return its metrics per evaluation set
   */
  public Map<String, Map<String, Number>> ceilings() {
    return evaluationSuite().scripted(game.referencePolicy()).toMaps();
  }
}
