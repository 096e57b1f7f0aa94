package org.magejvm.examples.cli;

import ai.djl.ndarray.NDArray;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.finetune.LoraMerge;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.checkpoint.ModelSaver;
import org.magejvm.impl.train.supervised.SupervisedResult;
import org.magejvm.impl.train.supervised.SupervisedStep;
import org.magejvm.impl.train.supervised.SupervisedTrainer;
import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.impl.train.supervised.TranscriptReader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code mage sft}: supervised fine-tuning of a Qwen3 checkpoint on chat transcripts (the warm start before
 * reinforcement learning), with {@link SupervisedTrainer}: cross-entropy of the assistant turns' tokens, AdamW.
 *
 * <p>Full fine-tuning by default, which writes a complete Hugging Face checkpoint directory (float32 weights next to
 * copies of the source's config, tokenizer and chat template). With {@code --lora-rank} only a LoRA adapter trains;
 * it is written in PEFT layout, or, with {@code --merge}, folded into the weights and written as a plain checkpoint.
 *
 * <p>Exit code 0 on success, 1 on an error; user errors (a missing or malformed file, conflicting options) are one
 * line naming the file or the option.
 */
@Command(name = "sft", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Supervised fine-tuning (warm start) of a Qwen3 checkpoint on chat transcripts: cross-entropy on"
        + " the assistant turns' tokens only, with AdamW.",
        "Full fine-tuning by default (writes a Hugging Face checkpoint directory); --lora-rank trains a LoRA adapter"
            + " instead (writes a PEFT adapter, or with --merge the merged model)."})
final class SftCommand implements Callable<Integer>, Limits.OptionPhase {

