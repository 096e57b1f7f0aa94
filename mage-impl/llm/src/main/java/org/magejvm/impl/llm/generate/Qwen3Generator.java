package org.magejvm.impl.llm.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import org.magejvm.api.FinishReason;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.KvCache;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Batched generation with a {@link Qwen3Model}: one prefill pass over the left-padded prompts, then one decoding
 * step per new token that feeds only the last token of each row and reads the rest from a {@link KvCache}
 * (or, with the cache switched off, recomputes the whole sequence each step, which is only useful as a reference
 * and for benchmarks).
 *
 * <p><b>Sampling.</b> Temperature 0 is greedy (arg-max). Otherwise the logits are divided by the temperature, then
 * top-k and top-p filter them (in that order, as in Hugging Face), and a token is drawn by inverse CDF. Until {@code
 * minNewTokens} tokens have been generated the stop tokens are excluded from the choice. Every sampled token's
 * reported log-probability is taken from log-softmax(logits / T) of the <i>unfiltered</i> model distribution (no
 * top-k, top-p or stop-token masking), which is what teacher-forced scoring at the same temperature computes; for
 * greedy decoding it is log-softmax at temperature 1.
 *
 * <p><b>Randomness.</b> The uniforms come from Java, not from the engine: row {@code i} of a call draws from its own
 * {@link SplittableRandom} seeded by a mix of the call's seed and {@code i}, one uniform per step. So the same seed,
 * prompts and model give the same tokens on every run (on the same device and library versions), and a row's
 * tokens do not depend on what other rows are in the batch or when they finish. A {@link SamplingConfig} without a
 * seed takes the next seed from this generator's own stream, seeded when the generator is built.
 *
 * <p><b>Finished rows</b> stop producing tokens: once a row emits a stop token or reaches the token limit it is
 * dropped from the batch (and from the KV cache), so the remaining rows decode faster.
 *
 * <p>Generation runs with autograd switched off on the calling thread. Instances are not thread-safe.
 */
public final class Qwen3Generator implements TokenGenerator {
  private static final int INITIAL_CACHE_SLACK = 64;
  /** Each row's last slot, {@code [:, -1, :]}; parsed once, as parsing an index costs more than using it. */
  private static final NDIndex LAST_SLOT = new NDIndex(":, -1, :");
  /**
   * The default of {@link Builder#optPrefillTokenSlots}: a batch of 128 prompts of 950 tokens (Kuhn Poker's verbose
   * prompts) would otherwise hold 128 x 950 x 950 attention scores per head at once.
   */
  public static final long DEFAULT_PREFILL_TOKEN_SLOTS = 8192;

  private final Qwen3Model model;
  private final boolean kvCache;
  private final SplittableRandom seeds;
  private final long prefillTokenSlots;

  private Qwen3Generator(Builder b) {
    this.model = b.model;
    this.kvCache = b.kvCache;
    this.seeds = new SplittableRandom(b.seed);
    this.prefillTokenSlots = b.prefillTokenSlots;
  }

  /**
   * A generator with the KV cache on and seed 0 for calls without a seed.
   *
   * @param model the model
   * @return the generator
   */
  public static Qwen3Generator of(Qwen3Model model) {
    return builder().setModel(model).build();
  }

  /** @return a builder */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the model */
  public Qwen3Model model() {
    return model;
  }

