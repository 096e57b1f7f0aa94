package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.magejvm.examples.lora.LoraTraining;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code mage lora}: the real-checkpoint example, {@link LoraTraining}, from the command line. */
@Command(name = "lora", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Train a LoRA adapter on a Qwen3 checkpoint directory with the MAGE preset (on the GPU when one"
        + " is present), evaluating before and after on the same seeds; or only evaluate with --iterations 0.",
        "The base weights stay frozen; the KL term compares with them by switching the adapter off (no second copy"
            + " of the model; docs/training.md)."})
final class LoraCommand implements Callable<Integer>, Limits.OptionPhase {

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "Hugging Face Qwen3 checkpoint directory (for example a download of Qwen/Qwen3-0.6B).")
  Path model;

  @Option(names = "--env", required = true, paramLabel = "ID",
      description = "Built-in environment: mage-tictactoe, mage-kuhn-poker or mage-sokoban (see `mage envs`).")
  String env;

  @Option(names = "--adapter", paramLabel = "DIR",
      description = "Continue from (or evaluate) a PEFT adapter saved earlier instead of a new one.")
  Path adapter;

  @Option(names = "--out", paramLabel = "DIR", description = "Where to save the trained adapter (PEFT layout).")
  Path out;

  @Option(names = "--iterations", paramLabel = "N", defaultValue = "10",
      description = "MAGE iterations; 0 only evaluates (default: ${DEFAULT-VALUE}).")
  int iterations;

  @Option(names = "--tasks", paramLabel = "B", defaultValue = "" + TrainingPreset.TRAINING_TASKS,
      description = "Task groups per iteration (default: ${DEFAULT-VALUE}, the preset's).")
  int tasks;

  @Option(names = "--group-size", paramLabel = "G", defaultValue = "8",
      description = "Meta-episodes per group (default: ${DEFAULT-VALUE}, the preset's).")
  int groupSize;

  @Option(names = "--eval-meta-episodes", paramLabel = "M", defaultValue = "" + TrainingPreset.EVALUATION_META_EPISODES,
      description = "Meta-episodes per evaluation (default: ${DEFAULT-VALUE}, the preset's).")
  int evalMetaEpisodes;

  @Option(names = "--max-new-tokens", paramLabel = "N", defaultValue = "512",
      description = "Response tokens per turn, in training and evaluation (default: ${DEFAULT-VALUE}; the spec"
          + " allows 3072 for Tic-Tac-Toe and 8192 for Kuhn Poker, with thinking on).")
  int maxNewTokens;

  @Option(names = "--lr", paramLabel = "X", defaultValue = "1e-5",
      description = "AdamW learning rate of the adapter (default: ${DEFAULT-VALUE}).")
  double learningRate;

  @Mixin LoraOptions lora;

  @Option(names = "--micro-batch", paramLabel = "TURNS", defaultValue = "8",
      description = "Turns per forward and backward pass; the gradients of each 64-turn minibatch accumulate"
          + " (default: ${DEFAULT-VALUE}).")
  int microBatch;

  @Option(names = "--prompt-style", paramLabel = "verbose|compact", defaultValue = "verbose",
      description = "Prompt style (default: ${DEFAULT-VALUE}).")
  String promptStyle;

  @Option(names = "--thinking",
      description = "Let the model think (the chat template's enable_thinking, as in the spec); off by default to"
          + " keep responses short.")
  boolean thinking;

  @Option(names = "--device", paramLabel = "auto|cpu|gpu[:N]", defaultValue = "auto",
      description = "auto: float16 on the first GPU when libtorch sees one, else float32 on the CPU; gpu[:N]: float16"
          + " on CUDA device N (default: ${DEFAULT-VALUE}); see docs/gpu.md.")
  String device;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Base seed (default: 0).")
  long seed;

  @Option(names = "--threads", paramLabel = "T", description = "libtorch threads (default: one per core).")
  Integer threads;

  @Mixin RemoteRolloutOptions remoteRollouts;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    org.magejvm.impl.openai.VllmAdapterLoader loader = remoteRollouts.validate(spec, true);
    if (loader != null && out == null && remoteRollouts.pushDir == null) {
      throw Limits.usage(spec, "--rollout-endpoint without --out needs --push-dir DIR (where the pushed adapters are"
          + " saved for the servers)");
    }
    if (!Files.isDirectory(model)) {
      throw new IllegalArgumentException("--model " + model + (Files.exists(model) ? " is not a directory"
          : " does not exist"));
    }
    if (adapter != null && !Files.isDirectory(adapter)) {
      throw new IllegalArgumentException("--adapter " + adapter + " does not exist");
    }
    org.magejvm.impl.llm.model.Qwen3Config c = Limits.modelConfig(model);
    String where = model.resolve(org.magejvm.impl.llm.model.Qwen3Config.FILE_NAME).toString();
    Limits.of(spec)
        .count("--iterations", iterations, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--tasks", tasks, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .count("--group-size", groupSize, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .metaEpisodes("--tasks x --group-size", tasks, groupSize)
        .count("--eval-meta-episodes", evalMetaEpisodes, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .tokens("--max-new-tokens", maxNewTokens, c.maxPositionEmbeddings(), where)
        .count("--micro-batch", microBatch, 1, Limits.MAX_META_EPISODES, Limits.SANE)
        .rank("--lora-rank", lora.rank, c.hiddenSize(), where)
        .count("--threads", threads, 1, Limits.MAX_THREADS, Limits.SANE)
        .check();
    LibtorchThreads.apply(threads);
    Qwen3Checkpoint.Options options = SftCommand.deviceOptions(device).withThinking(thinking).withSeed(seed);
    LoraTraining.Settings s = new LoraTraining.Settings(model, adapter, out, env, options, lora.toConfig(16, null),
        iterations, tasks, groupSize, evalMetaEpisodes, maxNewTokens, learningRate, microBatch,
        PlayCommand.parsePromptStyle(promptStyle), seed);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    try {
      registry.require(env);
    } catch (org.magejvm.api.plugin.PluginException e) {
      throw Limits.usage(spec, "--env: " + e.getMessage()); // an unknown environment is a usage error
    }
    Limits.endOfOptions();
    PrintWriter o = spec.commandLine().getOut();
    LoraTraining training = new LoraTraining(registry, o);
    List<AutoCloseable> remote = new ArrayList<>();
    if (loader != null) {
      Path pushBase = out == null ? null : out.toAbsolutePath().resolveSibling(out.getFileName() + "-pushed");
      training.optTrainerCustomizer((b, policy) -> remote.add(remoteRollouts.apply(b, policy, loader, pushBase)));
    }
    try {
      training.run(s);
    } finally {
      for (AutoCloseable r : remote) {
        try {
          r.close();
        } catch (Exception e) {
          spec.commandLine().getErr().println("warning: closing " + r + ": " + e.getMessage());
        }
      }
    }
    o.flush();
    return 0;
  }
}
