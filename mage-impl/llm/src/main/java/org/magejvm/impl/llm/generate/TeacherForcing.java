package org.magejvm.impl.llm.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Scores given responses under the model by teacher forcing: one forward pass over each prompt followed by its
 * response, returning the log-probability of every response token under softmax(logits / T) (T = 1 when the given
 * temperature is 0, matching what {@link Qwen3Generator} reports for greedy decoding) and, on request, the entropy of
 * each predicted distribution.
 *
 * <p>The result is differentiable: inside a DJL {@code GradientCollector}, with the weights
 * {@linkplain org.magejvm.impl.llm.model.Qwen3Weights#requireGradients requiring gradients}, a backward pass from any
 * function of the returned arrays reaches the parameters (with a LoRA adapter attached to the model, the
 * adapter's matrices; see {@code org.magejvm.impl.llm.finetune.FineTuning}). Remember that PyTorch accumulates
 * gradients: zero them ({@link org.magejvm.impl.llm.model.Qwen3Weights#zeroGradients()}) between optimiser steps.
 * Outside a collector, on a thread other than the one that started the engine, wrap the call in
 * {@code GradMode.disabled()} when no gradient is wanted, or a graph is recorded for nothing.
 *
 * <h2>Memory</h2>
 *
 * <p>The vocabulary-sized arrays (logits, log-softmax, and for the entropy its exponential and product) are made for
 * at most {@link #positionChunk()} response positions at a time and freed chunk by chunk, so without gradients the
 * peak is about {@code 3 × B × chunk × V} floats instead of {@code 4 × B × R × V}. Under a gradient collector the
 * log-softmax of every chunk stays alive until the backward pass (its backward needs it), which still saves the
 * other three vocabulary-sized arrays per position. The chunk changes the result only by float rounding (the
 * output head's matrix multiply over fewer rows may sum in another order; the test bounds the difference of scores
 * and gradients at 1e-5 of each array's largest magnitude).
 */
public final class TeacherForcing {
  /** The default number of response positions scored together. */
  public static final int DEFAULT_POSITION_CHUNK = 128;

  /** The shortest common prompt prefix worth computing once for all rows ({@link #sharesPrefix()}). */
  public static final int MIN_SHARED_PREFIX = 4;

  /**
   * The activation bytes from which {@link Recompute#AUTO} recomputes a part of a training pass: 1 GiB. Below it
   * the memory saved is small next to the weights and the optimizer's state, while the time is not ({@code ./mage
   * bench memory} prints both).
   */
  public static final long RECOMPUTE_FROM_BYTES = 1L << 30;

  private final Qwen3Model model;
  private final int positionChunk;
  private final boolean sharePrefix;
  private final Recompute layers;
  private final Recompute head;

  /** @param model the model to score with, {@link #DEFAULT_POSITION_CHUNK} positions at a time */
  public TeacherForcing(Qwen3Model model) {
    this(model, DEFAULT_POSITION_CHUNK);
  }

  /**
   * @param model the model to score with
   * @param positionChunk the most response positions whose vocabulary-sized arrays exist at once
   * @param sharePrefix whether to do the work the rows share once ({@link #sharesPrefix()})
   * @throws IllegalArgumentException when the chunk is below 1
   */
  public TeacherForcing(Qwen3Model model, int positionChunk, boolean sharePrefix) {
    this(model, positionChunk, sharePrefix, Recompute.OFF, Recompute.OFF);
  }

  private TeacherForcing(Qwen3Model model, int positionChunk, boolean sharePrefix, Recompute layers,
      Recompute head) {
    this.model = Objects.requireNonNull(model, "model");
    if (positionChunk < 1) {
      throw new IllegalArgumentException("positionChunk must be >= 1, got " + positionChunk);
    }
    this.positionChunk = positionChunk;
    this.sharePrefix = sharePrefix;
    this.layers = Objects.requireNonNull(layers, "layers");
    this.head = Objects.requireNonNull(head, "head");
  }

  /**
   * This scorer with other recomputation choices for passes with gradients ({@link Recompute#OFF} for both unless
   * chosen here, so that a caller's own loop that does not call {@link TokenScores#completeBackward} keeps working;
   * the library's trainers choose {@link Recompute#AUTO} or the training config's keys). Recomputed <b>layers</b> keep only each decoder layer's input and run the layers again, one at a
   * time, in the backward pass ({@link Qwen3Model#forwardRecomputed}). A recomputed <b>head</b> keeps no
   * vocabulary-sized array at all: the scores are computed chunk by chunk without a graph, and the backward pass
   * computes each chunk's logits again to back-propagate through it. Either way the caller must call {@link
   * TokenScores#completeBackward} after its backward pass. Without gradients both are ignored.
   *
   * @param layers whether the decoder layers' activations are recomputed
   * @param head whether the output head's logits are recomputed
   * @return the scorer
   */
  public TeacherForcing withRecompute(Recompute layers, Recompute head) {
    return new TeacherForcing(model, positionChunk, sharePrefix, layers, head);
  }

  /** @return whether the decoder layers' activations are recomputed in passes with gradients */
  public Recompute recomputeLayers() {
    return layers;
  }

  /** @return whether the output head's logits are recomputed in passes with gradients */
  public Recompute recomputeHead() {
    return head;
  }

  /**
   * The bytes a pass with gradients keeps for its decoder layers, estimated from the shapes: per layer and token
   * slot the float32 norms' inputs and outputs (6 D), the queries, keys, values and attention output (4 (H + K) h)
   * and the MLP's five intermediates (5 I), 4 bytes each. It is what {@link Recompute#AUTO} compares with {@link
   * #RECOMPUTE_FROM_BYTES}.
   *
   * @param config the architecture
   * @param slots token slots in the pass (rows times the padded length)
   * @return bytes
   */
  public static long layerActivationBytes(Qwen3Config config, long slots) {
    long perSlot = 6L * config.hiddenSize()
        + 4L * (config.numAttentionHeads() + config.numKeyValueHeads()) * config.headDim()
        + 5L * config.intermediateSize();
    return slots * config.numHiddenLayers() * perSlot * 4;
  }

  /**
   * The bytes a pass with gradients keeps for its output head: the float32 log-softmax of every scored position.
   *
   * @param config the architecture
   * @param positions scored positions (rows times the longest response)
   * @return bytes
   */
  public static long headActivationBytes(Qwen3Config config, long positions) {
    return positions * config.vocabSize() * 4;
  }

  private static boolean chosen(Recompute r, long bytes) {
    return r == Recompute.ON || r == Recompute.AUTO && bytes >= RECOMPUTE_FROM_BYTES;
  }

  /**
   * Whether work the rows share is done once: a row that repeats an earlier row (the same prompt and response) is
   * scored once and its scores copied (differentiably), and the rows' common prompt prefix is computed once ({@link
   * Qwen3Model#forwardSharedPrefix}) when it is at least {@value #MIN_SHARED_PREFIX} tokens long. Prompts of one
   * environment share their chat template and rules (30 of the 72 tokens of a Goalkeeper prompt on average, 57 of
   * 125 in Kuhn Poker), and a training batch repeats many turns (a Goalkeeper batch of about 165 turns holds about 90
   * different ones, its 256 anchor turns 151), so most of the work is then done once per micro-batch instead of once
   * per row. The scores and gradients differ from the unshared pass by float rounding only ({@code
   * TeacherForcingTest}).
   *
   * @return whether this instance shares work between rows (on by default)
   */
  public boolean sharesPrefix() {
    return sharePrefix;
  }

  /**
   * @param model the model to score with
   * @param positionChunk the most response positions whose vocabulary-sized arrays exist at once
   * @throws IllegalArgumentException when the chunk is below 1
   */
  public TeacherForcing(Qwen3Model model, int positionChunk) {
    this(model, positionChunk, true);
  }

  /** @return the most response positions scored together */
  public int positionChunk() {
    return positionChunk;
  }

  /**
   * Scores responses.
   *
   * @param manager the manager that will own the returned arrays (on the model's device)
   * @param prompts the prompt token ids, one non-empty array per row
   * @param responses the response token ids, one array per row (may be empty)
   * @param temperature the sampling temperature the responses were drawn at (0 meaning greedy, scored at 1)
   * @param withEntropy whether to compute per-token entropies too
   * @return the scores
   * @throws IllegalArgumentException when the lists differ in size, a prompt is empty or a token is outside the
   *     vocabulary
   */
  public TokenScores score(
      NDManager manager, List<int[]> prompts, List<int[]> responses, double temperature, boolean withEntropy) {
    if (prompts.size() != responses.size()) {
      throw new IllegalArgumentException(prompts.size() + " prompts but " + responses.size() + " responses");
    }
    if (!(temperature >= 0) || Double.isInfinite(temperature)) {
      throw new IllegalArgumentException("temperature must be finite and >= 0, got " + temperature);
    }
    int b = prompts.size();
    if (b == 0) {
      throw new IllegalArgumentException("no prompts");
    }
    int lp = 0;
    int r = 0;
    int[] lengths = new int[b];
    for (int i = 0; i < b; i++) {
      if (prompts.get(i).length == 0) {
        throw new IllegalArgumentException("prompt " + i + " is empty");
      }
      model.checkTokens(Arrays.stream(prompts.get(i)).asLongStream().toArray());
      model.checkTokens(Arrays.stream(responses.get(i)).asLongStream().toArray());
      lp = Math.max(lp, prompts.get(i).length);
      lengths[i] = responses.get(i).length;
      r = Math.max(r, lengths[i]);
    }
    if (r == 0) {
      NDArray empty = manager.zeros(new Shape(b, 0), model.outputType());
      return new TokenScores(
          empty, empty.duplicate(), withEntropy ? empty.duplicate() : null, lengths);
    }
    if (sharePrefix && b > 1) {
      // rows that repeat an earlier row (the same prompt and response) are scored once and copied
      Map<RowKey, Integer> seen = new HashMap<>();
      int[] source = new int[b];
      List<int[]> uniquePrompts = new ArrayList<>();
      List<int[]> uniqueResponses = new ArrayList<>();
      for (int i = 0; i < b; i++) {
        int u = seen.computeIfAbsent(new RowKey(prompts.get(i), responses.get(i)), k -> seen.size());
        if (u == uniquePrompts.size()) {
          uniquePrompts.add(prompts.get(i));
          uniqueResponses.add(responses.get(i));
        }
        source[i] = u;
      }
      if (uniquePrompts.size() < b) {
        return expanded(manager, scoreRows(manager, uniquePrompts, uniqueResponses, lp, r, temperature, withEntropy),
            source, r, lengths);
      }
    }
    return scoreRows(manager, prompts, responses, lp, r, temperature, withEntropy);
  }

  /** A row's prompt and response, compared by content. */
  private record RowKey(int[] prompt, int[] response) {
    @Override
    public boolean equals(Object o) {
      return o instanceof RowKey k && Arrays.equals(prompt, k.prompt) && Arrays.equals(response, k.response);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(prompt) + Arrays.hashCode(response);
    }

    @Override
    public String toString() {
      return Arrays.toString(prompt) + " -> " + Arrays.toString(response);
    }
  }

  /** The unique rows' scores copied to every row ({@code source[i]}: the unique row of row i); differentiable. */
  private TokenScores expanded(NDManager manager, TokenScores unique, int[] source, int r, int[] lengths) {
    int b = source.length;
    long[] index = new long[b * r];
    float[] mask = new float[b * r];
    for (int i = 0; i < b; i++) {
      for (int j = 0; j < r; j++) {
        index[i * r + j] = source[i];
        mask[i * r + j] = j < lengths[i] ? 1 : 0;
      }
    }
    TokenScores.Pending pending = unique.takePending();
    try (unique; NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      // gather's backward pass keeps the index: a copy that owns its storage
      NDArray at = manager.create(index, new Shape(b, r)).duplicate();
      NDArray logProbs = unique.logProbs().gather(at, 0);
      NDArray entropy = unique.entropy().map(e -> e.gather(at, 0)).orElse(null);
      NDArray maskArray = manager.create(mask, new Shape(b, r)).toType(model.outputType(), false).duplicate();
      NDScope.unregister(logProbs, maskArray);
      if (entropy != null) {
        NDScope.unregister(entropy);
      }
      return new TokenScores(logProbs, maskArray, entropy, lengths, pending);
    }
  }

  private TokenScores scoreRows(NDManager manager, List<int[]> prompts, List<int[]> responses, int lp, int r,
      double temperature, boolean withEntropy) {
    int b = prompts.size();
    int[] lengths = new int[b];
    for (int i = 0; i < b; i++) {
      lengths[i] = responses.get(i).length;
    }
    // the prompts' common prefix, short of the last prompt token (whose slot predicts the first response token)
    int shared = 0;
    if (sharePrefix && b > 1) {
      int[] first = prompts.get(0);
      shared = first.length - 1;
      for (int i = 1; i < b && shared > 0; i++) {
        int[] p = prompts.get(i);
        int j = 0;
        int limit = Math.min(shared, p.length - 1);
        while (j < limit && p[j] == first[j]) {
          j++;
        }
        shared = j;
      }
      if (shared < MIN_SHARED_PREFIX) {
        shared = 0;
      }
    }
    int sp = lp - shared; // the suffixes' prompt part, left-padded to a common length
    int len = sp + r;
    long[] ids = new long[b * len];
    long[] targets = new long[b * r];
    float[] mask = new float[b * r];
    int[] pads = new int[b];
    for (int i = 0; i < b; i++) {
      int[] p = prompts.get(i);
      int[] resp = responses.get(i);
      pads[i] = lp - p.length;
      for (int j = shared; j < p.length; j++) {
        ids[i * len + pads[i] + j - shared] = p[j];
      }
      for (int j = 0; j < resp.length; j++) {
        ids[i * len + sp + j] = resp[j];
        targets[i * r + j] = resp[j];
        mask[i * r + j] = 1;
      }
    }
    boolean grad = GradMode.isEnabled();
    Qwen3Config config = model.config();
    boolean recomputeLayers = grad && chosen(layers, layerActivationBytes(config, (long) b * (len + shared)));
    boolean recomputeHead = grad && chosen(head, headActivationBytes(config, (long) b * r));
    Qwen3Model.Recomputed recomputed = null;
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      NDArray input = manager.create(ids, new Shape(b, len));
      NDArray prefixIds = null;
      if (shared > 0) {
        long[] prefix = new long[shared];
        for (int j = 0; j < shared; j++) {
          prefix[j] = prompts.get(0)[j];
        }
        prefixIds = manager.create(prefix, new Shape(1, shared));
      }
      NDArray hidden;
      if (recomputeLayers) {
        recomputed = model.forwardRecomputed(prefixIds, input, pads);
        hidden = recomputed.hidden();
      } else if (shared > 0) {
        hidden = model.forwardSharedPrefix(prefixIds, input, pads);
      } else {
        hidden = model.forward(input, pads, null);
      }
      // gather's and mul's backward passes keep these: copies own their storage (see Qwen3Model on Java memory)
      NDArray target = manager.create(targets, new Shape(b, r, 1)).duplicate();
      NDArray maskArray = manager.create(mask, new Shape(b, r)).toType(model.outputType(), false).duplicate();
      // the logits at slot sp-1+j predict response token j
      NDArray positions = hidden.get(":, {}:{}, :", sp - 1, sp - 1 + r);
      NDArray[] scores;
      TokenScores.Pending pending;
      if (recomputeHead) {
        HeadStage stage = new HeadStage(manager, positions, target, temperature, withEntropy, recomputed);
        scores = stage.scores();
        pending = stage;
      } else {
        scores = headScores(manager, positions, target, temperature, withEntropy);
        pending = recomputed == null ? null : layerStage(recomputed);
      }
      recomputed = null; // the pending stage owns it now
      NDArray tokenLogProbs = scores[0].mul(maskArray);
      NDArray entropy = null;
      if (withEntropy) {
        entropy = scores[1].mul(maskArray);
        NDScope.unregister(entropy);
      }
      NDScope.unregister(tokenLogProbs, maskArray);
      return new TokenScores(tokenLogProbs, maskArray, entropy, lengths, pending);
    } finally {
      if (recomputed != null) {
        recomputed.close();
      }
    }
  }

  /** The second stage of a pass whose layers only are recomputed. */
  private static TokenScores.Pending layerStage(Qwen3Model.Recomputed recomputed) {
    return new TokenScores.Pending() {
      @Override
      public void backward(GradientCollector collector) {
        recomputed.backward(collector);
      }

      @Override
      public void close() {
        recomputed.close();
      }
    };
  }

  /**
   * Log-probabilities of the targets (and entropies) at the given positions, {@link #positionChunk} positions at a
   * time: (B, R) arrays, connected to {@code positions}' graph when gradients are recorded.
   */
  private NDArray[] headScores(NDManager manager, NDArray positions, NDArray target, double temperature,
      boolean withEntropy) {
    long b = positions.getShape().get(0);
    int r = (int) positions.getShape().get(1);
    List<NDArray> logProbChunks = new ArrayList<>();
    List<NDArray> entropyChunks = new ArrayList<>();
    for (int from = 0; from < r; from += positionChunk) {
      int to = Math.min(r, from + positionChunk);
      NDArray h = to - from == r ? positions : positions.get(":, {}:{}, :", from, to);
      NDArray t = to - from == r ? target : target.get(":, {}:{}, :", from, to);
      NDArray[] chunk = chunkScores(manager, h, t, temperature, withEntropy);
      logProbChunks.add(chunk[0].reshape(b, to - from));
      if (withEntropy) {
        entropyChunks.add(chunk[1]);
      }
    }
    return new NDArray[] {concat(logProbChunks), withEntropy ? concat(entropyChunks) : null};
  }

  /** One chunk's (B, C, 1) log-probabilities of the targets and, on request, (B, C) entropies. */
  private NDArray[] chunkScores(NDManager manager, NDArray h, NDArray t, double temperature, boolean withEntropy) {
    NDArray logits = model.logits(h);
    if (temperature > 0 && temperature != 1) {
      // a native-owned scalar: div(Number) would wrap Java memory that the backward pass may read after GC
      NDArray temp = manager.create((float) temperature).toType(logits.getDataType(), false).duplicate();
      NDArray scaled = logits.div(temp);
      logits.close();
      logits = scaled;
    }
    NDArray logSoftmax = logits.logSoftmax(-1);
    logits.close();
    NDArray logProbs = logSoftmax.gather(t, -1);
    NDArray entropy = null;
    if (withEntropy) {
      NDArray p = logSoftmax.exp();
      NDArray plogp = p.mul(logSoftmax);
      p.close();
      entropy = plogp.sum(new int[] {-1}).neg();
      plogp.close();
    }
    return new NDArray[] {logProbs, entropy};
  }

  /**
   * A recomputed output head: the scores are computed without a graph, as leaves that collect the caller's gradient;
   * {@link #backward} then computes each chunk's logits again with a graph, back-propagates the scores' gradient
   * through them to the hidden states, and from there through the model (the recomputed layers' second stage, or
   * the kept graph).
   */
  private final class HeadStage implements TokenScores.Pending {
    private final NDManager manager;
    private final NDArray positions;
    private final NDArray leaf;
    private final NDArray target;
    private final double temperature;
    private final boolean withEntropy;
    private final Qwen3Model.Recomputed recomputed;
    private final NDArray logProbs;
    private final NDArray entropy;

    HeadStage(NDManager manager, NDArray positions, NDArray target, double temperature, boolean withEntropy,
        Qwen3Model.Recomputed recomputed) {
      this.manager = manager;
      this.positions = positions;
      this.target = target;
      this.temperature = temperature;
      this.withEntropy = withEntropy;
      this.recomputed = recomputed;
      NDScope.unregister(positions, target);
      NDArray[] s;
      GradMode noGrad = GradMode.disabled();
      try (NDScope scope = new NDScope()) {
        scope.suppressNotUsedWarning();
        leaf = positions.stopGradient().duplicate();
        s = headScores(manager, leaf, target, temperature, withEntropy);
        NDScope.unregister(leaf, s[0]);
        if (s[1] != null) {
          NDScope.unregister(s[1]);
        }
      } finally {
        noGrad.close();
      }
      logProbs = s[0];
      entropy = s[1];
      logProbs.setRequiresGradient(true);
      if (entropy != null) {
        entropy.setRequiresGradient(true);
      }
    }

    NDArray[] scores() {
      return new NDArray[] {logProbs, entropy};
    }

    @Override
    public void backward(GradientCollector collector) {
      boolean reached = logProbs.hasGradient() || entropy != null && entropy.hasGradient();
      if (reached) {
        leaf.setRequiresGradient(true);
        int r = (int) leaf.getShape().get(1);
        long b = leaf.getShape().get(0);
        try (NDScope scope = new NDScope()) {
          scope.suppressNotUsedWarning();
          NDArray gLogProbs = logProbs.hasGradient() ? logProbs.getGradient() : null;
          NDArray gEntropy = entropy != null && entropy.hasGradient() ? entropy.getGradient() : null;
          for (int from = 0; from < r; from += positionChunk) {
            int to = Math.min(r, from + positionChunk);
            try (NDScope chunkScope = new NDScope()) {
              chunkScope.suppressNotUsedWarning();
              String at = ":, " + from + ":" + to;
              NDArray[] chunk = chunkScores(manager, leaf.get(at + ", :"), target.get(at + ", :"), temperature,
                  gEntropy != null);
              NDArray objective = gLogProbs == null ? null : chunk[0].reshape(b, to - from).mul(gLogProbs.get(at))
                  .sum();
              if (gEntropy != null) {
                NDArray e = chunk[1].mul(gEntropy.get(at)).sum();
                objective = objective == null ? e : objective.add(e);
              }
              collector.backward(objective);
            }
          }
          if (leaf.hasGradient()) {
            NDArray gHidden = leaf.getGradient();
            collector.backward(positions.mul(gHidden).sum());
          }
        }
      }
      if (recomputed != null) {
        recomputed.backward(collector);
      }
    }

    @Override
    public void close() {
      positions.close();
      target.close();
      leaf.close();
      logProbs.close();
      if (entropy != null) {
        entropy.close();
      }
      if (recomputed != null) {
        recomputed.close();
      }
    }
  }

  private static NDArray concat(List<NDArray> chunks) {
    if (chunks.size() == 1) {
      return chunks.get(0);
    }
    NDList list = new NDList(chunks.size());
    list.addAll(chunks);
    return NDArrays.concat(list, 1);
  }
}