  /**
   * Generates one continuation per prompt, batched with a KV cache; a stop token that ends a sequence is kept as its
   * last token, with its log-probability.
   *
   * @param prompts the prompt token ids, one non-empty array per sequence
   * @param sampling temperature, filters, token limits and seed
   * @param stopTokenIds tokens that end a sequence
   * @return one sequence per prompt, in order
   * @throws IllegalArgumentException for an empty batch, an empty prompt, a prompt beyond the model's context or a
   *     token outside the vocabulary
   * @throws IllegalStateException when the model produces NaN log-probabilities (for example a FLOAT16 overflow or a
   *     non-finite weight loaded on purpose); the message names the step and row and, from a second forward pass of
   *     that row with a check after every module ({@link Qwen3Model#firstNonFinite}), the first module whose output
   *     is not finite, the token position and whether that module's weight holds non-finite values
   */
  @Override
  public List<GeneratedSequence> generate(List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds) {
    Objects.requireNonNull(sampling, "sampling");
    Objects.requireNonNull(stopTokenIds, "stopTokenIds");
    int batch = prompts.size();
    if (batch == 0) {
      throw new IllegalArgumentException("no prompts");
    }
    int maxLen = checkPrompts(prompts);
    long seed = sampling.seed().isPresent() ? sampling.seed().getAsLong() : nextSeed();
    long[] streams = new long[batch];
    for (int i = 0; i < batch; i++) {
      streams[i] = rowStream(seed, i);
    }
    return run(prompts, maxLen, sampling, stopTokenIds, streams, null, 0);
  }

  /**
   * Generates with one seed per row, batched: row {@code i} draws the same uniforms as row 0 of a call seeded
   * {@code seeds[i]}, so it gets the tokens that call would give, up to batching's rounding. Row {@code i} of a
   * call seeded {@code s} is therefore reproduced by the seed {@link #rowSeed rowSeed(s, i)}.
   *
   * @param prompts the prompt token ids, one non-empty array per sequence
   * @param sampling temperature, filters and token limits; its seed is ignored
   * @param stopTokenIds tokens that end a sequence
   * @param seeds one sampling seed per prompt
   * @return one sequence per prompt, in order
   * @throws IllegalArgumentException for an empty batch, an empty prompt, a token outside the vocabulary or a seed
   *     count other than the prompt count
   */
  @Override
  public List<GeneratedSequence> generate(
      List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds, long[] seeds) {
    Objects.requireNonNull(sampling, "sampling");
    Objects.requireNonNull(stopTokenIds, "stopTokenIds");
    int batch = prompts.size();
    if (batch == 0) {
      throw new IllegalArgumentException("no prompts");
    }
    if (seeds.length != batch) {
      throw new IllegalArgumentException(seeds.length + " seeds for " + batch + " prompts");
    }
    int maxLen = checkPrompts(prompts);
    long[] streams = new long[batch];
    for (int i = 0; i < batch; i++) {
      streams[i] = rowStream(seeds[i], 0);
    }
    return run(prompts, maxLen, sampling, stopTokenIds, streams, null, 0);
  }

  /**
   * Generates with one seed per row as {@link #generate(List, SamplingConfig, Set, long[])}, telling the listener
   * each token as soon as its step is sampled; a row the listener ends is dropped from the batch (and the KV cache)
   * at once, as a finished row is. The other rows' tokens are those of the call without a listener (up to batching's
   * rounding: a row dropped earlier changes the batch's shape).
   *
   * @param prompts the prompt token ids, one non-empty array per sequence
   * @param sampling temperature, filters and token limits; its seed is ignored
   * @param stopTokenIds tokens that end a sequence
   * @param seeds one sampling seed per prompt
   * @param listener sees each token and may end its row
   * @return one sequence per prompt, in order
   * @throws IllegalArgumentException for an empty batch, an empty prompt, a token outside the vocabulary or a seed
   *     count other than the prompt count
   */
  @Override
  public List<GeneratedSequence> generate(List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds,
      long[] seeds, TokenListener listener) {
    Objects.requireNonNull(sampling, "sampling");
    Objects.requireNonNull(stopTokenIds, "stopTokenIds");
    Objects.requireNonNull(listener, "listener");
    return generate(prompts, sampling, stopTokenIds, seeds, listener, 0);
  }

