package org.magejvm.impl.train.supervised;

import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.StepReport;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Random;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.generate.Recompute;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.text.ChatMessage;
import org.magejvm.impl.llm.text.ChatTemplate;
import org.magejvm.impl.llm.text.HfTokenizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.magejvm.api.annotation.Api;

/**
 * Supervised warm start: teaches the model the assistant turns of chat transcripts by minimising the cross-entropy
 * of the response tokens, with {@link AdamW}.
 *
 * <p><b>Examples.</b> Every assistant message of a transcript becomes one example, tokenized exactly as {@link
 * DjlLanguagePolicy} presents a turn to the model and as the generator returns the answer:
 *
 * <ul>
 *   <li>prompt = the chat template's rendering of the messages before the assistant message, with the generation
 *       prompt ({@code add_generation_prompt=True}) and the template variable {@code enable_thinking} (default
 *       {@code true}, the policy's default), tokenized by the same tokenizer;
 *   <li>response = the assistant content, tokenized on its own, followed by the end-of-turn stop token (for ChatML,
 *       {@code <|im_end|>}): what the policy's generator emits before it stops.
 * </ul>
 *
 * An assistant message needs at least one message before it. Examples longer than the maximum sequence length
 * (prompt plus response) are left out and counted, with a warning.
 *
 * <p><b>Steps.</b> Each epoch shuffles the examples with a {@link Random} seeded once from the builder's seed (so a
 * trainer given the same seed, model and transcripts repeats itself exactly) and cuts them into batches; the last
 * batch of an epoch may be smaller. For each batch, {@link TeacherForcing} scores the responses inside a DJL {@code
 * GradientCollector}; the loss is the token mean over the whole batch, {@code -sum(log p) / (number of response
 * tokens)}, and one {@link AdamW#step()} follows (which also zeroes the gradients). Listeners hear about every step.
 *
 * <p>The trainer switches gradients on for the trainable parameters when it is built. It owns its optimizer
 * ({@link #optimizer()}, to save or restore its state) and closes it on {@link #close()}; the model and the tokenizer
 * stay the caller's. Not thread-safe.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class SupervisedTrainer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SupervisedTrainer.class);

  /** Receives a report after every optimizer step. */
  @FunctionalInterface
  public interface Listener {
    /**
     * Called after each step.
     *
     * @param step what the step did
     */
    void onStep(SupervisedStep step);
  }

  /** The default number of examples per optimizer step. */
  public static final int DEFAULT_BATCH_SIZE = 8;
  /** The default longest example (prompt plus response tokens). */
  public static final int DEFAULT_MAX_SEQUENCE_LENGTH = 4096;

  private final Qwen3Model model;
  private final HfTokenizer tokenizer;
  private final ChatTemplate template;
  private final int stopTokenId;
  private final Map<String, Object> templateVariables;
  private final int batchSize;
  private final int epochs;
  private final boolean epochsSet;
  private final int maxSteps;
  private final int maxSequenceLength;
  private final List<Listener> listeners;
  private final Random shuffle;
  private final TeacherForcing scorer;
  private final AdamW optimizer;

  private SupervisedTrainer(Builder b, int stopTokenId, Map<String, NDArray> trainable) {
    this.model = b.model;
    this.tokenizer = b.tokenizer;
    this.template = b.template;
    this.stopTokenId = stopTokenId;
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put(ChatTemplate.ENABLE_THINKING, b.enableThinking);
    this.templateVariables = Collections.unmodifiableMap(vars);
    this.batchSize = b.batchSize;
    this.epochs = b.epochs;
    this.epochsSet = b.epochsSet;
    this.maxSteps = b.maxSteps;
    this.maxSequenceLength = b.maxSequenceLength;
    this.listeners = List.copyOf(b.listeners);
    this.shuffle = new Random(b.seed);
    // long examples recompute where the activations would reach 1 GiB; step() completes the backward pass
    this.scorer = new TeacherForcing(model).withRecompute(Recompute.AUTO, Recompute.AUTO);
    for (NDArray p : trainable.values()) {
      p.setRequiresGradient(true);
    }
    this.optimizer = new AdamW(trainable, b.optimizerConfig);
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder with the tokenizer, chat template and stop token of a policy (its first stop token, which for a
   * checkpoint is the template's end-of-turn token) and, when the policy generates with a {@link Qwen3Generator},
   * its model. The policy's {@code enable_thinking} setting is not visible from outside: set {@link
   * Builder#optEnableThinking} to match it when it is not the default.
   *
   * @param policy the policy whose pieces to train with
   * @return the builder
   */
  public static Builder builderFor(DjlLanguagePolicy policy) {
    Objects.requireNonNull(policy, "policy");
    Builder b = builder().setTokenizer(policy.tokenizer()).setChatTemplate(policy.chatTemplate())
        .optStopTokenId(policy.stopTokenIds().iterator().next());
    if (policy.generator() instanceof Qwen3Generator g) {
      b.setModel(g.model());
    }
    return b;
  }

  /** @return the optimizer (to save or restore its state; do not close it) */
  public AdamW optimizer() {
    return optimizer;
  }

  /** @return the token that ends every response */
  public int stopTokenId() {
    return stopTokenId;
  }

  /**
   * Tokenizes the assistant turns of transcripts into examples, as {@link #train} does, without dropping long
   * ones.
   *
   * @param transcripts the transcripts
   * @return one example per assistant message, in transcript and message order
   * @throws IllegalArgumentException naming the transcript and message when an assistant message comes first
   */
  public List<SupervisedExample> tokenize(List<Transcript> transcripts) {
    return tokenize(transcripts, tokenizer, template, templateVariables, stopTokenId);
  }

  /**
   * Tokenizes the assistant turns of transcripts with the given pieces, as {@link #tokenize(List)} does with a
   * trainer's: each prompt is the conversation before the turn rendered by the chat template (generation prompt
   * added), each response the turn's content followed by the stop token. For a policy, pass its tokenizer, chat
   * template, template variables and first stop token to get the turns as it sees them.
   *
   * @param transcripts the transcripts
   * @param tokenizer the tokenizer
   * @param template the chat template
   * @param templateVariables the template's variables ({@code enable_thinking}, say)
   * @param stopTokenId the token that ends every response
   * @return one example per assistant message, in transcript and message order
   * @throws IllegalArgumentException naming the transcript and message when an assistant message comes first
   */
  public static List<SupervisedExample> tokenize(List<Transcript> transcripts, HfTokenizer tokenizer,
      ChatTemplate template, Map<String, Object> templateVariables, int stopTokenId) {
    Objects.requireNonNull(transcripts, "transcripts");
    List<SupervisedExample> out = new ArrayList<>();
    for (int t = 0; t < transcripts.size(); t++) {
      List<ChatMessage> messages = transcripts.get(t).messages();
      for (int i = 0; i < messages.size(); i++) {
        ChatMessage m = messages.get(i);
        if (!m.role().equals(Transcript.ASSISTANT)) {
          continue;
        }
        if (i == 0) {
          throw new IllegalArgumentException("transcript " + t + " starts with an assistant message; an assistant "
              + "turn needs at least one message before it to form its prompt");
        }
        String prompt = template.render(messages.subList(0, i), true, templateVariables);
        int[] promptIds = tokenizer.encode(prompt);
        int[] content = tokenizer.encode(m.content());
        int[] response = new int[content.length + 1];
        System.arraycopy(content, 0, response, 0, content.length);
        response[content.length] = stopTokenId;
        out.add(new SupervisedExample(t, i, promptIds, response));
      }
    }
    return out;
  }

  /**
   * Trains on the assistant turns of the transcripts. With a step count ({@link Builder#optMaxSteps}) and no epoch
   * count it takes exactly that many optimizer steps, passing over the examples as often as that needs; with both it
   * takes exactly the step count when the epochs hold that many steps and refuses otherwise, before any step; with
   * an epoch count alone it takes that many passes.
   *
   * @param transcripts the transcripts
   * @return the steps and example counts
   * @throws IllegalArgumentException when no example fits the length limit, when the epochs set with {@link
   *     Builder#optEpochs} hold fewer steps than {@link Builder#optMaxSteps} asks for (saying both counts), or as
   *     {@link #tokenize}
   * @throws IllegalStateException when the trainer is closed
   */
  public SupervisedResult train(List<Transcript> transcripts) {
    List<SupervisedExample> all = tokenize(transcripts);
    List<SupervisedExample> examples = new ArrayList<>(all.size());
    for (SupervisedExample e : all) {
      if (e.length() <= maxSequenceLength) {
        examples.add(e);
      }
    }
    int dropped = all.size() - examples.size();
    if (dropped > 0) {
      LOG.warn("supervised training: {} of {} assistant turns are longer than maxSequenceLength={} tokens and are "
          + "left out", dropped, all.size(), maxSequenceLength);
    }
    if (examples.isEmpty()) {
      throw new IllegalArgumentException(all.isEmpty() ? "the transcripts hold no assistant message to train on"
          : "no assistant turn fits maxSequenceLength=" + maxSequenceLength + " (" + all.size() + " dropped)");
    }
    int perEpoch = (examples.size() + batchSize - 1) / batchSize;
    int passes = epochs;
    if (maxSteps > 0 && !epochsSet) {
      passes = Integer.MAX_VALUE; // exactly maxSteps steps, as many passes as they take
    } else if (maxSteps > 0 && (long) epochs * perEpoch < maxSteps) {
      throw new IllegalArgumentException("optMaxSteps(" + maxSteps + ") with optEpochs(" + epochs + "): "
          + epochs + " epoch(s) of " + examples.size() + " examples in batches of " + batchSize + " hold only "
          + (long) epochs * perEpoch + " steps; raise optEpochs, or leave it unset to train exactly " + maxSteps
          + " steps");
    }
    List<SupervisedStep> steps = new ArrayList<>();
    List<Integer> order = new ArrayList<>(examples.size());
    for (int i = 0; i < examples.size(); i++) {
      order.add(i);
    }
    int step = 0;
    for (int epoch = 1; epoch <= passes && (maxSteps == 0 || step < maxSteps); epoch++) {
      Collections.shuffle(order, shuffle);
      for (int start = 0; start < order.size() && (maxSteps == 0 || step < maxSteps); start += batchSize) {
        List<SupervisedExample> batch = new ArrayList<>(batchSize);
        for (int k = start; k < Math.min(order.size(), start + batchSize); k++) {
          batch.add(examples.get(order.get(k)));
        }
        SupervisedStep s = step(epoch, ++step, batch);
        steps.add(s);
        for (Listener l : listeners) {
          l.onStep(s);
        }
      }
    }
    return new SupervisedResult(examples.size(), dropped, steps);
  }

  private SupervisedStep step(int epoch, int step, List<SupervisedExample> batch) {
    List<int[]> prompts = new ArrayList<>(batch.size());
    List<int[]> responses = new ArrayList<>(batch.size());
    int tokens = 0;
    for (SupervisedExample e : batch) {
      prompts.add(e.promptIds());
      int[] r = e.responseIds();
      responses.add(r);
      tokens += r.length;
    }
    double loss;
    try (NDManager m = model.newManager();
        GradientCollector gc = model.weights().manager().getEngine().newGradientCollector()) {
      TokenScores scores = scorer.score(m, prompts, responses, 1.0, false);
      NDArray mean = scores.logProbs().sum().neg().div(tokens);
      gc.backward(mean);
      scores.completeBackward(gc);
      loss = mean.toType(DataType.FLOAT64, false).getDouble();
    }
    StepReport report = optimizer.step();
    return new SupervisedStep(epoch, step, batch.size(), tokens, loss, report);
  }

  /** Closes the optimizer (the model, tokenizer and parameters stay open). Idempotent. */
  @Override
  public void close() {
    optimizer.close();
  }

  /** Builds a {@link SupervisedTrainer}: the model, tokenizer and chat template are required. */
  public static final class Builder {
    private Qwen3Model model;
    private HfTokenizer tokenizer;
    private ChatTemplate template;
    private Map<String, NDArray> parameters;
    private AdamWConfig optimizerConfig = AdamWConfig.defaults();
    private int batchSize = DEFAULT_BATCH_SIZE;
    private int epochs = 1;
    private boolean epochsSet;
    private int maxSteps;
    private long seed;
    private int maxSequenceLength = DEFAULT_MAX_SEQUENCE_LENGTH;
    private boolean enableThinking = true;
    private OptionalInt stopTokenId = OptionalInt.empty();
    private final List<Listener> listeners = new ArrayList<>();

    private Builder() {}

    /**
     * @param m the model to train
     * @return this builder
     */
    public Builder setModel(Qwen3Model m) {
      this.model = Objects.requireNonNull(m, "model");
      return this;
    }

    /**
     * @param t the model's tokenizer
     * @return this builder
     */
    public Builder setTokenizer(HfTokenizer t) {
      this.tokenizer = Objects.requireNonNull(t, "tokenizer");
      return this;
    }

    /**
     * @param t the model's chat template
     * @return this builder
     */
    public Builder setChatTemplate(ChatTemplate t) {
      this.template = Objects.requireNonNull(t, "template");
      return this;
    }

    /**
     * @param p the parameters to train, by name (default: all of the model's, {@code weights().parameters()});
     *     gradients are switched on for them when the trainer is built
     * @return this builder
     */
    public Builder optParameters(Map<String, NDArray> p) {
      this.parameters = Objects.requireNonNull(p, "parameters");
      return this;
    }

    /**
     * @param c the optimizer settings (default {@link AdamWConfig#defaults()}: the reference's RL learning rate of
     *     1e-6, which is low for supervised training)
     * @return this builder
     */
    public Builder optOptimizerConfig(AdamWConfig c) {
      this.optimizerConfig = Objects.requireNonNull(c, "optimizer config");
      return this;
    }

    /**
     * @param n examples per optimizer step (default {@value SupervisedTrainer#DEFAULT_BATCH_SIZE})
     * @return this builder
     */
    public Builder optBatchSize(int n) {
      this.batchSize = n;
      return this;
    }

    /**
     * @param n passes over the examples per {@link SupervisedTrainer#train} call (default 1, or as many as {@link
     *     #optMaxSteps} needs when only that is set)
     * @return this builder
     */
    public Builder optEpochs(int n) {
      this.epochs = n;
      this.epochsSet = true;
      return this;
    }

    /**
     * The optimizer steps of each {@link SupervisedTrainer#train} call: exactly {@code n}, whatever the data size
     * (the examples are passed over as often as that takes, stopping in the middle of a pass). With {@link
     * #optEpochs} set as well, the epochs must hold at least {@code n} steps; {@code train} refuses the combination
     * otherwise, before any step.
     *
     * @param n the steps, or 0 for no step count (default 0: the epochs decide)
     * @return this builder
     */
    public Builder optMaxSteps(int n) {
      this.maxSteps = n;
      return this;
    }

    /**
     * @param s the shuffling seed (default 0)
     * @return this builder
     */
    public Builder optSeed(long s) {
      this.seed = s;
      return this;
    }

    /**
     * @param n the longest example, prompt plus response tokens (default {@value
     *     SupervisedTrainer#DEFAULT_MAX_SEQUENCE_LENGTH}); longer ones are left out
     * @return this builder
     */
    public Builder optMaxSequenceLength(int n) {
      this.maxSequenceLength = n;
      return this;
    }

    /**
     * @param on the chat template's {@code enable_thinking} (default true, as {@link DjlLanguagePolicy})
     * @return this builder
     */
    public Builder optEnableThinking(boolean on) {
      this.enableThinking = on;
      return this;
    }

    /**
     * @param id the token that ends every response (default: the chat template's end-of-turn token, such as
     *     {@code <|im_end|>})
     * @return this builder
     */
    public Builder optStopTokenId(int id) {
      this.stopTokenId = OptionalInt.of(id);
      return this;
    }

    /**
     * @param l called after every step
     * @return this builder
     */
    public Builder addListener(Listener l) {
      listeners.add(Objects.requireNonNull(l, "listener"));
      return this;
    }

    /**
     * @return the trainer, with gradients switched on for the trainable parameters
     * @throws IllegalStateException when a required part is missing, a size is not positive, or no stop token is
     *     given and the template names none the tokenizer knows
     * @throws IllegalArgumentException when the optimizer rejects a parameter (see {@link AdamW})
     */
    public SupervisedTrainer build() {
      if (model == null) {
        throw new IllegalStateException("setModel(...) is required");
      }
      if (tokenizer == null) {
        throw new IllegalStateException("setTokenizer(...) is required");
      }
      if (template == null) {
        throw new IllegalStateException("setChatTemplate(...) is required");
      }
      if (batchSize < 1 || epochs < 1 || maxSequenceLength < 2) {
        throw new IllegalStateException("batchSize and epochs must be >= 1 and maxSequenceLength >= 2, got "
            + batchSize + ", " + epochs + " and " + maxSequenceLength);
      }
      if (maxSteps < 0) {
        throw new IllegalStateException("maxSteps must be >= 0 (0: no limit), got " + maxSteps);
      }
      int stop;
      if (stopTokenId.isPresent()) {
        stop = stopTokenId.getAsInt();
      } else {
        String token = template.endOfTurnToken().orElseThrow(() -> new IllegalStateException(
            "the chat template names no end-of-turn token; set optStopTokenId(...)"));
        stop = tokenizer.addedTokenId(token).orElseThrow(() -> new IllegalStateException(
            "the end-of-turn token '" + token + "' is not an added token of " + tokenizer.file()
                + "; set optStopTokenId(...)"));
      }
      if (stop < 0 || stop >= model.config().vocabSize()) {
        throw new IllegalStateException("stop token id " + stop + " is outside the model's vocabulary [0, "
            + model.config().vocabSize() + ")");
      }
      Map<String, NDArray> trainable = parameters == null ? model.weights().parameters() : parameters;
      return new SupervisedTrainer(this, stop, trainable);
    }
  }
}