  /** Learning rate of full fine-tuning when --lr is not given. */
  static final double DEFAULT_FULL_LR = 1e-5;
  /** Learning rate of LoRA when --lr is not given. */
  static final double DEFAULT_LORA_LR = 1e-4;

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "Hugging Face checkpoint directory to start from (config, safetensors, tokenizer).")
  Path model;

  @Option(names = "--data", required = true, paramLabel = "FILE.jsonl",
      description = "Chat transcripts, one {\"messages\": [...]} object per line (for example from"
          + " `mage transcripts`); every assistant message is one training example.")
  Path data;

  @Option(names = "--out", required = true, paramLabel = "DIR",
      description = "Where to write the result (created; must not be --model).")
  Path out;

  @Option(names = "--steps", paramLabel = "N",
      description = "Train for exactly N optimizer steps (reshuffling for every pass over the data).")
  Integer steps;

  @Option(names = "--epochs", paramLabel = "E",
      description = "Train for E passes over the data (default: 1 when --steps is not given).")
  Integer epochs;

  @Option(names = "--batch-size", paramLabel = "B", defaultValue = "8",
      description = "Examples per optimizer step (default: ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(names = "--lr", paramLabel = "X",
      description = "Peak learning rate (default: 1e-5 for full fine-tuning, 1e-4 for LoRA).")
  Double learningRate;

  @Option(names = "--warmup", paramLabel = "W", defaultValue = "0",
      description = "Linear warm-up steps to the peak learning rate (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--weight-decay", paramLabel = "WD", defaultValue = "0.01",
      description = "AdamW's decoupled weight decay (default: ${DEFAULT-VALUE}).")
  double weightDecay;

  /** What --max-length is when it is not given, cut to the model's context. */
  static final int DEFAULT_MAX_LENGTH = 4096;

  @Option(names = "--max-length", paramLabel = "TOKENS",
      description = "Longest example, prompt plus response tokens; longer ones are left out and counted"
          + " (default: 4096, or the model's context when that is shorter).")
  Integer maxLength;

  @Mixin LoraOptions lora;

  @Option(names = "--merge", description = "With --lora-rank: write the merged model instead of the adapter.")
  boolean merge;

  @Option(names = "--no-thinking",
      description = "Render prompts with enable_thinking=false, as a policy loaded with thinking off sees them.")
  boolean noThinking;

  @Option(names = "--device", paramLabel = "cpu|gpu[:N]|auto", defaultValue = "cpu",
      description = "Where to train: the CPU or CUDA device N (gpu is gpu:0); auto picks the first GPU when libtorch"
          + " sees one (default: ${DEFAULT-VALUE}); see docs/gpu.md.")
  String device;

  @Option(names = "--dtype", paramLabel = "float32|float16", defaultValue = "float32",
      description = "Weight type; full fine-tuning needs float32, LoRA may use float16 base weights on a GPU"
          + " (default: ${DEFAULT-VALUE}).")
  String dtype;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "0",
      description = "Seed of the shuffling and of the LoRA initialisation (default: 0).")
  long seed;

  @Option(names = "--threads", paramLabel = "T", description = "libtorch threads (default: one per core).")
  Integer threads;

  @Option(names = "--log-every", paramLabel = "K", defaultValue = "10",
      description = "Print the loss every K steps (default: ${DEFAULT-VALUE}).")
  int logEvery;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    checkOptions();
    PrintWriter o = spec.commandLine().getOut();
    LibtorchThreads.apply(threads);
    boolean useLora = lora.rank != null;
    double lr = learningRate != null ? learningRate : useLora ? DEFAULT_LORA_LR : DEFAULT_FULL_LR;
    Qwen3Checkpoint.Options options = deviceOptions(device).withDtype(ModelOptions.parseDtype(dtype)).withThinking(!noThinking)
        .withSeed(seed);
    LoraConfig loraConfig = useLora ? lora.toConfig(0, model.toAbsolutePath().normalize().toString()) : null;
    AdamWConfig adamWConfig = AdamWConfig.builder().optLearningRate(lr).optWarmupSteps(warmup)
        .optWeightDecay(weightDecay).build();
    Limits.endOfOptions();
    List<Transcript> transcripts = TranscriptReader.read(data);
    if (transcripts.isEmpty()) {
      throw new IllegalArgumentException(data + " holds no transcripts");
    }
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, options)) {
      Qwen3Model m = MageTrainer.modelOf(policy);
      LoraAdapter adapter = useLora ? LoraAdapter.create(m, loraConfig, seed) : null;
      try (FineTuning ft = useLora ? FineTuning.lora(m, adapter, FineTuning.KlReference.NONE)
          : FineTuning.full(m, FineTuning.KlReference.NONE)) {
        Map<String, NDArray> params = ft.trainableParameters();
        long count = 0;
        for (NDArray p : params.values()) {
          count += p.size();
        }
        o.printf(Locale.ROOT, "mage sft: %s, %d transcripts from %s; %s, %,d trainable parameters%n", model,
            transcripts.size(), data, useLora ? "LoRA r=" + loraConfig.rank() + " alpha=" + fmt(loraConfig.alpha())
                + " on " + targetNames(loraConfig) : "full fine-tuning", count);
        o.printf(Locale.ROOT, "%s, batch %d, lr %s, warm-up %d, weight decay %s, seed %d%n",
            steps != null ? steps + " steps" : (epochs == null ? 1 : epochs) + " epoch(s)", batchSize, fmt(lr),
            warmup, fmt(weightDecay), seed);
        o.flush();
        SupervisedTrainer.Builder b = SupervisedTrainer.builderFor(policy)
            .optParameters(params)
            .optOptimizerConfig(adamWConfig)
            .optBatchSize(batchSize)
            .optMaxSequenceLength(maxLength)
            .optEnableThinking(!noThinking)
            .optSeed(seed)
            .addListener(s -> onStep(o, s));
        if (steps != null) {
          b.optMaxSteps(steps).optEpochs(Integer.MAX_VALUE); // as many passes as the steps take
        } else {
          b.optEpochs(epochs == null ? 1 : epochs);
        }
        SupervisedResult result;
        try (SupervisedTrainer trainer = b.build()) {
          result = trainer.train(transcripts);
        }
        if (useLora) {
          adapter.requireGradients(false);
        } else {
          m.weights().requireGradients(false);
        }
        o.printf(Locale.ROOT, "%d examples (%d longer than %d tokens left out), %d steps: loss first %.4f, last"
            + " %.4f%n", result.examples(), result.droppedExamples(), maxLength, result.steps().size(),
            result.firstLoss(), result.lastLoss());
        save(o, m, adapter);
      } finally {
        if (adapter != null) {
          m.setAdapter(null);
          adapter.close();
        }
      }
    }
    o.flush();
    return 0;
  }

  private void checkOptions() {
    if (steps != null && epochs != null) {
      throw new IllegalArgumentException("give --steps or --epochs, not both");
    }
    if (merge && lora.rank == null) {
      throw new IllegalArgumentException("--merge needs --lora-rank (full fine-tuning always writes the whole model)");
    }
    if (!Files.isRegularFile(data)) {
      throw new IllegalArgumentException("--data " + data + (Files.exists(data) ? " is not a regular file"
          : " does not exist"));
    }
    if (!Files.isDirectory(model)) {
      throw new IllegalArgumentException("--model " + model + (Files.exists(model) ? " is not a directory"
          : " does not exist"));
    }
    Qwen3Config c = Limits.modelConfig(model);
    String where = model.resolve(Qwen3Config.FILE_NAME).toString();
    if (maxLength == null) {
      maxLength = Math.min(DEFAULT_MAX_LENGTH, c.maxPositionEmbeddings());
    }
    Limits.of(spec)
        .count("--steps", steps, 1, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--epochs", epochs, 1, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--batch-size", batchSize, 1, Limits.MAX_META_EPISODES, Limits.SANE)
        .count("--warmup", warmup, 0, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--log-every", logEvery, 1, Limits.MAX_ITERATIONS, Limits.SANE)
        .count("--max-length", maxLength, 2, c.maxPositionEmbeddings(),
            "the model's context, max_position_embeddings in " + where)
        .rank("--lora-rank", lora.rank, c.hiddenSize(), where)
        .count("--threads", threads, 1, Limits.MAX_THREADS, Limits.SANE)
        .check();
    if (Files.exists(out)) {
      try {
        if (Files.isSameFile(out, model)) {
          throw new IllegalArgumentException("--out " + out + " is the --model directory; writing there would"
              + " replace the checkpoint being trained");
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("--out " + out + ": " + e.getMessage(), e);
      }
      if (lora.rank == null && (Files.exists(out.resolve("model.safetensors"))
          || Files.exists(out.resolve("model.safetensors.index.json")))) {
        throw new IllegalArgumentException("--out " + out + " already holds a model; choose a new directory (a saved"
            + " model is never written over)");
      }
    }
  }

  private void onStep(PrintWriter o, SupervisedStep s) {
    if (s.step() == 1 || s.step() % logEvery == 0 || (steps != null && s.step() == steps)) {
      o.printf(Locale.ROOT, "step %5d%s  epoch %3d  loss %.4f  lr %.2e  grad_norm %.3f%s%n", s.step(),
          steps != null ? "/" + steps : "", s.epoch(), s.loss(), s.optimizer().learningRate(),
          s.optimizer().gradNorm(), s.optimizer().skipped() ? "  (skipped: gradient not finite)" : "");
      o.flush();
    }
  }

  private void save(PrintWriter o, Qwen3Model m, LoraAdapter adapter) {
    if (adapter == null) {
      ModelSaver.save(m, model, out);
      o.println("saved the fine-tuned model (float32) to " + out + "; load it like any checkpoint, for example"
          + " `mage play --model " + out + "`");
    } else if (merge) {
      LoraMerge.exportMerged(m, adapter, out, model);
      o.println("saved the merged model (float32) to " + out);
    } else {
      PeftAdapters.save(adapter, out);
      o.println("saved the LoRA adapter (PEFT layout) to " + out + "; it applies to the base model " + model);
    }
  }

  private static String targetNames(LoraConfig c) {
    StringBuilder sb = new StringBuilder();
    c.targetModules().forEach(p -> sb.append(sb.length() == 0 ? "" : ",").append(p.moduleName()));
    return sb.toString();
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.6g", v).replaceAll("\\.?0+(e|$)", "$1");
  }

  /**
   * @param device cpu, gpu, gpu:N or auto (the first GPU when libtorch sees one, else the CPU), read by the parser
   *     every command shares ({@link ModelOptions#parseDevice})
   * @return {@link Qwen3Checkpoint.Options#cpu()}, or {@link Qwen3Checkpoint.Options#gpu()} on that GPU
   * @throws IllegalArgumentException naming {@code --device} when the value is unknown
   * @throws IllegalStateException naming {@code --device} when it names a GPU the engine does not see
   */
  static Qwen3Checkpoint.Options deviceOptions(String device) {
    return ModelOptions.options(ModelOptions.parseDevice("--device", device, true));
  }
}
