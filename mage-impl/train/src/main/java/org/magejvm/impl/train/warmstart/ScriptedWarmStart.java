package org.magejvm.impl.train.warmstart;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.checkpoint.ModelSaver;
import org.magejvm.impl.train.supervised.SupervisedResult;
import org.magejvm.impl.train.supervised.SupervisedTrainer;
import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.impl.train.supervised.TranscriptWriter;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * A warm start from scripted players: a model trained by supervised learning on the turns of an environment's
 * non-adaptive scripted players, so that it knows the action format (and how to read the earlier attempts) but not
 * how to adapt, and cached under the settings it was made with ({@link #key()}, in {@link #SETTINGS_FILE}).
 *
 * <p>Without a {@linkplain #reflective() reflective player} the examples are the play turns of {@link
 * MixedScriptedPolicy} (the fixed line mixed with random and repeated actions). With one, and a rollout context that
 * writes reflections, they are every turn of that player, reflections included, after a first stage on its play turns
 * that act on a lesson alone ({@value #ACTING_EXAMPLES} turns, {@value #ACTING_EPOCHS} epochs).
 *
 * <p>Every random choice derives from {@link WarmStartSettings#seed()}: round {@code r} of the scripted rollouts is
 * seeded {@code Seeds.derive(seed, 9, r)} and its player {@code Seeds.derive(seed, 10, r)} (the first stage's 19 and
 * 20, the reflective corpus's 16 and 17, the probe meta-episodes' 14 and 15).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class ScriptedWarmStart {

  /** The file in a warm start's directory that records the settings it was made with ({@link #key()}). */
  public static final String SETTINGS_FILE = "warm-start-settings.txt";
  /** Turns of the first stage of a reflective warm start: play turns that act on a lesson. */
  public static final int ACTING_EXAMPLES = 1600;
  /** Passes of that stage over its turns. */
  public static final int ACTING_EPOCHS = 16;
  /** That stage's learning rate. */
  public static final double ACTING_LEARNING_RATE = 2e-3;
  /**
   * That stage's AdamW weight decay: without it the copy from the lesson to the answer stalled with three spots
   * confused (the dive spread over them whatever the lesson said); with 0.1 every spot was followed with probability
   * 0.99 (docs/results.md).
   */
  public static final double ACTING_WEIGHT_DECAY = 0.1;

  private final EnvironmentRegistry registry;
  private final EnvironmentProvider provider;
  private final RolloutConfig rollouts;
  private final String fixedLine;
  private final String reflectivePlayer;
  private final WarmStartSettings settings;
  private final PrintWriter out;

  /**
   * @param registry where the rollouts' environment is found
   * @param rollouts the scripted rollouts: their environment, options, context, prompts, sampling and step time-out
   *     (tasks, group size and seed are set per round)
   * @param fixedLine the environment's scripted player of the fixed line (it must not read earlier attempts)
   * @param reflectivePlayer the environment's scripted player that writes reflections in the game's format and acts
   *     on them, "" for none
   * @param settings the settings
   * @param out where progress goes
   */
  public ScriptedWarmStart(EnvironmentRegistry registry, RolloutConfig rollouts, String fixedLine,
      String reflectivePlayer, WarmStartSettings settings, PrintWriter out) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.rollouts = Objects.requireNonNull(rollouts, "rollouts");
    this.provider = registry.require(rollouts.environmentId());
    this.fixedLine = Objects.requireNonNull(fixedLine, "fixedLine");
    this.reflectivePlayer = Objects.requireNonNull(reflectivePlayer, "reflectivePlayer");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.out = Objects.requireNonNull(out, "out");
  }

  /** @return whether the rollouts' context writes reflections and there is a reflective player to learn them from */
  public boolean reflective() {
    return rollouts.contextMode().reflects() && !reflectivePlayer.isEmpty();
  }

  /**
   * @return the settings the warm start depends on, as recorded in {@link #SETTINGS_FILE} (one line): a cached warm
   *     start is reused only when its line is the same
   */
  public String key() {
    boolean firstRecipe = settings.epochs() == 1 && settings.learningRate() == 3e-3;
    Map<String, String> options = rollouts.environmentOptions();
    return String.format(Locale.ROOT, "examples=%d repeat_share=%s seed=%d%s%s%s%n",
        settings.examples(), settings.repeatShare(), settings.seed(),
        firstRecipe ? "" : " epochs=" + settings.epochs() + " lr=" + settings.learningRate(),
        options.isEmpty() ? "" : " options=" + new TreeMap<>(options),
        reflective() ? " reflections=" + reflectivePlayer + " context="
            + rollouts.contextMode().name().toLowerCase(Locale.ROOT) + " acting=" + ACTING_EXAMPLES
            + "x" + ACTING_EPOCHS + " lr=" + ACTING_LEARNING_RATE + " wd=" + ACTING_WEIGHT_DECAY : "");
  }

  /**
   * The warm start cached in a directory, or one trained there now: the base model is asked for, the scripted turns
   * written to {@code transcripts} (JSONL), the model trained on them and saved with its {@link #key()}.
   *
   * <p>Two callers on the same directory, threads or processes (two comparisons started side by side on one work
   * directory), train it once: the second waits on the lock file {@code DIR.lock} beside it (deleted once the warm
   * start is saved) while the first trains, then reuses what the first saved.
   *
   * @param dir the warm start's directory
   * @param transcripts where the training turns are written
   * @param baseModel the untrained model's directory, asked for only when nothing is cached
   * @return the directory
   * @throws IllegalStateException when the cached warm start was made with other settings
   */
  public Path cachedOrTrained(Path dir, Path transcripts, Supplier<Path> baseModel) {
    if (Files.exists(dir.resolve("model.safetensors")) && Files.exists(dir.resolve(SETTINGS_FILE))) {
      return cached(dir);
    }
    // a model without its settings may be one another caller is still saving: wait for it under the lock
    return CacheLock.holding(dir.resolveSibling(dir.getFileName() + ".lock"),
        () -> Files.exists(dir.resolve("model.safetensors")) ? cached(dir) : train(dir, transcripts, baseModel));
  }

  /** The cached warm start, when it was made with this key. */
  private Path cached(Path dir) {
    Path recipe = dir.resolve(SETTINGS_FILE);
    String wanted = key();
    String cached;
    try {
      cached = Files.exists(recipe) ? Files.readString(recipe) : "(no " + recipe.getFileName() + ")";
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + recipe, e);
    }
    if (!cached.equals(wanted)) {
      throw new IllegalStateException("the warm start cached in " + dir + " was made with " + cached.trim()
          + ", not " + wanted.trim() + "; use another work directory or delete " + dir);
    }
    return dir;
  }

  /** Trains the warm start into the directory and records its key. */
  private Path train(Path dir, Path transcripts, Supplier<Path> baseModel) {
    Path recipe = dir.resolve(SETTINGS_FILE);
    String wanted = key();
    Path tiny = baseModel.get();
    List<Transcript> examples = transcripts(settings.examples());
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
    TranscriptWriter.write(transcripts, examples);
    announce(examples.size());
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu()
        .withThinking(false).withSeed(settings.seed()))) {
      Qwen3Model model = MageTrainer.modelOf(policy);
      if (reflective()) {
        // first the turns that act on a lesson alone: mixed with the first dives and the lessons' guesses, whose
        // targets are random draws, the tiny model never learnt to copy a lesson's spot into its answer
        List<Transcript> acting = actingTranscripts(ACTING_EXAMPLES);
        SupervisedResult r = fit(policy, acting, ACTING_EPOCHS, ACTING_LEARNING_RATE, ACTING_WEIGHT_DECAY);
        out.printf(Locale.ROOT, "  first acting on a lesson alone (%d turns, %d epochs at learning rate %s, weight"
            + " decay %s): loss %.3f -> %.3f%n", acting.size(), ACTING_EPOCHS, ACTING_LEARNING_RATE,
            ACTING_WEIGHT_DECAY, r.firstLoss(), r.lastLoss());
      }
      SupervisedResult r = fit(policy, examples, settings.epochs(), settings.learningRate(), 0);
      model.weights().requireGradients(false);
      out.printf(Locale.ROOT, "  loss %.3f -> %.3f over %d steps%n", r.firstLoss(), r.lastLoss(), r.steps().size());
      ModelSaver.saveReplacing(model, tiny, dir);
    }
    try {
      Files.writeString(recipe, wanted);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + recipe, e);
    }
    return dir;
  }

  private void announce(int turns) {
    if (reflective()) {
      out.printf(Locale.ROOT, "Warm start: %d turns of the scripted %s player, reflections included (its reflections"
          + " follow the format but carry nothing about the task, and its play acts on them), %d epoch(s) of supervised"
          + " training at learning rate %s%n", turns, reflectivePlayer, settings.epochs(), settings.learningRate());
      return;
    }
    if (rollouts.contextMode().reflects()) {
      out.println("warning: " + rollouts.environmentId() + " has no scripted player that writes reflections, so the"
          + " warm start learns play turns only and its model has never seen a reflection prompt; expect invalid"
          + " reflections (rollout.context_mode=history_only trains without them)");
    }
    out.printf(Locale.ROOT, "Warm start: %d turns of non-adaptive scripted players (after the first attempt %.0f%% of"
        + " turns repeat the previous attempt's action whatever its outcome; the rest the fixed line or a random"
        + " legal action), %d epoch(s) of supervised training at learning rate %s%n", turns,
        100 * settings.repeatShare(), settings.epochs(), settings.learningRate());
  }

  private SupervisedResult fit(DjlLanguagePolicy policy, List<Transcript> examples, int epochs, double lr,
      double weightDecay) {
    try (SupervisedTrainer sft = SupervisedTrainer.builderFor(policy)
        .optEnableThinking(false)
        .optBatchSize(32)
        .optEpochs(epochs)
        .optSeed(settings.seed())
        .optOptimizerConfig(AdamWConfig.builder().optLearningRate(lr).optWeightDecay(weightDecay).optWarmupSteps(5)
            .build())
        .build()) {
      return sft.train(examples);
    }
  }

  /**
   * Chat transcripts (one user prompt, one assistant answer) of the scripted players' turns: for a {@linkplain
   * #reflective() reflective} warm start every turn of the reflective player, reflections included; otherwise the
   * play turns of {@link MixedScriptedPolicy}.
   *
   * @param count how many
   * @return exactly {@code count} transcripts, the same on every call
   */
  public List<Transcript> transcripts(int count) {
    if (reflective()) {
      return Transcript.ofAllTurns(registry, count, round -> round(round, 9),
          round -> provider.scriptedPolicy(reflectivePlayer, Seeds.derive(settings.seed(), 10, round)));
    }
    return Transcript.ofPlayTurns(registry, count, round -> round(round, 9),
        round -> new MixedScriptedPolicy(provider, fixedLine, Seeds.derive(settings.seed(), 10, round),
            settings.repeatShare()));
  }

  /** The reflective player's play turns that come after a lesson (attempts 1, 2, ...): the first stage. */
  private List<Transcript> actingTranscripts(int count) {
    return Transcript.ofTurns(registry, count, round -> round(round, 19),
        round -> provider.scriptedPolicy(reflectivePlayer, Seeds.derive(settings.seed(), 20, round)),
        t -> !t.isReflection() && t.episodeIndex() > 0);
  }

  /** One round of scripted rollouts: 16 tasks of 4 meta-episodes, seeded from a stream. */
  private RolloutConfig round(int round, long stream) {
    return rollouts.toBuilder().optTasks(16).optGroupSize(4).optSeed(Seeds.derive(settings.seed(), stream, round))
        .build();
  }

  /**
   * The text of the reflective player's turns, prompts and answers, for a tiny tokenizer to learn the reflections'
   * words from (the same meta-episodes on every call).
   *
   * @return the text
   * @throws IllegalStateException when there is no reflective player
   */
  public String reflectiveCorpus() {
    if (reflectivePlayer.isEmpty()) {
      throw new IllegalStateException(rollouts.environmentId() + " has no reflective player");
    }
    StringBuilder sb = new StringBuilder();
    RolloutConfig c = rollouts.toBuilder().optTasks(8).optGroupSize(1).optSeed(Seeds.derive(settings.seed(), 16, 0))
        .build();
    try (LanguagePolicy p = provider.scriptedPolicy(reflectivePlayer, Seeds.derive(settings.seed(), 17, 0))) {
      for (MetaEpisode m : new MetaEpisodeRunner(registry).run(c, p).metaEpisodes()) {
        for (Turn t : m.turns()) {
          sb.append(t.prompt()).append('\n').append(t.response()).append('\n');
        }
      }
    }
    return sb.toString();
  }

  /**
   * Meta-episodes of the fixed line's {@link MixedScriptedPolicy} (the repeat share, but at least 1/2 so that later
   * attempts appear), for prompts to probe a model on; the same ones on every call.
   *
   * @param count how many (tasks of one meta-episode each)
   * @return the meta-episodes
   */
  public List<MetaEpisode> probeMetaEpisodes(int count) {
    RolloutConfig config = rollouts.toBuilder().optTasks(count).optGroupSize(1)
        .optSeed(Seeds.derive(settings.seed(), 14, 0)).build();
    try (LanguagePolicy mix = new MixedScriptedPolicy(provider, fixedLine, Seeds.derive(settings.seed(), 15, 0),
        Math.max(0.5, settings.repeatShare()))) {
      return new MetaEpisodeRunner(registry).run(config, mix).metaEpisodes();
    }
  }
}