  /**
   * Generates with one seed per row as {@link #generate(List, SamplingConfig, Set, long[], TokenListener)} (the
   * listener may be null) and reports the {@code topLogProbs} most likely tokens of every step, taken from the
   * distribution the sampled tokens' log-probabilities come from (log-softmax of logits / T, unfiltered), so a
   * sampled token among them has exactly its reported log-probability. The tokens sampled are the same as without
   * alternatives.
   *
   * @param prompts the prompt token ids, one non-empty array per sequence
   * @param sampling temperature, filters and token limits; its seed is ignored
   * @param stopTokenIds tokens that end a sequence
   * @param seeds one sampling seed per prompt
   * @param listener sees each token (with its alternatives) and may end its row, or null
   * @param topLogProbs alternatives per token, 0 for none; more than the vocabulary gives the whole vocabulary
   * @return one sequence per prompt, in order
   * @throws IllegalArgumentException for an empty batch, an empty prompt, a token outside the vocabulary, a seed
   *     count other than the prompt count or a negative {@code topLogProbs}
   */
  @Override
  public List<GeneratedSequence> generate(List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopTokenIds,
      long[] seeds, TokenListener listener, int topLogProbs) {
    Objects.requireNonNull(sampling, "sampling");
    Objects.requireNonNull(stopTokenIds, "stopTokenIds");
    int batch = prompts.size();
    if (batch == 0) {
      throw new IllegalArgumentException("no prompts");
    }
    if (seeds.length != batch) {
      throw new IllegalArgumentException(seeds.length + " seeds for " + batch + " prompts");
    }
    if (topLogProbs < 0) {
      throw new IllegalArgumentException("topLogProbs must be >= 0, got " + topLogProbs);
    }
    int maxLen = checkPrompts(prompts);
    long[] streams = new long[batch];
    for (int i = 0; i < batch; i++) {
      streams[i] = rowStream(seeds[i], 0);
    }
    return run(prompts, maxLen, sampling, stopTokenIds, streams, listener,
        Math.min(topLogProbs, model.config().vocabSize()));
  }

  /**
   * The seed that makes a one-row call reproduce row {@code row} of a call seeded {@code callSeed}.
   *
   * @param callSeed the seed of a batched call
   * @param row a row of that call
   * @return the seed of an equivalent one-row call
   */
  public static long rowSeed(long callSeed, int row) {
    return SplitMix64.advance(callSeed, row);
  }

  /** Checks every prompt and returns the longest length. */
  private int checkPrompts(List<int[]> prompts) {
    int maxLen = 0;
    for (int i = 0; i < prompts.size(); i++) {
      int[] p = prompts.get(i);
      if (p.length == 0) {
        throw new IllegalArgumentException("prompt " + i + " is empty");
      }
      if (p.length > model.config().maxPositionEmbeddings()) {
        throw new IllegalArgumentException("prompt " + i + ": "
            + Qwen3Config.promptTooLong(String.valueOf(p.length), model.config().maxPositionEmbeddings()));
      }
      model.checkTokens(Arrays.stream(p).asLongStream().toArray());
      maxLen = Math.max(maxLen, p.length);
    }
    return maxLen;
  }

  private static long rowStream(long callSeed, int row) {
    return SplitMix64.nth(callSeed, row + 1);
  }

  private List<GeneratedSequence> run(
      List<int[]> prompts, int maxLen, SamplingConfig sampling, Set<Integer> stopTokenIds, long[] streams,
      TokenListener listener, int topLogProbs) {
    Run run = new Run(prompts, maxLen, sampling, stopTokenIds, streams, listener, topLogProbs);
    GradMode noGrad = GradMode.disabled();
    try {
      run.execute();
    } finally {
      noGrad.close();
    }
    return run.results();
  }

  private synchronized long nextSeed() {
    return seeds.nextLong();
  }

  /** The state of one {@link #sample} call. */
  private final class Run {
    private final List<int[]> prompts;
    private final int promptLen;
    private final SamplingConfig cfg;
    private final Set<Integer> stops;
    private final int batch;
    private final SplittableRandom[] rngs;
    private final int[][] tokens;
    private final float[][] logProbs;
    private final int[] counts;
    private final FinishReason[] reasons;
    /** Sees each token, or null. */
    private final TokenListener listener;
    /** Alternatives per token, 0 for none. */
    private final int topK;
    /** Each row's alternatives per step, or null when none are asked for. */
    private final TopLogProbs[][] tops;
    /** Original row of each active row. */
    private int[] rows;
    /** Left padding of each active row. */
    private int[] pads;

