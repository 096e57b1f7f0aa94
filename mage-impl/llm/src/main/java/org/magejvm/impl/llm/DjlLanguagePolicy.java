package org.magejvm.impl.llm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import org.magejvm.impl.llm.generate.TokenGenerator;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.text.ChatMessage;
import org.magejvm.impl.llm.text.ChatTemplate;
import org.magejvm.impl.llm.text.ChatTemplates;
import org.magejvm.impl.llm.text.HfTokenizer;
import org.magejvm.impl.llm.text.StopTokens;
import org.magejvm.impl.llm.text.TokenizerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LanguagePolicy} over a token-level model: chat formatting, tokenisation, one batched
 * {@link TokenGenerator} call per {@link #generate} call, and decoding.
 *
 * <p>As in the reference implementation, every request is a single-turn chat: its prompt becomes one user message,
 * rendered with the chat template and a generation prompt ({@code add_generation_prompt=True}) and with
 * {@code enable_thinking} as configured (default {@code true}, the reference's setting for Qwen3). The response is
 * decoded with special tokens skipped; Qwen3's {@code <think>} tags are not special and stay in the text.
 *
 * <p>The prompt limit is {@code maxPromptTokens}, or the model's context ({@code max_position_embeddings}, see
 * {@link Builder#optModelContext}) when that is smaller. Prompts longer than the limit (after chat formatting) are
 * rejected by default: {@link #generate} checks every request of the batch first and, before generating anything,
 * throws a {@link PolicyRequestException} naming each too-long request (index, meta-episode, episode and turn), its
 * length and the limit. The rollout engine fails only those requests' meta-episodes and goes on with the others. A
 * prompt whose length in characters alone proves it too long ({@link HfTokenizer#minTokens}: more characters than the
 * limit times the most characters one token of this tokenizer can cover) is rejected without being tokenized, so an
 * environment that returns a megabyte costs milliseconds, not the seconds its tokenization would take.
 * With {@link PromptOverflow#KEEP_LAST} long prompts are cut to their last {@code limit} tokens instead (the
 * reference trainer's "left" truncation; note that this also cuts the chat header at the start). Cutting is never
 * silent: it is logged as a warning (the 1st, 2nd, 4th, 8th... cut, with the count so far), counted in {@link
 * #truncatedPrompts()}, and the generation's prompt token ids are the ids actually used.
 *
 * <p>Not thread-safe: call {@link #generate} from one thread at a time.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class DjlLanguagePolicy implements LanguagePolicy {

  private static final Logger LOG = LoggerFactory.getLogger(DjlLanguagePolicy.class);

  /** What to do with a prompt longer than {@code maxPromptTokens}. */
  public enum PromptOverflow {
    /** Throw an {@link IllegalArgumentException} naming the length and the limit. */
    FAIL,
    /** Keep the last {@code maxPromptTokens} tokens. */
    KEEP_LAST
  }

  /** The default prompt limit in tokens (the reference's {@code max_prompt_length} for all games). */
  public static final int DEFAULT_MAX_PROMPT_TOKENS = 4096;

  private final String name;
  private final HfTokenizer tokenizer;
  private final ChatTemplate template;
  private final TokenGenerator generator;
  private final Set<Integer> stopTokenIds;
  private final Map<String, Object> templateVariables;
  private final int maxPromptTokens;
  private final int modelContext;
  private final PromptOverflow overflow;
  private final List<AutoCloseable> owned;
  private long truncated;
  private boolean closed;

  private DjlLanguagePolicy(Builder b) {
    this.name = b.name;
    this.tokenizer = b.tokenizer;
    this.template = b.template;
    this.generator = b.generator;
    this.stopTokenIds = Collections.unmodifiableSet(new LinkedHashSet<>(b.stopTokenIds));
    Map<String, Object> vars = new LinkedHashMap<>(b.templateVariables);
    vars.put(ChatTemplate.ENABLE_THINKING, b.enableThinking);
    this.templateVariables = Collections.unmodifiableMap(vars);
    this.maxPromptTokens = b.maxPromptTokens;
    this.modelContext = b.modelContext;
    this.overflow = b.overflow;
    this.owned = List.copyOf(b.owned);
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder with the tokenizer, chat template and stop tokens of a Hugging Face checkpoint directory already
   * set; the caller adds the generator. The tokenizer is closed with the policy.
   *
   * @param checkpointDir a directory with {@code tokenizer.json} and {@code tokenizer_config.json}
   *     ({@code config.json} and {@code generation_config.json} are read for stop tokens when present)
   * @return the builder
   * @throws CheckpointException when a file is missing or malformed
   */
  public static Builder builderForCheckpoint(Path checkpointDir) {
    TokenizerConfig config = TokenizerConfig.load(checkpointDir);
    ChatTemplate template = ChatTemplates.fromConfig(config);
    HfTokenizer tokenizer = HfTokenizer.load(checkpointDir);
    try {
      Set<Integer> stops = StopTokens.resolve(checkpointDir, tokenizer, config, template);
      return builder().setTokenizer(tokenizer).setChatTemplate(template).addStopTokenIds(stops)
          .addOwnedResource(tokenizer);
    } catch (RuntimeException e) {
      tokenizer.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return name;
  }

  /** @return the token generator (for callers that tokenize themselves, such as raw-text generation) */
  public TokenGenerator generator() {
    return generator;
  }

  /** @return the tokenizer */
  public HfTokenizer tokenizer() {
    return tokenizer;
  }

  /** @return the chat template */
  public ChatTemplate chatTemplate() {
    return template;
  }

  /** @return the ids that end a response */
  public Set<Integer> stopTokenIds() {
    return stopTokenIds;
  }

  /**
   * @return the variables {@link #generate} renders the chat template with ({@code enable_thinking} and those added
   *     with {@link Builder#addTemplateVariable}); unmodifiable
   */
  public Map<String, Object> templateVariables() {
    return templateVariables;
  }

  /** @return the prompt limit in tokens, as configured (see {@link #promptLimit()} for the one applied) */
  public int maxPromptTokens() {
    return maxPromptTokens;
  }

  /** @return the prompt limit applied: the smaller of {@code maxPromptTokens} and the model's context */
  public int promptLimit() {
    return Math.min(maxPromptTokens, modelContext);
  }

  /** @return how many prompts {@link PromptOverflow#KEEP_LAST} has cut so far */
  public long truncatedPrompts() {
    return truncated;
  }

  /**
   * Formats a prompt the way {@link #generate} does.
   *
   * @param prompt the user message
   * @return the chat-formatted prompt text
   */
  public String renderPrompt(String prompt) {
    return template.render(List.of(ChatMessage.user(prompt)), true, templateVariables);
  }

  @Override
  public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
    Objects.requireNonNull(sampling, "sampling");
    if (closed) {
      throw new IllegalStateException("policy '" + name + "' is closed");
    }
    if (requests.isEmpty()) {
      return List.of();
    }
    List<String> texts = new ArrayList<>(requests.size());
    for (PolicyRequest r : requests) {
      texts.add(renderPrompt(r.prompt()));
    }
    Map<Integer, String> rejected = new TreeMap<>();
    List<String> toEncode = texts;
    if (overflow == PromptOverflow.FAIL) {
      // a prompt whose length alone proves it too long is rejected without tokenizing it (1 MB takes seconds)
      toEncode = new ArrayList<>(texts.size());
      for (int i = 0; i < texts.size(); i++) {
        long least = tokenizer.minTokens(texts.get(i));
        if (least > promptLimit()) {
          rejected.put(i, tooLong("at least " + least + " tokens (" + texts.get(i).length() + " characters, at most "
              + tokenizer.maxCharsPerToken() + " per token)", i, requests.get(i)));
        } else {
          toEncode.add(texts.get(i));
        }
      }
    }
    List<int[]> encoded = tokenizer.encodeBatch(toEncode);
    List<int[]> prompts = new ArrayList<>(encoded.size());
    for (int i = 0, e = 0; i < texts.size(); i++) {
      if (rejected.containsKey(i)) {
        continue;
      }
      int[] ids = encoded.get(e++);
      if (ids.length > promptLimit() && overflow == PromptOverflow.FAIL) {
        rejected.put(i, tooLong(ids.length + " tokens", i, requests.get(i)));
      } else {
        prompts.add(fit(ids));
      }
    }
    if (!rejected.isEmpty()) {
      throw new PolicyRequestException(rejected);
    }
    List<GeneratedSequence> outputs = generator.generate(prompts, sampling, stopTokenIds);
    if (outputs == null || outputs.size() != prompts.size()) {
      throw new IllegalStateException("the token generator returned " + (outputs == null ? "null" : outputs.size()
          + " sequences") + " for " + prompts.size() + " prompts");
    }
    List<Generation> out = new ArrayList<>(outputs.size());
    for (int i = 0; i < outputs.size(); i++) {
      GeneratedSequence s = outputs.get(i);
      // the text leaves out the stop token; the ids and log-probs keep it, so training learns when to stop
      String text = tokenizer.decodeGenerated(s.contentTokenIds(), true);
      out.add(new Generation(text, prompts.get(i), s.tokenIds(), s.logProbs(), s.finishReason()));
    }
    return out;
  }

  private String tooLong(String length, int index, PolicyRequest r) {
    String limit = maxPromptTokens <= modelContext ? "maxPromptTokens=" + maxPromptTokens
        : "the model's context of " + modelContext + " tokens (max_position_embeddings)";
    String fix = maxPromptTokens <= modelContext ? "shorten the prompt, raise maxPromptTokens, or "
        : "shorten the prompt or ";
    return "prompt " + index + " (worker '" + r.workerKey() + "', " + r.phase().name().toLowerCase(Locale.ROOT)
        + ", episode " + r.episodeIndex() + ", turn " + r.turnIndex() + ") is " + length
        + " after chat formatting, more than " + limit + "; " + fix + "choose PromptOverflow.KEEP_LAST";
  }

  private int[] fit(int[] ids) {
    int limit = promptLimit();
    if (ids.length <= limit) {
      return ids;
    }
    truncated++;
    if (Long.bitCount(truncated) == 1) {
      LOG.warn("policy '{}': a prompt of {} tokens was cut to its last {} tokens (PromptOverflow.KEEP_LAST); {} "
          + "prompt(s) cut so far", name, ids.length, limit, truncated);
    }
    return Arrays.copyOfRange(ids, ids.length - limit, ids.length);
  }

  /** Closes the resources handed to {@link Builder#addOwnedResource}, last added first. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException first = null;
    for (int i = owned.size() - 1; i >= 0; i--) {
      try {
        owned.get(i).close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("closing policy '" + name + "' failed: " + e.getMessage(), e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Builds a {@link DjlLanguagePolicy}: tokenizer, chat template, generator and stop tokens are required. */
  public static final class Builder {
    private String name = "djl";
    private HfTokenizer tokenizer;
    private ChatTemplate template;
    private TokenGenerator generator;
    private final Set<Integer> stopTokenIds = new LinkedHashSet<>();
    private final Map<String, Object> templateVariables = new LinkedHashMap<>();
    private boolean enableThinking = true;
    private int maxPromptTokens = DEFAULT_MAX_PROMPT_TOKENS;
    private int modelContext = Integer.MAX_VALUE;
    private PromptOverflow overflow = PromptOverflow.FAIL;
    private final List<AutoCloseable> owned = new ArrayList<>();

    private Builder() {}

    /**
     * @param t the tokenizer
     * @return this builder
     */
    public Builder setTokenizer(HfTokenizer t) {
      this.tokenizer = Objects.requireNonNull(t, "tokenizer");
      return this;
    }

    /**
     * @param t the chat template
     * @return this builder
     */
    public Builder setChatTemplate(ChatTemplate t) {
      this.template = Objects.requireNonNull(t, "template");
      return this;
    }

    /**
     * @param g the token generator (the model)
     * @return this builder
     */
    public Builder setGenerator(TokenGenerator g) {
      this.generator = Objects.requireNonNull(g, "generator");
      return this;
    }

    /**
     * @param id a token id that ends a response
     * @return this builder
     */
    public Builder addStopTokenId(int id) {
      stopTokenIds.add(id);
      return this;
    }

    /**
     * @param ids token ids that end a response
     * @return this builder
     */
    public Builder addStopTokenIds(Iterable<Integer> ids) {
      ids.forEach(stopTokenIds::add);
      return this;
    }

    /**
     * @param key a template variable
     * @param value its value (String, Boolean, number, List, Map or null)
     * @return this builder
     */
    public Builder addTemplateVariable(String key, Object value) {
      templateVariables.put(Objects.requireNonNull(key, "key"), value);
      return this;
    }

    /**
     * @param resource closed when the policy is closed
     * @return this builder
     */
    public Builder addOwnedResource(AutoCloseable resource) {
      owned.add(Objects.requireNonNull(resource, "resource"));
      return this;
    }

    /**
     * @param n the policy's name (default {@code djl})
     * @return this builder
     */
    public Builder optName(String n) {
      this.name = Objects.requireNonNull(n, "name");
      return this;
    }

    /**
     * @param on the template's {@code enable_thinking} (default true)
     * @return this builder
     */
    public Builder optEnableThinking(boolean on) {
      this.enableThinking = on;
      return this;
    }

    /**
     * @param n the prompt limit in tokens (default {@value DjlLanguagePolicy#DEFAULT_MAX_PROMPT_TOKENS})
     * @return this builder
     */
    public Builder optMaxPromptTokens(int n) {
      this.maxPromptTokens = n;
      return this;
    }

    /**
     * @param n the model's context in tokens ({@code max_position_embeddings}); prompts longer than this are
     *     treated as longer than {@code maxPromptTokens} (default: no limit besides {@code maxPromptTokens})
     * @return this builder
     */
    public Builder optModelContext(int n) {
      this.modelContext = n;
      return this;
    }

    /**
     * @param o what to do with longer prompts (default {@link PromptOverflow#FAIL})
     * @return this builder
     */
    public Builder optPromptOverflow(PromptOverflow o) {
      this.overflow = Objects.requireNonNull(o, "overflow");
      return this;
    }

    /**
     * @return the policy
     * @throws IllegalStateException when a required part is missing, no stop token is given, a stop token is
     *     outside the tokenizer's vocabulary, or maxPromptTokens is not positive
     */
    public DjlLanguagePolicy build() {
      if (tokenizer == null) {
        throw new IllegalStateException("setTokenizer(...) is required");
      }
      if (template == null) {
        throw new IllegalStateException("setChatTemplate(...) is required");
      }
      if (generator == null) {
        throw new IllegalStateException("setGenerator(...) is required");
      }
      if (stopTokenIds.isEmpty()) {
        throw new IllegalStateException("at least one stop token id is required (see StopTokens.resolve)");
      }
      for (int id : stopTokenIds) {
        if (id < 0 || id >= tokenizer.vocabSize()) {
          throw new IllegalStateException("stop token id " + id + " is outside the tokenizer's vocabulary [0, "
              + tokenizer.vocabSize() + ")");
        }
      }
      if (maxPromptTokens < 1) {
        throw new IllegalStateException("maxPromptTokens must be >= 1, got " + maxPromptTokens);
      }
      if (modelContext < 1) {
        throw new IllegalStateException("the model's context must be >= 1 token, got " + modelContext);
      }
      if (templateVariables.containsKey(ChatTemplate.ENABLE_THINKING)) {
        throw new IllegalStateException("set enable_thinking with optEnableThinking(...)");
      }
      return new DjlLanguagePolicy(this);
    }
  }
}
