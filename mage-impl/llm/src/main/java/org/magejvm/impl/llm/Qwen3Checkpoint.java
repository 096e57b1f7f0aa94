package org.magejvm.impl.llm;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;
import org.magejvm.impl.llm.safetensors.TensorSource;
import org.magejvm.impl.llm.safetensors.TensorSources;

/**
 * Loads a Qwen3-family checkpoint directory in Hugging Face layout, exactly as a user downloads it:
 * {@code config.json}, {@code tokenizer.json}, {@code tokenizer_config.json}, and {@code model.safetensors} or the
 * shards listed in {@code model.safetensors.index.json}.
 *
 * <pre>{@code
 * try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(Path.of("Qwen3-0.6B"), Qwen3Checkpoint.Options.cpu())) {
 *   List<Generation> out = policy.generate(requests, SamplingConfig.evaluation(512));
 * }
 * }</pre>
 *
 * <p>The tiny checkpoint of the quick start ({@link TinyCheckpoint}) goes through the same code.
 * {@link #loadPolicy(Path, Options, Path)} also attaches a LoRA adapter saved in Hugging Face PEFT layout.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class Qwen3Checkpoint {

  private Qwen3Checkpoint() {}

  /**
   * How to load a checkpoint.
   *
   * @param device where the model runs ({@code Device.cpu()} or {@code Device.gpu()})
   * @param dtype FLOAT32 (the CPU default) or FLOAT16 (for GPUs; bf16 checkpoints are widened while loading)
   * @param kvCache whether generation uses the KV cache (always, except to measure what it saves)
   * @param seed the seed of the generator's own sampling stream, used when a {@code SamplingConfig} has none
   * @param enableThinking the chat template's {@code enable_thinking} switch
   * @param maxPromptTokens the longest prompt accepted after chat formatting
   * @param promptOverflow what to do with a longer prompt
   * @param nonFiniteWeights what to do with a weight tensor that holds NaN or infinite values: {@link
   *     NonFiniteCheck#REFUSE} (the default: a checkpoint of a diverged run is not loaded unnoticed), {@link
   *     NonFiniteCheck#WARN} or {@link NonFiniteCheck#ALLOW}
   */
  public record Options(
      Device device,
      DataType dtype,
      boolean kvCache,
      long seed,
      boolean enableThinking,
      int maxPromptTokens,
      DjlLanguagePolicy.PromptOverflow promptOverflow,
      NonFiniteCheck nonFiniteWeights) {

    /**
     * Validates.
     *
     * @param device device
     * @param dtype data type
     * @param kvCache KV cache on
     * @param seed sampling seed
     * @param enableThinking thinking switch
     * @param maxPromptTokens prompt limit
     * @param promptOverflow overflow handling
     * @param nonFiniteWeights what to do with non-finite weights
     */
    public Options {
      Objects.requireNonNull(device, "device");
      Objects.requireNonNull(dtype, "dtype");
      Objects.requireNonNull(promptOverflow, "promptOverflow");
      Objects.requireNonNull(nonFiniteWeights, "nonFiniteWeights");
      if (dtype != DataType.FLOAT32 && dtype != DataType.FLOAT16 && dtype != DataType.FLOAT64) {
        throw new IllegalArgumentException("dtype must be FLOAT32, FLOAT16 or FLOAT64, got " + dtype
            + (dtype == DataType.BFLOAT16 ? " (bfloat16 arrays abort the JVM on DJL's PyTorch engine)" : ""));
      }
      if (maxPromptTokens < 1) {
        throw new IllegalArgumentException("maxPromptTokens must be >= 1, got " + maxPromptTokens);
      }
    }

    /**
     * The options without a choice for non-finite weights, which are then refused (as before that choice existed).
     *
     * @param device device
     * @param dtype data type
     * @param kvCache KV cache on
     * @param seed sampling seed
     * @param enableThinking thinking switch
     * @param maxPromptTokens prompt limit
     * @param promptOverflow overflow handling
     */
    public Options(Device device, DataType dtype, boolean kvCache, long seed, boolean enableThinking,
        int maxPromptTokens, DjlLanguagePolicy.PromptOverflow promptOverflow) {
      this(device, dtype, kvCache, seed, enableThinking, maxPromptTokens, promptOverflow, NonFiniteCheck.REFUSE);
    }

    /**
     * @return float32 on the CPU, KV cache on, seed 0, thinking on, 4096 prompt tokens, overlong prompts fail,
     *     non-finite weights refused
     */
    public static Options cpu() {
      return new Options(Device.cpu(), DataType.FLOAT32, true, 0, true,
          DjlLanguagePolicy.DEFAULT_MAX_PROMPT_TOKENS, DjlLanguagePolicy.PromptOverflow.FAIL, NonFiniteCheck.REFUSE);
    }

    /** @return float16 on the first GPU, otherwise as {@link #cpu()} */
    public static Options gpu() {
      return cpu().withDevice(Device.gpu()).withDtype(DataType.FLOAT16);
    }

    /**
     * @param d the device
     * @return a copy running there
     */
    public Options withDevice(Device d) {
      return new Options(d, dtype, kvCache, seed, enableThinking, maxPromptTokens, promptOverflow, nonFiniteWeights);
    }

    /**
     * @param t the data type
     * @return a copy with that weight type
     */
    public Options withDtype(DataType t) {
      return new Options(device, t, kvCache, seed, enableThinking, maxPromptTokens, promptOverflow, nonFiniteWeights);
    }

    /**
     * @param on whether to use the KV cache
     * @return a copy
     */
    public Options withKvCache(boolean on) {
      return new Options(device, dtype, on, seed, enableThinking, maxPromptTokens, promptOverflow, nonFiniteWeights);
    }

    /**
     * @param s the sampling seed
     * @return a copy
     */
    public Options withSeed(long s) {
      return new Options(device, dtype, kvCache, s, enableThinking, maxPromptTokens, promptOverflow, nonFiniteWeights);
    }

    /**
     * @param on the enable_thinking switch
     * @return a copy
     */
    public Options withThinking(boolean on) {
      return new Options(device, dtype, kvCache, seed, on, maxPromptTokens, promptOverflow, nonFiniteWeights);
    }

    /**
     * @param limit the prompt-token limit
     * @param overflow what to do with longer prompts
     * @return a copy
     */
    public Options withPromptLimit(int limit, DjlLanguagePolicy.PromptOverflow overflow) {
      return new Options(device, dtype, kvCache, seed, enableThinking, limit, overflow, nonFiniteWeights);
    }

    /**
     * @param check what to do with weight tensors that hold NaN or infinite values
     * @return a copy
     */
    public Options withNonFiniteWeights(NonFiniteCheck check) {
      return new Options(device, dtype, kvCache, seed, enableThinking, maxPromptTokens, promptOverflow, check);
    }
  }

  /**
   * Loads the model of a checkpoint directory (config and weights, no tokenizer).
   *
   * @param dir the checkpoint directory
   * @param device where the model runs
   * @param dtype the weight type
   * @return the model; close it to free its native memory
   * @throws CheckpointException naming the file and tensor or field when the directory is incomplete or malformed
   */
  public static Qwen3Model loadModel(Path dir, Device device, DataType dtype) {
    return loadModel(dir, device, dtype, NonFiniteCheck.REFUSE);
  }

  /**
   * Loads the model of a checkpoint directory (config and weights, no tokenizer), choosing what happens to weight
   * tensors that hold NaN or infinite values ({@link #loadModel(Path, Device, DataType)} refuses them).
   *
   * @param dir the checkpoint directory
   * @param device where the model runs
   * @param dtype the weight type
   * @param nonFinite what to do with non-finite weights
   * @return the model; close it to free its native memory
   * @throws CheckpointException naming the file and tensor or field when the directory is incomplete or malformed,
   *     or (with {@link NonFiniteCheck#REFUSE}) a weight is not finite
   */
  public static Qwen3Model loadModel(Path dir, Device device, DataType dtype, NonFiniteCheck nonFinite) {
    requireDirectory(dir);
    Qwen3Config config = Qwen3Config.fromFile(dir);
    try (TensorSource source = TensorSources.openCheckpoint(dir)) {
      return Qwen3Model.load(source, config, device, dtype, nonFinite);
    }
  }

  /**
   * Loads a checkpoint directory as a {@link DjlLanguagePolicy}: model, tokenizer, the checkpoint's own chat
   * template and its stop tokens.
   *
   * @param dir the checkpoint directory
   * @param options how to load it
   * @return the policy; closing it frees the model and the tokenizer
   * @throws CheckpointException naming the file and tensor or field when the directory is incomplete or malformed
   */
  public static DjlLanguagePolicy loadPolicy(Path dir, Options options) {
    return loadPolicy(dir, options, null);
  }

  /**
   * Loads a checkpoint directory as a {@link DjlLanguagePolicy} whose model runs with a LoRA adapter in Hugging
   * Face PEFT layout ({@code adapter_config.json}, {@code adapter_model.safetensors}) attached.
   *
   * @param dir the base checkpoint directory
   * @param options how to load it
   * @param adapterDir the PEFT adapter directory, or null for the base model alone
   * @return the policy; closing it frees the model, the adapter and the tokenizer
   * @throws CheckpointException naming the file and tensor or field when a directory is incomplete or malformed, or
   *     the adapter does not fit the model
   */
  public static DjlLanguagePolicy loadPolicy(Path dir, Options options, Path adapterDir) {
    Objects.requireNonNull(options, "options");
    Qwen3Model model = loadModel(dir, options.device(), options.dtype(), options.nonFiniteWeights());
    LoraAdapter adapter = null;
    DjlLanguagePolicy policy;
    try {
      if (adapterDir != null) {
        adapter = PeftAdapters.load(adapterDir, model);
        model.setAdapter(adapter);
      }
      Qwen3Generator generator = Qwen3Generator.builder().setModel(model).optKvCache(options.kvCache())
          .optSeed(options.seed()).build();
      DjlLanguagePolicy.Builder builder = DjlLanguagePolicy.builderForCheckpoint(dir)
          .setGenerator(generator)
          .addOwnedResource(model);
      if (adapter != null) {
        builder.addOwnedResource(adapter);
      }
      policy = builder
          .optName(String.valueOf(dir.toAbsolutePath().normalize().getFileName()))
          .optEnableThinking(options.enableThinking())
          .optMaxPromptTokens(options.maxPromptTokens())
          .optModelContext(model.config().maxPositionEmbeddings())
          .optPromptOverflow(options.promptOverflow())
          .build();
    } catch (RuntimeException e) {
      if (adapter != null) {
        adapter.close();
      }
      model.close();
      throw e;
    }
    int tokenizerVocab = policy.tokenizer().vocabSize();
    if (tokenizerVocab > model.config().vocabSize()) {
      int vocab = model.config().vocabSize();
      Path tokenizerFile = policy.tokenizer().file();
      policy.close(); // also closes the model
      for (org.magejvm.impl.llm.text.AddedToken t : policy.tokenizer().addedTokens()) {
        if (t.id() >= vocab) {
          String shown = t.content().length() <= 40 ? t.content() : t.content().substring(0, 37) + "...";
          throw new CheckpointException(tokenizerFile + ": added token '" + shown + "' in 'added_tokens' has id "
              + t.id() + ", beyond the vocabulary of the weights (config.json vocab_size " + vocab + ")");
        }
      }
      throw new CheckpointException("the tokenizer in " + dir + " has " + tokenizerVocab
          + " token ids but config.json has vocab_size " + model.config().vocabSize()
          + "; the tokenizer and the weights belong to different models");
    }
    return policy;
  }

  /**
   * Tokenizes a prompt as {@code mage generate} sends it (raw, or as one user message through the checkpoint's chat
   * template with the generation prompt and {@code enable_thinking}, as {@link DjlLanguagePolicy#renderPrompt}
   * renders it) and checks that it fits the model's context, reading only {@code config.json}, {@code
   * tokenizer.json} and {@code tokenizer_config.json}: a prompt beyond the context is refused before any weight is
   * loaded. A prompt whose length in characters alone proves it too long is refused without being tokenized.
   *
   * @param dir the checkpoint directory
   * @param prompt the prompt text
   * @param chat whether to wrap it with the chat template
   * @param enableThinking the template's {@code enable_thinking} (unused for a raw prompt)
   * @return the prompt's token ids
   * @throws IllegalArgumentException with {@link Qwen3Config#promptTooLong}'s one line when the prompt is longer
   *     than {@code max_position_embeddings}
   * @throws CheckpointException when the config or tokenizer cannot be read
   */
  public static int[] encodePrompt(Path dir, String prompt, boolean chat, boolean enableThinking) {
    requireDirectory(dir);
    Objects.requireNonNull(prompt, "prompt");
    Qwen3Config config = Qwen3Config.fromFile(dir);
    String text = chat ? org.magejvm.impl.llm.text.ChatTemplates.forCheckpoint(dir).render(
        java.util.List.of(org.magejvm.impl.llm.text.ChatMessage.user(prompt)), true,
        java.util.Map.of("enable_thinking", enableThinking)) : prompt;
    try (org.magejvm.impl.llm.text.HfTokenizer tokenizer = org.magejvm.impl.llm.text.HfTokenizer.load(dir)) {
      long least = tokenizer.minTokens(text);
      if (least > config.maxPositionEmbeddings()) {
        throw new IllegalArgumentException(Qwen3Config.promptTooLong(least, text.length(),
            config.maxPositionEmbeddings()));
      }
      int[] ids = tokenizer.encode(text);
      config.checkPromptLength(ids.length);
      return ids;
    }
  }

  private static void requireDirectory(Path dir) {
    Objects.requireNonNull(dir, "dir");
    if (!Files.isDirectory(dir)) {
      if (Files.exists(dir)) {
        throw new CheckpointException("checkpoint directory " + dir + " is not a directory");
      }
      throw org.magejvm.impl.llm.checkpoint.CheckpointFiles.notFound(dir, "checkpoint directory " + dir
          + " does not exist");
    }
  }
}