    Run(List<int[]> prompts, int promptLen, SamplingConfig cfg, Set<Integer> stops, long[] streams,
        TokenListener listener, int topK) {
      this.prompts = prompts;
      this.listener = listener;
      this.topK = topK;
      this.tops = topK > 0 ? new TopLogProbs[prompts.size()][cfg.maxNewTokens()] : null;
      this.promptLen = promptLen;
      this.cfg = cfg;
      this.stops = stops;
      this.batch = prompts.size();
      this.rngs = new SplittableRandom[batch];
      this.tokens = new int[batch][cfg.maxNewTokens()];
      this.logProbs = new float[batch][cfg.maxNewTokens()];
      this.counts = new int[batch];
      this.reasons = new FinishReason[batch];
      this.rows = new int[batch];
      this.pads = new int[batch];
      for (int i = 0; i < batch; i++) {
        rngs[i] = new SplittableRandom(streams[i]);
        rows[i] = i;
        pads[i] = promptLen - prompts.get(i).length;
      }
    }

    void execute() {
      try (NDManager gm = model.newManager()) {
        NDArray banned = bannedMask(gm);
        Sampler sampler = new Sampler(gm, cfg, model.config().vocabSize());
        // slots ever written: the prompts, then one per decoding step after the first token
        int maxLength = promptLen + cfg.maxNewTokens() - 1;
        // rows with the same prompt share one prefill: the cache holds each different prompt once until the first
        // token is drawn, then one copy per row
        int[] source = kvCache ? promptSources() : null;
        int prefillRows = source == null ? batch : distinct;
        KvCache cache = kvCache
            ? model.newCache(gm, prefillRows, Math.min(maxLength, promptLen + INITIAL_CACHE_SLACK), maxLength)
            : null;
        for (int step = 0; step < cfg.maxNewTokens() && rows.length > 0; step++) {
          Sampler.Picks picks;
          try (NDManager sm = gm.newSubManager()) {
            boolean shared = step == 0 && source != null;
            NDArray ids = shared ? distinctPrompts(sm) : inputs(sm, step, cache != null);
            NDArray hidden = prefillOrStep(ids, shared ? distinctPads : pads, cache, step);
            NDArray last = hidden.get(LAST_SLOT);
            NDArray logits = model.logits(last);
            if (shared) {
              long[] idx = new long[batch];
              for (int i = 0; i < batch; i++) {
                idx[i] = source[i];
              }
              logits = logits.get(sm.create(idx));
              cache.keepRows(source);
            }
            float[] u = new float[rows.length];
            for (int r = 0; r < rows.length; r++) {
              u[r] = (float) uniform(rngs[rows[r]]);
            }
            picks = sampler.pick(logits, u, step < cfg.minNewTokens() ? banned : null, topK);
          }
          record(picks, step, cache);
        }
      }
    }

    /**
     * On the error path only: runs the row's sequence so far (its prompt and the tokens of the earlier steps) again
     * with a check after every module, and names the first module whose output is not finite; null when the pass
     * finds none or cannot run.
     */
    private String diagnose(int row, int step) {
      int[] p = prompts.get(row);
      int[] seq = Arrays.copyOf(p, p.length + step);
      System.arraycopy(tokens[row], 0, seq, p.length, step);
      try {
        return model.firstNonFinite(seq).orElse(null);
      } catch (RuntimeException e) {
        return null; // the diagnosis must not hide the error it explains
      }
    }

    /**
     * The forward pass of a step. The prefill of many long prompts runs in chunks of positions (each attending to the
     * cache written by the ones before), so that its attention scores, rows times chunk times prompt length, stay
     * bounded instead of growing with the square of the prompt length; the result differs by float rounding only.
     */
    private NDArray prefillOrStep(NDArray ids, int[] rowPads, KvCache cache, int step) {
      long n = ids.getShape().get(0);
      long len = ids.getShape().get(1);
      if (step > 0 || cache == null || n * len <= prefillTokenSlots) {
        return model.forward(ids, rowPads, cache);
      }
      long chunk = Math.max(1, prefillTokenSlots / n);
      NDArray hidden = null;
      for (long from = 0; from < len; from += chunk) {
        long to = Math.min(len, from + chunk);
        if (hidden != null) {
          hidden.close();
        }
        hidden = model.forward(ids.get(":, {}:{}", from, to), rowPads, cache);
      }
      return hidden;
    }

