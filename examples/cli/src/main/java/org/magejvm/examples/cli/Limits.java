package org.magejvm.examples.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.magejvm.impl.llm.model.Qwen3Config;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Checks size-type options against sane bounds and against what the model (its {@code config.json}) and the heap
 * can hold, before anything large is allocated. A violation is a usage error: a {@link
 * CommandLine.ParameterException}, printed as one line with exit code 2.
 */
final class Limits {

  /** The most meta-episodes one command plays: each holds its own environment and transcript in memory. */
  static final int MAX_META_EPISODES = 65_536;
  /** The most response tokens asked for when no model says otherwise. */
  static final int MAX_NEW_TOKENS = 1 << 20;

  private Limits() {}

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
    if (value < min) {
      throw usage(spec, option + " must be >= " + min + ", got " + value);
    }
    if (value > max) {
      throw usage(spec, option + " must be <= " + max + " (" + why + "), got " + value);
    }
    return value;
  }

  /**
   * @param spec the command
   * @param metaEpisodes the value of {@code --meta-episodes} (or a like option)
   * @param option the option's name
   */
  static void metaEpisodes(CommandSpec spec, int metaEpisodes, String option) {
    range(spec, option, metaEpisodes, 1, MAX_META_EPISODES,
        "each meta-episode keeps its environment and transcript in memory");
  }

  /**
   * Reads a checkpoint's {@code config.json} only (no weights).
   *
   * @param model the checkpoint directory
   * @return its config
   */
  static Qwen3Config modelConfig(Path model) {
    if (!Files.isDirectory(model)) {
      throw new IllegalArgumentException("--model: " + model + (Files.exists(model) ? " is not a directory"
          : " does not exist"));
    }
    return Qwen3Config.fromFile(model.resolve("config.json"));
  }

  /**
   * Checks {@code --max-new-tokens}: at least 1, and at most the model's context when a model is given.
   *
   * @param spec the command
   * @param maxNewTokens the value
   * @param model the checkpoint directory, or null when no model runs
   */
  static void maxNewTokens(CommandSpec spec, int maxNewTokens, Path model) {
    if (model == null) {
      range(spec, "--max-new-tokens", maxNewTokens, 1, MAX_NEW_TOKENS, "a sane bound");
      return;
    }
    int context = modelConfig(model).maxPositionEmbeddings();
    range(spec, "--max-new-tokens", maxNewTokens, 1, context,
        "the model's context, max_position_embeddings in " + model.resolve("config.json"));
  }

  /**
   * Checks token ids for {@code mage logits}: count within the model's context and what the heap can hold of the
   * logits, and every id inside the vocabulary.
   *
   * @param spec the command
   * @param ids the ids
   * @param config the model's config
   * @param all whether every position's logits are kept
   */
  static void tokenIds(CommandSpec spec, List<Integer> ids, Qwen3Config config, boolean all) {
    range(spec, "--ids count", ids.size(), 1, config.maxPositionEmbeddings(),
        "the model's context, max_position_embeddings in config.json");
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
        throw usage(spec, "--ids: id " + id + " (position " + i + ") is outside the model's vocabulary [0, "
            + vocab + ")");
      }
    }
  }

  /**
   * @param spec the command
   * @param message one line
   * @return the usage error
   */
  static CommandLine.ParameterException usage(CommandSpec spec, String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
