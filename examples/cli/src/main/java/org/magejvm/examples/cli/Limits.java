package org.magejvm.examples.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Config;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Checks size-type options against sane bounds and against what the model (its {@code config.json}) and the heap
 * can hold, before anything large is allocated; every command uses it the same way:
 *
 * <pre>{@code
 * Limits.of(spec)
 *     .count("--iterations", iterations, 0, Limits.MAX_ITERATIONS, Limits.SANE)
 *     .tokens("--max-new-tokens", maxNewTokens, config)
 *     .check();
 * }</pre>
 *
 * <p>Each violation is one line; {@link #check()} throws them all at once as a {@link
 * CommandLine.ParameterException}, which {@link MageCli} prints as one {@code error:} line per violation with exit
 * code 2. An option that was not given ({@code null}) is not checked.
 *
 * <p>The option phase: in a command that implements {@link OptionPhase}, until it calls {@link #endOfOptions()}, an
 * {@link IllegalArgumentException} it throws (a builder refusing an option's value, a {@code --model} that does not
 * exist) is a usage error too (exit 2); after it, an {@link IllegalArgumentException} is a run-time failure (exit 1)
 * like any other exception. In other commands every {@link IllegalArgumentException} is a run-time failure.
 */
final class Limits {

  /**
   * Marks a command whose {@link IllegalArgumentException}s are usage errors until it calls {@link #endOfOptions()}.
   */
  interface OptionPhase {}

  /** The most meta-episodes one rollout plays: each holds its own environment and transcript in memory. */
  static final int MAX_META_EPISODES = 65_536;
  /** The most response tokens asked for when no model says otherwise. */
  static final int MAX_NEW_TOKENS = 1 << 20;
  /** The most training iterations (or supervised steps) of one run. */
  static final int MAX_ITERATIONS = 10_000_000;
  /** The most libtorch threads. */
  static final int MAX_THREADS = 1024;
  /** The most episodes of one meta-episode. */
  static final int MAX_EPISODES = 1024;
  /** The most play turns of one episode. */
  static final int MAX_TURNS = 65_536;
  /** The least heap one recorded turn takes (its prompt, response, token ids and log-probabilities). */
  static final long TURN_BYTES = 1024;
  /** The context of the {@code --tiny} model and the quick start's ({@link TinyCheckpoint}). */
  static final int TINY_CONTEXT = TinyCheckpoint.MAX_POSITION_EMBEDDINGS;
  /** The hidden size of the {@code --tiny} model and the quick start's. */
  static final int TINY_HIDDEN = TinyCheckpoint.Spec.small("", 0).hiddenSize();
  /** The most training examples (warm-start turns) generated up front. */
  static final int MAX_EXAMPLES = 10_000_000;
  /** The most seeds of one experiment. */
  static final int MAX_SEEDS = 1000;
  /** The most checkpoints kept. */
  static final int MAX_KEEP = 100_000;
  /** The reason given for a bound that is not about memory. */
  static final String SANE = "a sane bound";
  /** The reason given for a bound on meta-episodes. */
  static final String MEMORY = "each meta-episode keeps its environment and transcript in memory";

  private static final ThreadLocal<Boolean> RUNNING = ThreadLocal.withInitial(() -> Boolean.FALSE);

  private final CommandSpec spec;
  private final List<String> errors = new ArrayList<>();

  private Limits(CommandSpec spec) {
    this.spec = spec;
  }

  /**
   * @param spec the command, for the error
   * @return a checker collecting violations
   */
  static Limits of(CommandSpec spec) {
    return new Limits(spec);
  }

  /**
   * Checks a count.
   *
   * @param option the option's name
   * @param value its value, or null when not given (not checked)
   * @param min the least allowed
   * @param max the most allowed
   * @param why what the upper bound is, for the message
   * @return this
   */
  Limits count(String option, Number value, long min, long max, String why) {
    if (value == null) {
      return this;
    }
    long v = value.longValue();
    if (v < min) {
      errors.add(option + " must be >= " + min + ", got " + v);
    } else if (v > max) {
      errors.add(option + " must be <= " + max + " (" + why + "), got " + v);
    }
    return this;
  }

  /**
   * Checks a token count against a model's context ({@code max_position_embeddings}).
   *
   * @param option the option's name
   * @param value its value, or null when not given
   * @param context the model's context, or 0 when no model is known ({@link #MAX_NEW_TOKENS} applies)
   * @param where where the context comes from, for the message
   * @return this
   */
  Limits tokens(String option, Integer value, int context, String where) {
    return context > 0 ? count(option, value, 1, context, "the model's context, max_position_embeddings in " + where)
        : count(option, value, 1, MAX_NEW_TOKENS, SANE);
  }

  /**
   * Checks a token count against a model's context.
   *
   * @param option the option's name
   * @param value its value, or null when not given
   * @param model the checkpoint directory
   * @return this
   */
  Limits tokens(String option, Integer value, Path model) {
    return value == null ? this : tokens(option, value, modelConfig(model).maxPositionEmbeddings(),
        model.resolve(Qwen3Config.FILE_NAME).toString());
  }

  /**
   * Checks a LoRA rank: at least 1 and at most the model's hidden size (a larger rank adds nothing a full update
   * could not, and its adapter would outgrow the weights).
   *
   * @param option the option's name
   * @param rank the rank, or null when not given
   * @param hiddenSize the model's hidden size
   * @param where where the hidden size comes from
   * @return this
   */
  Limits rank(String option, Integer rank, int hiddenSize, String where) {
    return count(option, rank, 1, hiddenSize, "the model's hidden_size in " + where);
  }

  /**
   * Checks how many meta-episodes one rollout plays, given as a product of options (computed without overflow).
   *
   * @param what the options, for example {@code "--tasks x --group-size"}
   * @param factors the factors; null ones count as 1 (not given)
   * @return this
   */
  Limits metaEpisodes(String what, Integer... factors) {
    long product = 1;
    for (Integer f : factors) {
      if (f == null || f < 1) {
        continue;
      }
      if (f > MAX_META_EPISODES) {
        return this; // that factor's own bound says it
      }
      product *= f;
    }
    if (product > MAX_META_EPISODES) {
      errors.add(what + " must be <= " + MAX_META_EPISODES + " meta-episodes (each keeps its environment and"
          + " transcript in memory), got " + product);
    }
    return this;
  }

  /**
   * Checks that what a rollout records fits the heap: at least {@link #TURN_BYTES} per play turn.
   *
   * @param what the options, for the message
   * @param metaEpisodes meta-episodes
   * @param episodes episodes per meta-episode
   * @param maxTurns play turns per episode
   * @return this
   */
  Limits turns(String what, long metaEpisodes, long episodes, long maxTurns) {
    double turns = (double) metaEpisodes * episodes * maxTurns;
    long heap = Runtime.getRuntime().maxMemory();
    if (turns * TURN_BYTES > heap / 2.0) {
      errors.add(String.format(Locale.ROOT, "%s: %d meta-episodes x %d episodes x %d turns can record %.3g turns,"
          + " at least %.1f GiB, more than half the heap (%.1f GiB); ask for less or raise -Xmx (MAGE_JAVA_OPTS)",
          what, metaEpisodes, episodes, maxTurns, turns, turns * TURN_BYTES / (1L << 30),
          heap / (double) (1L << 30)));
    }
    return this;
  }

  /**
   * Adds a violation found elsewhere.
   *
   * @param message one line
   * @return this
   */
  Limits error(String message) {
    errors.add(message);
    return this;
  }

  /**
   * @throws CommandLine.ParameterException listing every violation, one per line, when there is any
   */
  void check() {
    if (!errors.isEmpty()) {
      throw usage(spec, String.join("\n", errors));
    }
  }

  /**
   * Marks the end of a command's option phase on this thread: from now on an {@link IllegalArgumentException} is a
   * run-time failure (exit 1), not a usage error.
   */
  static void endOfOptions() {
    RUNNING.set(Boolean.TRUE);
  }

  /** @return whether the running command has passed {@link #endOfOptions()} */
  static boolean pastOptions() {
    return RUNNING.get();
  }

  /** Starts a new command on this thread (its option phase). */
  static void startCommand() {
    RUNNING.set(Boolean.FALSE);
  }

  /**
   * @param spec the command, for the error
   * @param option the option's name
   * @param value its value
   * @param min the least allowed
   * @param max the most allowed
   * @param why what the upper bound is, for the message
   * @return the value
   * @throws CommandLine.ParameterException outside {@code [min, max]}
   */
  static long range(CommandSpec spec, String option, long value, long min, long max, String why) {
    of(spec).count(option, value, min, max, why).check();
    return value;
  }

  /**
   * Checks {@code --step-timeout}: seconds in (0, 86400].
   *
   * @param spec the command
   * @param seconds the value, or null when not given
   * @return the timeout, empty when not given
   */
  static Optional<Duration> stepTimeout(CommandSpec spec, Double seconds) {
    if (seconds == null) {
      return Optional.empty();
    }
    if (!(seconds > 0) || seconds > 86_400) {
      throw usage(spec, "--step-timeout must be in (0, 86400] seconds, got " + seconds);
    }
    return Optional.of(Duration.ofMillis(Math.max(1, Math.round(seconds * 1000))));
  }

  /**
   * Reads a checkpoint's {@code config.json} only (no weights).
   *
   * @param model the checkpoint directory
   * @return its config
   * @throws IllegalArgumentException naming {@code --model} when the directory is missing
   */
  static Qwen3Config modelConfig(Path model) {
    if (!Files.isDirectory(model)) {
      throw new IllegalArgumentException("--model: " + model + (Files.exists(model) ? " is not a directory"
          : " does not exist"));
    }
    return Qwen3Config.fromFile(model.resolve(Qwen3Config.FILE_NAME));
  }

  /**
   * Checks {@code --max-new-tokens}: at least 1, and at most the model's context when a model is given.
   *
   * @param spec the command
   * @param maxNewTokens the value
   * @param model the checkpoint directory, or null when no model runs
   */
  static void maxNewTokens(CommandSpec spec, int maxNewTokens, Path model) {
    Limits l = of(spec);
    if (model == null) {
      l.tokens("--max-new-tokens", maxNewTokens, 0, "");
    } else {
      l.tokens("--max-new-tokens", maxNewTokens, model);
    }
    l.check();
  }

  /**
   * Checks token ids for {@code mage logits}: count within the model's context and what the heap can hold of the
   * logits, and every id inside the vocabulary.
   *
   * @param spec the command
   * @param ids the ids
   * @param config the model's config
   * @param modelDir the model's directory, or null (to tell a wrong {@code vocab_size} in its config.json from a
   *     wrong id)
   * @param all whether every position's logits are kept
   * @throws org.magejvm.impl.llm.checkpoint.CheckpointException naming config.json when its vocab_size is smaller
   *     than the weights' embedding
   */
  static void tokenIds(CommandSpec spec, List<Integer> ids, Qwen3Config config, java.nio.file.Path modelDir,
      boolean all) {
    try {
      config.checkPromptLength(ids.size());
    } catch (IllegalArgumentException e) {
      throw usage(spec, "--ids: " + e.getMessage());
    }
    long vocab = config.vocabSize();
    // the model returns (1, T, V) logits; they are copied to the heap as floats, and once more per kept row
    long bytes = ids.size() * vocab * Float.BYTES * (all ? 2 : 1);
    long heap = Runtime.getRuntime().maxMemory();
    if (bytes > heap / 2) {
      throw usage(spec, String.format(Locale.ROOT, "--ids: the logits of %d positions over a vocabulary of %d need"
          + " %.1f GiB, more than half the heap (%.1f GiB); pass fewer ids or raise -Xmx (MAGE_JAVA_OPTS)",
          ids.size(), vocab, bytes / (double) (1L << 30), heap / (double) (1L << 30)));
    }
    for (int i = 0; i < ids.size(); i++) {
      int id = ids.get(i);
      if (id < 0 || id >= vocab) {
        long rows = modelDir == null ? -1 : embeddingRows(modelDir);
        if (rows > vocab) {
          throw new org.magejvm.impl.llm.checkpoint.CheckpointException(modelDir.resolve("config.json")
              + ": vocab_size " + vocab + " disagrees with the weights (model.embed_tokens.weight in "
              + modelDir.resolve("model.safetensors") + " has " + rows + " rows); the config.json is wrong, not"
              + " --ids");
        }
        throw usage(spec, "--ids: id " + id + " (position " + i + ") is outside the model's vocabulary [0, "
            + vocab + ") (vocab_size in " + (modelDir == null ? "config.json" : modelDir.resolve("config.json"))
            + ")");
      }
    }
  }

  /**
   * @param modelDir a model directory
   * @return the rows of its single-file {@code model.safetensors}'s {@code model.embed_tokens.weight}, read from the
   *     header alone, or -1 when there is no such file or tensor (a sharded or unreadable checkpoint)
   */
  private static long embeddingRows(java.nio.file.Path modelDir) {
    java.nio.file.Path file = modelDir.resolve("model.safetensors");
    if (!java.nio.file.Files.isRegularFile(file)) {
      return -1;
    }
    try (org.magejvm.impl.llm.safetensors.SafetensorsFile f = org.magejvm.impl.llm.safetensors.SafetensorsFile
        .open(file)) {
      String name = "model.embed_tokens.weight";
      return f.names().contains(name) ? f.info(name).shape()[0] : -1;
    } catch (RuntimeException e) {
      return -1; // the load that follows names what is wrong with the file
    }
  }

  /**
   * Checks that a directory option names a folder or nothing yet (it is created then).
   *
   * @param spec the command
   * @param option the option's name
   * @param dir its value
   * @throws CommandLine.ParameterException naming the option when it names something that is not a folder
   */
  static void requireFolder(CommandSpec spec, String option, java.nio.file.Path dir) {
    if (java.nio.file.Files.exists(dir) && !java.nio.file.Files.isDirectory(dir)) {
      throw usage(spec, option + " " + dir + " is a file, not a folder; name a folder (it is created if missing)");
    }
  }

  /**
   * @param spec the command
   * @param message one line per error
   * @return the usage error
   */
  static CommandLine.ParameterException usage(CommandSpec spec, String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