    /** How many different prompts {@link #promptSources()} found, and their padding. */
    private int distinct;
    private int[] distinctPads;
    private List<int[]> distinctPromptList;

    /**
     * For each row, the index of the first row with the same prompt among the different prompts, or null when every
     * prompt differs (or there is one row).
     */
    private int[] promptSources() {
      if (batch < 2) {
        return null;
      }
      java.util.Map<java.util.List<Integer>, Integer> seen = new java.util.HashMap<>();
      int[] source = new int[batch];
      List<int[]> different = new ArrayList<>();
      for (int i = 0; i < batch; i++) {
        int[] p = prompts.get(i);
        java.util.List<Integer> key = Arrays.stream(p).boxed().toList();
        Integer at = seen.get(key);
        if (at == null) {
          at = different.size();
          seen.put(key, at);
          different.add(p);
        }
        source[i] = at;
      }
      if (different.size() == batch) {
        return null;
      }
      distinct = different.size();
      distinctPromptList = different;
      distinctPads = new int[distinct];
      for (int i = 0; i < distinct; i++) {
        distinctPads[i] = promptLen - different.get(i).length;
      }
      return source;
    }

    /** The different prompts, left-padded (the prefill when rows share prompts). */
    private NDArray distinctPrompts(NDManager sm) {
      long[] ids = new long[distinct * promptLen];
      for (int r = 0; r < distinct; r++) {
        int[] p = distinctPromptList.get(r);
        int base = r * promptLen + distinctPads[r];
        for (int j = 0; j < p.length; j++) {
          ids[base + j] = p[j];
        }
      }
      return sm.create(ids, new Shape(distinct, promptLen));
    }

    /** The step's input ids: the whole left-padded prompts at step 0 (or always, without a cache). */
    private NDArray inputs(NDManager sm, int step, boolean cached) {
      int n = rows.length;
      if (cached && step > 0) {
        long[] last = new long[n];
        for (int r = 0; r < n; r++) {
          last[r] = tokens[rows[r]][step - 1];
        }
        return sm.create(last, new Shape(n, 1));
      }
      int len = promptLen + step;
      long[] ids = new long[n * len];
      for (int r = 0; r < n; r++) {
        int row = rows[r];
        int[] p = prompts.get(row);
        int base = r * len + pads[r];
        for (int j = 0; j < p.length; j++) {
          ids[base + j] = p[j];
        }
        for (int j = 0; j < step; j++) {
          ids[base + p.length + j] = tokens[row][j];
        }
      }
      return sm.create(ids, new Shape(n, len));
    }

    private NDArray bannedMask(NDManager gm) {
      if (cfg.minNewTokens() == 0 || stops.isEmpty()) {
        return null;
      }
      int vocab = model.config().vocabSize();
      float[] mask = new float[vocab];
      for (int id : stops) {
        if (id >= 0 && id < vocab) {
          mask[id] = Float.NEGATIVE_INFINITY;
        }
      }
      return gm.create(mask).toType(model.outputType(), false);
    }

    private void record(Sampler.Picks picks, int step, KvCache cache) {
      int n = rows.length;
      int alive = 0;
      boolean[] keep = new boolean[n];
      for (int r = 0; r < n; r++) {
        int row = rows[r];
        int token = (int) picks.tokens()[r];
        float lp = picks.logProbs()[r];
        if (Float.isNaN(lp)) {
          String where = diagnose(row, step);
          throw new IllegalStateException(
              "the model produced NaN log-probabilities at generation step " + step + " of row " + row
                  + " (prompt of " + prompts.get(row).length + " tokens, weights in " + model.dtype().name() + ")"
                  + (where != null ? "; the first non-finite value is in the output of " + where
                      : "; " + (model.dtype() == ai.djl.ndarray.types.DataType.FLOAT16
                          ? "a FLOAT16 activation probably overflowed: load the checkpoint as FLOAT32"
                          : "non-finite weights are refused at load unless that check was turned off, so look for"
                              + " non-finite weights loaded with --non-finite-weights allow/warn or an overflowing"
                              + " activation")));
        }
        tokens[row][step] = token;
        logProbs[row][step] = lp;
        counts[row] = step + 1;
        TopLogProbs top = null;
        if (tops != null) {
          int k = picks.topIds().length / n;
          int[] ids = new int[k];
          for (int j = 0; j < k; j++) {
            ids[j] = (int) picks.topIds()[r * k + j];
          }
          top = new TopLogProbs(ids, Arrays.copyOfRange(picks.topLogProbs(), r * k, r * k + k));
          tops[row][step] = top;
        }
        boolean goOn = listener == null || listener.onToken(row, token, lp, top);
        if (stops.contains(token)) {
          reasons[row] = FinishReason.STOP;
        } else if (step + 1 == cfg.maxNewTokens() || !goOn) {
          reasons[row] = FinishReason.LENGTH;
        } else {
          keep[r] = true;
          alive++;
        }
      }
      if (alive == n) {
        return;
      }
      int[] keptIdx = new int[alive];
      int[] keptRows = new int[alive];
      int[] keptPads = new int[alive];
      int j = 0;
      for (int r = 0; r < n; r++) {
        if (keep[r]) {
          keptIdx[j] = r;
          keptRows[j] = rows[r];
          keptPads[j] = pads[r];
          j++;
        }
      }
      if (cache != null && alive > 0) {
        cache.keepRows(keptIdx);
      }
      rows = keptRows;
      pads = keptPads;
    }

    List<GeneratedSequence> results() {
      List<GeneratedSequence> out = new ArrayList<>(batch);
      for (int i = 0; i < batch; i++) {
        out.add(new GeneratedSequence(Arrays.copyOf(tokens[i], counts[i]), Arrays.copyOf(logProbs[i], counts[i]),
            reasons[i], tops == null ? List.of() : Arrays.asList(Arrays.copyOf(tops[i], counts[i]))));
      }
      return out;
    }
  }

  /** A uniform double in the open interval (0, 1). */
  private static double uniform(SplittableRandom r) {
    return ((r.nextLong() >>> 11) + 0.5) * 0x1.0p-53;
  }

  /** Builds a {@link Qwen3Generator}. */
  public static final class Builder {
    private Qwen3Model model;
    private boolean kvCache = true;
    private long seed;
    private long prefillTokenSlots = DEFAULT_PREFILL_TOKEN_SLOTS;

    private Builder() {}

    /**
     * @param m the model
     * @return this builder
     */
    public Builder setModel(Qwen3Model m) {
      model = m;
      return this;
    }

    /**
     * @param on whether to decode with a KV cache (default true); off recomputes the whole sequence every step
     * @return this builder
     */
    public Builder optKvCache(boolean on) {
      kvCache = on;
      return this;
    }

    /**
     * @param s the seed of the stream that supplies seeds to calls whose {@link SamplingConfig} has none (default 0)
     * @return this builder
     */
    public Builder optSeed(long s) {
      seed = s;
      return this;
    }

    /**
     * @param slots the most token slots (rows times positions) one prefill pass holds (default {@value
     *     #DEFAULT_PREFILL_TOKEN_SLOTS}); a longer prefill runs in chunks of positions, each attending to the cache the
     *     earlier ones wrote, which bounds its attention scores at rows x chunk x prompt length per head
     * @return this builder
     * @throws IllegalArgumentException when below 1
     */
    public Builder optPrefillTokenSlots(long slots) {
      if (slots < 1) {
        throw new IllegalArgumentException("prefill token slots must be >= 1, got " + slots);
      }
      prefillTokenSlots = slots;
      return this;
    }

    /** @return the generator */
    public Qwen3Generator build() {
      Objects.requireNonNull(model, "model");
      return new Qwen3Generator(this);
    }
  }
}
