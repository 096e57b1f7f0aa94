package org.magejvm.impl.train.update;

import org.magejvm.impl.train.MemoryProbe;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleUnaryOperator;
import java.util.stream.IntStream;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.PolicyLoss;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.impl.llm.generate.Recompute;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.api.annotation.Api;

/**
 * One policy-gradient update over a batch of scored turns: old (and reference) log-probabilities first, then
 * minibatches of {@link Settings#miniBatchTurns()} turns, each split into micro-batches whose gradients accumulate
 * before one {@link AdamW} step. The loss of every micro-batch is normalised by its whole minibatch (token count or
 * sequence count), so accumulation gives exactly the gradient of one pass over the minibatch. This global normaliser
 * is the one difference from the reference's {@code dp_actor.update_policy}, which takes each micro-batch's own token
 * mean and divides it by the number of micro-batches: a token of a micro-batch with T_m of the minibatch's T tokens
 * weighs T / (8 T_m) times as much there as here (0.75 to 1.7 on the fixture of {@code ReferenceUpdateFidelityTest},
 * which otherwise pins this update to the reference's: loss, gradient and AdamW steps to float64 rounding).
 *
 * <p>Rows are taken in the order given (the reference does not shuffle); within a minibatch, and for the old and
 * reference log-probabilities, they are cut into micro-batches in order of length, so that each micro-batch pads
 * little (a minibatch's gradient is the same however it is cut). Rows whose advantage is exactly zero contribute no
 * policy gradient, but the reference trains them like every row: they count in the token mean's denominator, and
 * their entropy and KL terms act. With {@link Settings#skipZeroAdvantage()} (the {@code mage} preset; not the
 * reference's) they are left out before the batch is cut into minibatches, and counted, which changes more than the
 * entropy and KL terms' weight: with z the share of zero-advantage tokens, the policy gradient is about 1/(1 - z)
 * times larger before the gradient-norm clip, the states those turns saw lose their KL pull towards the reference
 * model, every minibatch holds {@link Settings#miniBatchTurns()} turns with non-zero advantages (so fewer AdamW steps,
 * over another mix of turns), and a batch whose advantages are all zero takes no step at all (AdamW's weight decay
 * and moments included).
 *
 * <p>With {@link Settings#maxUpdateKl()} above 0 the update is checked after its last step, as a backtracking line
 * search: every turn of the batch with a response (the zero-advantage ones too, which see prompts the trained ones may
 * not) is scored again, and the mean per-token KL divergence from the policy before the update (the k3 estimate over
 * the turns' own tokens) is compared with the limit. An update that moved the policy further is undone (parameters
 * and optimizer state put back) and run again with half the learning rate, at most {@value #MAX_BACKTRACKS} times;
 * the last try is kept whatever its divergence, so a policy that has to move far (out of a broken answer format, say)
 * still moves ({@link Report#backtracks()}, {@link Report#stepScale()}). With {@link Settings#maxAnchorDrop()} above 0
 * and anchor turns given, each try must also keep the anchors' mean per-token log-probability within the limit; that
 * test is one-sided (an update that raises them always passes it) and strict: when the last try still fails it, the
 * update is undone ({@link Report#undone()}). The reference has no such check: with one
 * optimizer step per batch PPO's ratio clip never acts (the ratio is exactly 1 at the first step), so nothing else
 * bounds a step.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class PolicyUpdater {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PolicyUpdater.class);
  /** How many times the update check halves the learning rate of an update before it keeps the last try. */
  public static final int MAX_BACKTRACKS = 3;

  /**
   * How the update runs.
   *
   * @param miniBatchTurns turns per optimizer step (64 in the reference)
   * @param microBatchTurns turns per forward/backward pass (memory bound; gradients accumulate)
   * @param epochs passes over the batch
   * @param recomputeOldLogProbs recompute the old log-probabilities at temperature 1 before the update (the
   *     reference's way) instead of taking the ones recorded while sampling
   * @param skipZeroAdvantage leave rows with a zero advantage out of the update, before the batch is cut into
   *     minibatches (the reference trains them: they add no policy gradient but count in the token mean and keep
   *     their entropy and KL terms; see the class comment for what leaving them out changes)
   * @param maxUpdateKl the largest mean per-token KL divergence (old to new policy, on the batch's tokens) an update
   *     may cause before it is retried with half the learning rate; 0 turns the check off (the reference's
   *     behaviour). The check costs two more scoring passes over the batch (one per try after the first), a copy of
   *     the trainable parameters and optimizer state, and a whole update per retry
   * @param maxAnchorDrop the largest mean per-token drop of the anchor turns' log-probabilities ({@link
   *     PolicyUpdater#PolicyUpdater(Qwen3Model, ReferencePolicy, PolicyOptimizer, AdamW, Settings, List) anchors}:
   *     answers in the format the policy must keep) an update may cause; a try that drops them more is redone at half
   *     the learning rate, and when the last try still does, the update is undone. 0 turns the check off
   * @param microBatchTokens the most token slots (rows times the longest row's prompt plus response) one forward pass
   *     may hold, 0 for no limit: a micro-batch ends before {@code microBatchTurns} rows when the next row would
   *     exceed it (a row longer than the limit makes a micro-batch of its own). Attention's memory grows with rows
   *     times the square of their length, so long rows need fewer per pass
   */
  public record Settings(
      int miniBatchTurns, int microBatchTurns, int epochs, boolean recomputeOldLogProbs, boolean skipZeroAdvantage,
      double maxUpdateKl, double maxAnchorDrop, int microBatchTokens, Recompute recomputeLayers,
      Recompute recomputeHead) {

    /**
     * Validates.
     *
     * @param miniBatchTurns minibatch size
     * @param microBatchTurns micro-batch size
     * @param epochs epochs
     * @param recomputeOldLogProbs recompute old log-probs
     * @param skipZeroAdvantage skip zero-advantage rows
     * @param maxUpdateKl the update's KL limit, 0 for none
     * @param maxAnchorDrop the anchors' log-probability drop limit, 0 for none
     * @param microBatchTokens the token-slot limit of a micro-batch, 0 for none
     * @param recomputeLayers whether a training pass recomputes the decoder layers' activations
     * @param recomputeHead whether a training pass recomputes the output head's logits
     */
    public Settings {
      Objects.requireNonNull(recomputeLayers, "recomputeLayers");
      Objects.requireNonNull(recomputeHead, "recomputeHead");
      if (microBatchTokens < 0) {
        throw new IllegalArgumentException("microBatchTokens must be >= 0 (0: no limit), got " + microBatchTokens);
      }
      if (miniBatchTurns < 1 || microBatchTurns < 1 || epochs < 1) {
        throw new IllegalArgumentException("miniBatchTurns, microBatchTurns and epochs must be >= 1, got "
            + miniBatchTurns + ", " + microBatchTurns + " and " + epochs);
      }
      if (!(maxUpdateKl >= 0) || Double.isInfinite(maxUpdateKl)) {
        throw new IllegalArgumentException("maxUpdateKl must be finite and >= 0 (0: no check), got " + maxUpdateKl);
      }
      if (!(maxAnchorDrop >= 0) || Double.isInfinite(maxAnchorDrop)) {
        throw new IllegalArgumentException("maxAnchorDrop must be finite and >= 0 (0: no check), got "
            + maxAnchorDrop);
      }
    }

    /**
     * Settings that recompute where {@link Recompute#AUTO} does.
     *
     * @param miniBatchTurns minibatch size
     * @param microBatchTurns micro-batch size
     * @param epochs epochs
     * @param recomputeOldLogProbs recompute old log-probs
     * @param skipZeroAdvantage skip zero-advantage rows
     * @param maxUpdateKl the update's KL limit, 0 for none
     * @param maxAnchorDrop the anchors' log-probability drop limit, 0 for none
     * @param microBatchTokens the token-slot limit of a micro-batch, 0 for none
     */
    public Settings(int miniBatchTurns, int microBatchTurns, int epochs, boolean recomputeOldLogProbs,
        boolean skipZeroAdvantage, double maxUpdateKl, double maxAnchorDrop, int microBatchTokens) {
      this(miniBatchTurns, microBatchTurns, epochs, recomputeOldLogProbs, skipZeroAdvantage, maxUpdateKl,
          maxAnchorDrop, microBatchTokens, Recompute.AUTO, Recompute.AUTO);
    }

    /**
     * Settings without a token limit on micro-batches.
     *
     * @param miniBatchTurns minibatch size
     * @param microBatchTurns micro-batch size
     * @param epochs epochs
     * @param recomputeOldLogProbs recompute old log-probs
     * @param skipZeroAdvantage skip zero-advantage rows
     * @param maxUpdateKl the update's KL limit, 0 for none
     * @param maxAnchorDrop the anchors' log-probability drop limit, 0 for none
     */
    public Settings(int miniBatchTurns, int microBatchTurns, int epochs, boolean recomputeOldLogProbs,
        boolean skipZeroAdvantage, double maxUpdateKl, double maxAnchorDrop) {
      this(miniBatchTurns, microBatchTurns, epochs, recomputeOldLogProbs, skipZeroAdvantage, maxUpdateKl,
          maxAnchorDrop, 0);
    }

    /**
     * Settings without the anchor check.
     *
     * @param miniBatchTurns minibatch size
     * @param microBatchTurns micro-batch size
     * @param epochs epochs
     * @param recomputeOldLogProbs recompute old log-probs
     * @param skipZeroAdvantage skip zero-advantage rows
     * @param maxUpdateKl the update's KL limit, 0 for none
     */
    public Settings(int miniBatchTurns, int microBatchTurns, int epochs, boolean recomputeOldLogProbs,
        boolean skipZeroAdvantage, double maxUpdateKl) {
      this(miniBatchTurns, microBatchTurns, epochs, recomputeOldLogProbs, skipZeroAdvantage, maxUpdateKl, 0);
    }

    /**
     * Settings without the update's KL check.
     *
     * @param miniBatchTurns minibatch size
     * @param microBatchTurns micro-batch size
     * @param epochs epochs
     * @param recomputeOldLogProbs recompute old log-probs
     * @param skipZeroAdvantage skip zero-advantage rows
     */
    public Settings(
        int miniBatchTurns, int microBatchTurns, int epochs, boolean recomputeOldLogProbs, boolean skipZeroAdvantage) {
      this(miniBatchTurns, microBatchTurns, epochs, recomputeOldLogProbs, skipZeroAdvantage, 0, 0);
    }

    /**
     * These settings with another KL limit.
     *
     * @param limit the update's KL limit, 0 for none
     * @return the new settings
     */
    public Settings withMaxUpdateKl(double limit) {
      return new Settings(miniBatchTurns, microBatchTurns, epochs, recomputeOldLogProbs, skipZeroAdvantage, limit,
          maxAnchorDrop, microBatchTokens, recomputeLayers, recomputeHead);
    }

    /**
     * These settings with another micro-batch size.
     *
     * @param turns turns per forward and backward pass
     * @return the new settings
     */
    public Settings withMicroBatchTurns(int turns) {
      return new Settings(miniBatchTurns, turns, epochs, recomputeOldLogProbs, skipZeroAdvantage, maxUpdateKl,
          maxAnchorDrop, microBatchTokens, recomputeLayers, recomputeHead);
    }

    /**
     * These settings with another old log-probability source.
     *
     * @param recompute recompute the old log-probabilities (true) or take the recorded ones
     * @return the new settings
     */
    public Settings withRecomputeOldLogProbs(boolean recompute) {
      return new Settings(miniBatchTurns, microBatchTurns, epochs, recompute, skipZeroAdvantage, maxUpdateKl,
          maxAnchorDrop, microBatchTokens, recomputeLayers, recomputeHead);
    }

    /**
     * These settings with another anchor limit.
     *
     * @param limit the anchors' log-probability drop limit, 0 for none
     * @return the new settings
     */
    public Settings withMaxAnchorDrop(double limit) {
      return new Settings(miniBatchTurns, microBatchTurns, epochs, recomputeOldLogProbs, skipZeroAdvantage,
          maxUpdateKl, limit, microBatchTokens, recomputeLayers, recomputeHead);
    }

    /**
     * These settings with other recomputation choices.
     *
     * @param layers whether a training pass recomputes the decoder layers' activations
     * @param head whether a training pass recomputes the output head's logits
     * @return the new settings
     */
    public Settings withRecompute(Recompute layers, Recompute head) {
      return new Settings(miniBatchTurns, microBatchTurns, epochs, recomputeOldLogProbs, skipZeroAdvantage,
          maxUpdateKl, maxAnchorDrop, microBatchTokens, layers, head);
    }

    /**
     * @return 64-turn minibatches, 8-turn micro-batches, one epoch, recomputed old log-probs, zero rows skipped (the
     *     reference trains them: {@code TrainingPreset.MAGE_REFERENCE} sets {@code skipZeroAdvantage} false)
     */
    public static Settings defaults() {
      return new Settings(64, 8, 1, true, true);
    }
  }

  /**
   * One trainable turn.
   *
   * @param prompt the prompt token ids (chat-formatted, as the policy saw them)
   * @param response the response token ids, stop token included
   * @param rolloutLogProbs the log-probabilities recorded while sampling (may be empty when old log-probs are
   *     recomputed)
   * @param advantage the turn's advantage, broadcast over its tokens
   */
  public record Row(int[] prompt, int[] response, float[] rolloutLogProbs, double advantage) {

    /**
     * Validates.
     *
     * @param prompt prompt ids
     * @param response response ids
     * @param rolloutLogProbs recorded log-probs
     * @param advantage advantage
     */
    public Row {
      Objects.requireNonNull(prompt, "prompt");
      Objects.requireNonNull(response, "response");
      rolloutLogProbs = rolloutLogProbs == null ? new float[0] : rolloutLogProbs;
      if (prompt.length == 0) {
        throw new IllegalArgumentException("a trainable turn needs prompt tokens");
      }
      if (!Double.isFinite(advantage)) {
        throw new IllegalArgumentException("advantage must be finite, got " + advantage);
      }
    }
  }

  /**
   * What one update did.
   *
   * @param rows rows given
   * @param trainedRows rows that entered the update
   * @param skippedZeroAdvantage rows left out for a zero advantage
   * @param emptyResponses rows left out for an empty response
   * @param optimizerSteps AdamW steps taken (skipped ones included)
   * @param skippedSteps AdamW steps skipped for a non-finite loss or gradient
   * @param meanGradNorm the mean gradient norm (before clipping) over the steps that were not skipped
   * @param diagnostics the loss diagnostics, averaged over minibatches
   * @param updateKl the mean per-token KL divergence the kept update caused on the batch's turns (k3 estimate), NaN
   *     when not measured ({@link Settings#maxUpdateKl()} is 0 or nothing was trained)
   * @param backtracks how many tries were undone for exceeding {@link Settings#maxUpdateKl()} (0 to {@value
   *     #MAX_BACKTRACKS})
   * @param stepScale the factor of the learning rate of the kept try (1, 1/2, 1/4 or 1/8)
   * @param anchorChange the mean per-token change of the anchor turns' log-probabilities the kept (or, when undone,
   *     the last) try caused, negative for a drop; NaN when not measured
   * @param undone whether the update was undone because even its last try dropped the anchors too far
   * @param timing where the update's time went
   */
  public record Report(
      int rows,
      int trainedRows,
      int skippedZeroAdvantage,
      int emptyResponses,
      int optimizerSteps,
      int skippedSteps,
      double meanGradNorm,
      Map<String, Double> diagnostics,
      double updateKl,
      int backtracks,
      double stepScale,
      double anchorChange,
      boolean undone,
      Timing timing) {

    /**
     * This report with another timing.
     *
     * @param t the timing
     * @return the new report
     */
    Report withTiming(Timing t) {
      return new Report(rows, trainedRows, skippedZeroAdvantage, emptyResponses, optimizerSteps, skippedSteps,
          meanGradNorm, diagnostics, updateKl, backtracks, stepScale, anchorChange, undone, t);
    }
  }

  /**
   * Where an update's wall-clock time went, in seconds, and how many tokens (prompt and response tokens of the rows,
   * padding not counted) each phase passed through the model.
   *
   * @param oldSeconds scoring the old log-probabilities (0 when the recorded ones are used)
   * @param referenceSeconds scoring the reference log-probabilities for the KL term (0 without one)
   * @param optimizeSeconds the forward and backward passes and the AdamW steps, over all tries
   * @param checkSeconds scoring for the update checks (batch KL, anchors), before and after every try
   * @param oldTokens tokens scored for the old log-probabilities
   * @param referenceTokens tokens scored by the reference model
   * @param optimizeTokens tokens passed forward and backward, over all tries and epochs
   * @param checkTokens tokens scored for the update checks
   */
  public record Timing(double oldSeconds, double referenceSeconds, double optimizeSeconds, double checkSeconds,
      long oldTokens, long referenceTokens, long optimizeTokens, long checkTokens) {

    /** No time spent. */
    public static final Timing NONE = new Timing(0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * The figures as metrics: {@code timing/update_old_s}, {@code timing/update_reference_s}, {@code
     * timing/update_optimize_s}, {@code timing/update_checks_s} and {@code tokens/update_old}, {@code
     * tokens/update_reference}, {@code tokens/update_optimize}, {@code tokens/update_checks}.
     *
     * @return the metrics, in that order
     */
    public Map<String, Number> toMap() {
      Map<String, Number> m = new LinkedHashMap<>();
      m.put("timing/update_old_s", oldSeconds);
      m.put("timing/update_reference_s", referenceSeconds);
      m.put("timing/update_optimize_s", optimizeSeconds);
      m.put("timing/update_checks_s", checkSeconds);
      m.put("tokens/update_old", oldTokens);
      m.put("tokens/update_reference", referenceTokens);
      m.put("tokens/update_optimize", optimizeTokens);
      m.put("tokens/update_checks", checkTokens);
      return m;
    }
  }

  /** Adds up the phases of one update. */
  private static final class PhaseClock {
    private final double[] seconds = new double[4];
    private final long[] tokens = new long[4];

    void add(int phase, long startNanos, List<Row> rows) {
      add(phase, startNanos, rows, 1);
    }

    void add(int phase, long startNanos, List<Row> rows, int passes) {
      seconds[phase] += (System.nanoTime() - startNanos) / 1e9;
      tokens[phase] += passes * sequenceTokens(rows);
    }

    Timing timing() {
      return new Timing(seconds[0], seconds[1], seconds[2], seconds[3], tokens[0], tokens[1], tokens[2], tokens[3]);
    }
  }

  private static final int OLD = 0;
  private static final int REFERENCE = 1;
  private static final int OPTIMIZE = 2;
  private static final int CHECK = 3;

  private static long sequenceTokens(List<Row> rows) {
    long n = 0;
    for (Row r : rows) {
      n += r.prompt().length + r.response().length;
    }
    return n;
  }

  private final Qwen3Model model;
  private final ReferencePolicy reference;
  private final PolicyLoss loss;
  private final AdamW optimizer;
  private final Settings settings;
  private final boolean withEntropy;
  private final List<Row> anchors;
  /**
   * The anchors' scores on the current weights, kept from the end of the previous update (its last try's scores, or
   * the baseline when it was undone or took no step), so that the next update need not score them again before it
   * starts; valid while AdamW's step count is {@link #anchorScoresStep}.
   */
  private List<float[]> anchorScores;
  private long anchorScoresStep = -1;
  /**
   * Set by a restore after which the run being continued held its anchors' scores ({@link
   * #forgetAnchorScores(boolean)}): the next baseline is scored again, but not counted in {@code
   * tokens/update_checks} and {@code timing/update_checks_s}, since the uninterrupted run did not score it, so that a
   * resumed run's metrics equal the uninterrupted run's. (Keeping the scores in the checkpoint instead would save that
   * one scoring pass, but write every anchor token's log-probability into each checkpoint.)
   */
  private boolean rescoreUncounted;

  /**
   * An updater.
   *
   * @param model the policy being trained (the optimizer holds its trainable parameters)
   * @param reference the reference policy for the KL term, or null when the loss has no KL term
   * @param policyOptimizer the policy optimizer whose loss is minimised (entropies are computed when its entropy
   *     coefficient is not 0)
   * @param optimizer AdamW over {@code model}'s trainable parameters
   * @param settings batching
   */
  public PolicyUpdater(
      Qwen3Model model, ReferencePolicy reference, PolicyOptimizer policyOptimizer, AdamW optimizer,
      Settings settings) {
    this(model, reference, policyOptimizer, optimizer, settings, List.of());
  }

  /**
   * An updater with anchor turns for {@link Settings#maxAnchorDrop()}: turns (prompt and response ids; their
   * advantages are ignored) whose log-probabilities an update must not lower by more than the limit, per token on
   * average, such as transcripts of the answer format the policy was warm-started on. A broken answer format shows
   * there even when the batch holds none of the states it broke on; legitimate learning moves them little per update
   * (it raises some answers and lowers others). Scoring them costs one forward pass over them before an update and
   * one after every try.
   *
   * @param model the policy being trained (the optimizer holds its trainable parameters)
   * @param reference the reference policy for the KL term, or null when the loss has no KL term
   * @param policyOptimizer the policy optimizer whose loss is minimised
   * @param optimizer AdamW over {@code model}'s trainable parameters
   * @param settings batching and checks
   * @param anchors the anchor turns (copied), empty for none
   */
  public PolicyUpdater(
      Qwen3Model model, ReferencePolicy reference, PolicyOptimizer policyOptimizer, AdamW optimizer,
      Settings settings, List<Row> anchors) {
    this.anchors = List.copyOf(Objects.requireNonNull(anchors, "anchors"));
    for (int i = 0; i < this.anchors.size(); i++) {
      if (this.anchors.get(i).response().length == 0) {
        throw new IllegalArgumentException("anchor turn " + i + " has an empty response");
      }
    }
    this.model = Objects.requireNonNull(model, "model");
    this.reference = reference;
    this.loss = Objects.requireNonNull(policyOptimizer, "policyOptimizer").loss();
    this.optimizer = Objects.requireNonNull(optimizer, "optimizer");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.withEntropy = policyOptimizer.config().entropyCoefficient() > 0;
    if (policyOptimizer.config().klCoefficient() > 0 && reference == null) {
      throw new IllegalArgumentException("the KL coefficient is " + policyOptimizer.config().klCoefficient()
          + " but no reference model was given; pass one or set the KL coefficient to 0");
    }
  }

  /**
   * Runs the update.
   *
   * @param given the turns, in batch order
   * @return what it did
   */
  public Report update(List<Row> given) {
    return update(given, () -> { });
  }

  /**
   * {@link #update(List)}, calling back between the scoring of old and reference log-probs and the optimisation (for
   * per-phase measurements such as {@link MemoryProbe}).
   *
   * @param given the rows of one training batch
   * @param afterScoring called once the old and reference log-probs are computed (also when nothing is trained)
   * @return what happened
   */
  public Report update(List<Row> given, Runnable afterScoring) {
    PhaseClock clock = new PhaseClock();
    return run(given, afterScoring, clock).withTiming(clock.timing());
  }

  private Report run(List<Row> given, Runnable afterScoring, PhaseClock clock) {
    List<Row> rows = new ArrayList<>();
    List<Row> skippedZero = new ArrayList<>();
    int empty = 0;
    for (Row r : given) {
      if (r.response().length == 0) {
        empty++;
      } else if (settings.skipZeroAdvantage() && r.advantage() == 0) {
        skippedZero.add(r);
      } else {
        rows.add(r);
      }
    }
    int zero = skippedZero.size();
    if (rows.isEmpty()) {
      afterScoring.run();
      return new Report(given.size(), 0, zero, empty, 0, 0, 0, Map.of(), Double.NaN, 0, 1.0, Double.NaN, false,
          Timing.NONE);
    }
    long t = System.nanoTime();
    List<float[]> old;
    if (settings.recomputeOldLogProbs()) {
      old = score(model, rows);
      clock.add(OLD, t, rows);
    } else {
      old = recorded(rows);
    }
    List<float[]> ref = null;
    if (reference != null) {
      t = System.nanoTime();
      ref = reference.apply(m -> score(m, rows));
      clock.add(REFERENCE, t, rows);
    }
    afterScoring.run();

    boolean checkKl = settings.maxUpdateKl() > 0;
    boolean checkAnchors = settings.maxAnchorDrop() > 0 && !anchors.isEmpty();
    if (!checkKl && !checkAnchors) {
      t = System.nanoTime();
      Report r = optimize(given.size(), rows, zero, empty, old, ref, 1.0);
      clock.add(OPTIMIZE, t, rows, settings.epochs());
      return r;
    }
    // the KL check scores every turn with a response, trained or not, at temperature 1 before and after; the trained
    // turns' recomputed old log-probs are those scores already
    List<Row> checked = new ArrayList<>(rows);
    checked.addAll(skippedZero);
    List<float[]> baseline = null;
    if (checkKl) {
      t = System.nanoTime();
      baseline = new ArrayList<>(settings.recomputeOldLogProbs() ? old : score(model, rows));
      baseline.addAll(score(model, skippedZero));
      clock.add(CHECK, t, settings.recomputeOldLogProbs() ? skippedZero : checked);
    }
    List<float[]> anchorBaseline = checkAnchors ? anchorBaseline(clock) : null;
    try (AdamW.Snapshot before = optimizer.snapshot()) {
      double scale = 1.0;
      for (int tries = 0; ; tries++) {
        t = System.nanoTime();
        Report r = optimize(given.size(), rows, zero, empty, old, ref, scale);
        clock.add(OPTIMIZE, t, rows, settings.epochs());
        if (r.optimizerSteps() == r.skippedSteps()) {
          keepAnchorScores(anchorBaseline);
          return r;
        }
        t = System.nanoTime();
        double kl = checkKl ? meanKl(baseline, score(model, checked)) : Double.NaN;
        if (checkKl) {
          clock.add(CHECK, t, checked);
        }
        t = System.nanoTime();
        List<float[]> anchorsNow = checkAnchors ? score(model, anchors) : null;
        if (checkAnchors) {
          clock.add(CHECK, t, anchors);
        }
        double change = checkAnchors ? meanChange(anchorBaseline, anchorsNow) : Double.NaN;
        boolean klOk = !checkKl || kl <= settings.maxUpdateKl();
        boolean anchorsOk = !checkAnchors || change >= -settings.maxAnchorDrop();
        boolean last = tries == MAX_BACKTRACKS;
        if ((klOk || last) && anchorsOk) {
          if (!klOk) {
            LOG.warn("update kept at 1/{} of the learning rate with a mean KL of {} per token over {} turns, still"
                + " above the limit {}", 1 << MAX_BACKTRACKS, String.format(java.util.Locale.ROOT, "%.4g", kl),
                checked.size(), settings.maxUpdateKl());
          }
        } else {
          optimizer.restore(before);
          if (!last) {
            scale /= 2;
            continue;
          }
          LOG.warn("update undone: even at 1/{} of the learning rate it lowered the log-probability of the {} anchor"
              + " turns by {} per token, above the limit {}", 1 << MAX_BACKTRACKS, anchors.size(),
              String.format(java.util.Locale.ROOT, "%.4g", -change), settings.maxAnchorDrop());
        }
        boolean undone = !anchorsOk;
        if (checkAnchors) {
          keepAnchorScores(undone ? anchorBaseline : anchorsNow);
        }
        return new Report(r.rows(), r.trainedRows(), r.skippedZeroAdvantage(), r.emptyResponses(),
            r.optimizerSteps(), r.skippedSteps(), r.meanGradNorm(), r.diagnostics(), kl, tries, scale, change, undone,
            Timing.NONE);
      }
    }
  }

  /**
   * The anchors' scores before an update: the ones kept from the previous update when AdamW has not stepped since
   * (the weights are then the same, and so are the scores, bit for bit), else scored now.
   */
  private List<float[]> anchorBaseline(PhaseClock clock) {
    if (anchorScores != null && anchorScoresStep == optimizer.stepCount()) {
      return anchorScores;
    }
    long t = System.nanoTime();
    List<float[]> scores = score(model, anchors);
    if (!rescoreUncounted) {
      clock.add(CHECK, t, anchors);
    }
    rescoreUncounted = false;
    return scores;
  }

  private void keepAnchorScores(List<float[]> scores) {
    anchorScores = scores;
    anchorScoresStep = scores == null ? -1 : optimizer.stepCount();
  }

  /**
   * Forgets the anchors' scores kept from the last update; call it when the weights change outside the updater.
   * Their next scoring is counted in the update's metrics.
   */
  void forgetAnchorScores() {
    forgetAnchorScores(false);
  }

  /**
   * Forgets the anchors' scores kept from the last update, after a checkpoint was restored into the model.
   *
   * @param heldBefore whether the run that wrote the checkpoint held the anchors' scores on its weights then ({@link
   *     #holdsAnchorScores()}, saved in the checkpoint): its next update would not have scored them, so the
   *     scoring this updater must do is left out of {@code tokens/update_checks} and {@code timing/update_checks_s},
   *     and the resumed run's metrics equal the uninterrupted run's
   */
  public void forgetAnchorScores(boolean heldBefore) {
    keepAnchorScores(null);
    rescoreUncounted = heldBefore;
  }

  /**
   * @return whether the next update takes the anchors' baseline from the last update instead of scoring it (what a
   *     checkpoint records, for {@link #forgetAnchorScores(boolean)} after a resume)
   */
  public boolean holdsAnchorScores() {
    // after a resume and before the next update, the run being continued holds them
    return keptAnchorScores() != null || rescoreUncounted;
  }

  /** @return the anchors' scores kept for the next update, or null (for tests) */
  List<float[]> keptAnchorScores() {
    return anchorScores != null && anchorScoresStep == optimizer.stepCount() ? anchorScores : null;
  }

  /** The mean over all tokens of {@code now - before}; NaN when a log-probability is not finite. */
  static double meanChange(List<float[]> before, List<float[]> now) {
    double mean = meanPerToken(before, now, logRatio -> logRatio);
    return Double.isFinite(mean) ? mean : Double.NaN;
  }

  /** The mean over all tokens of {@code f(now - before)} (row by row, token by token), 0 when there is none. */
  private static double meanPerToken(List<float[]> before, List<float[]> now, DoubleUnaryOperator f) {
    double sum = 0;
    long tokens = 0;
    for (int i = 0; i < before.size(); i++) {
      float[] b = before.get(i);
      float[] n = now.get(i);
      for (int t = 0; t < b.length; t++) {
        sum += f.applyAsDouble((double) n[t] - b[t]);
        tokens++;
      }
    }
    return tokens == 0 ? 0 : sum / tokens;
  }

  private Report optimize(int given, List<Row> rows, int zero, int empty, List<float[]> old, List<float[]> ref,
      double scale) {
    LossDiagnostics sum = null;
    int minibatches = 0;
    int steps = 0;
    int skipped = 0;
    double normSum = 0;
    TeacherForcing tf = new TeacherForcing(model).withRecompute(settings.recomputeLayers(), settings.recomputeHead());
    for (int epoch = 0; epoch < settings.epochs(); epoch++) {
      for (int start = 0; start < rows.size(); start += settings.miniBatchTurns()) {
        int end = Math.min(rows.size(), start + settings.miniBatchTurns());
        LossDiagnostics mini = accumulate(tf, rows.subList(start, end), old.subList(start, end),
            ref == null ? null : ref.subList(start, end));
        // reduced precision: gradients that overflowed FLOAT16 at the loss scale are computed again at half the
        // scale, so that no minibatch is lost to finding the scale (float32 has no loss scaling: nothing runs here)
        while (optimizer.lossScaling().isPresent() && Double.isFinite(mini.loss()) && optimizer.gradientsOverflowed()
            && optimizer.rescaleAfterOverflow()) {
          mini = accumulate(tf, rows.subList(start, end), old.subList(start, end),
              ref == null ? null : ref.subList(start, end));
        }
        StepReport step = Double.isFinite(mini.loss()) ? optimizer.step(scale) : optimizer.skip();
        steps++;
        if (step.skipped()) {
          skipped++;
        } else {
          normSum += step.gradNorm();
        }
        sum = sum == null ? mini : sum.plus(mini);
        minibatches++;
      }
    }
    Map<String, Double> diagnostics = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : sum.toMap().entrySet()) {
      diagnostics.put(e.getKey(), e.getValue() / minibatches);
    }
    return new Report(given, rows.size(), zero, empty, steps, skipped,
        steps == skipped ? 0 : normSum / (steps - skipped), diagnostics, Double.NaN, 0, scale, Double.NaN, false,
        Timing.NONE);
  }

  /**
   * The mean over all tokens of the k3 estimate {@code r - 1 - log r}, {@code r = p_new / p_old}, of KL(old || new)
   * on tokens sampled from the old policy; infinite or NaN when a log-probability is not finite (the check then counts
   * the limit as exceeded).
   */
  static double meanKl(List<float[]> old, List<float[]> now) {
    return meanPerToken(old, now, logRatio -> Math.expm1(logRatio) - logRatio);
  }

  /**
   * Runs forward and backward over one minibatch in micro-batches, accumulating the parameters' gradients (no
   * optimizer step). A micro-batch whose loss is not finite is not back-propagated; the minibatch's loss then reads
   * non-finite and the caller skips the step.
   *
   * @return the minibatch's summed diagnostics
   */
  LossDiagnostics accumulate(TeacherForcing tf, List<Row> given, List<float[]> givenOld, List<float[]> givenRef) {
    double normalizer = normalizer(given, 0, given.size());
    // micro-batches of rows of similar length: the sum over the minibatch, hence its gradient, does not depend on
    // how it is cut, but each micro-batch is padded to its longest prompt and response
    int[] order = byLength(given);
    List<Row> rows = permuted(given, order);
    List<float[]> old = permuted(givenOld, order);
    List<float[]> ref = givenRef == null ? null : permuted(givenRef, order);
    LossDiagnostics mini = null;
    for (int[] cut : cuts(rows)) {
      int m = cut[0];
      int me = cut[1];
      LossDiagnostics d = microBatch(tf, rows.subList(m, me), old.subList(m, me),
          ref == null ? null : ref.subList(m, me), normalizer);
      mini = mini == null ? d : mini.plus(d);
    }
    return mini;
  }

  /**
   * The micro-batches of rows in the given order, as [start, end) ranges: at most {@link Settings#microBatchTurns()}
   * rows each, and, with {@link Settings#microBatchTokens()} above 0, at most that many token slots (rows times the
   * longest prompt plus the longest response among them, as a pass pads them), unless one row alone is longer.
   */
  List<int[]> cuts(List<Row> rows) {
    List<int[]> out = new ArrayList<>();
    int start = 0;
    while (start < rows.size()) {
      int end = start;
      int prompt = 0;
      int response = 0;
      while (end < rows.size() && end - start < settings.microBatchTurns()) {
        Row r = rows.get(end);
        int p = Math.max(prompt, r.prompt().length);
        int q = Math.max(response, r.response().length);
        if (settings.microBatchTokens() > 0 && end > start
            && (long) (end - start + 1) * (p + q) > settings.microBatchTokens()) {
          break;
        }
        prompt = p;
        response = q;
        end++;
      }
      out.add(new int[] {start, end});
      start = end;
    }
    return out;
  }

  /**
   * The rows' indices sorted by prompt plus response length (stably, so equal lengths keep their order). Cutting
   * rows in this order into micro-batches pads far less than cutting them in batch order, where a meta-episode's
   * turns follow each other with prompts that grow with its history.
   */
  static int[] byLength(List<Row> rows) {
    return IntStream.range(0, rows.size()).boxed()
        .sorted(Comparator.comparingInt(i -> rows.get(i).prompt().length + rows.get(i).response().length))
        .mapToInt(Integer::intValue).toArray();
  }

  private static <T> List<T> permuted(List<T> values, int[] order) {
    List<T> out = new ArrayList<>(order.length);
    for (int i : order) {
      out.add(values.get(i));
    }
    return out;
  }

  /**
   * The log-probabilities of the rows' responses under the trained model at temperature 1, with no graph (the old
   * policy), scored in this updater's micro-batches as the update scores them.
   *
   * @param rows the rows
   * @return one array per row, in the rows' order
   */
  public List<float[]> oldLogProbs(List<Row> rows) {
    return score(model, rows);
  }

  private double normalizer(List<Row> rows, int start, int end) {
    if (loss.aggregation() == LossAggregation.SEQ_MEAN_TOKEN_MEAN) {
      return end - start;
    }
    long tokens = 0;
    for (int i = start; i < end; i++) {
      tokens += rows.get(i).response().length;
    }
    return tokens;
  }

  private LossDiagnostics microBatch(
      TeacherForcing tf, List<Row> rows, List<float[]> old, List<float[]> ref, double normalizer) {
    List<int[]> prompts = new ArrayList<>(rows.size());
    List<int[]> responses = new ArrayList<>(rows.size());
    int width = 0;
    for (Row r : rows) {
      prompts.add(r.prompt());
      responses.add(r.response());
      width = Math.max(width, r.response().length);
    }
    DataType type = model.outputType();
    try (NDManager manager = model.newManager();
        GradientCollector collector = manager.getEngine().newGradientCollector()) {
      TokenScores scores = tf.score(manager, prompts, responses, 1.0, withEntropy);
      NDArray advantages = manager.create(advantages(rows)).toType(type, false);
      LossInput.Builder input = LossInput.builder()
          .setLogProbs(scores.logProbs())
          .setOldLogProbs(padded(manager, old, width, type))
          .setAdvantages(advantages)
          .setMask(scores.mask())
          .setNormalizer(normalizer);
      if (ref != null) {
        input.optRefLogProbs(padded(manager, ref, width, type));
      }
      if (withEntropy) {
        input.optEntropies(scores.entropy().orElseThrow());
      }
      LossResult result = loss.compute(input.build());
      if (Double.isFinite(result.diagnostics().loss())) {
        double lossScale = optimizer.lossScale();
        if (lossScale == 1.0) {
          collector.backward(result.loss());
        } else {
          // reduced precision: the loss scaled up so that small gradients survive FLOAT16, AdamW scales them down
          // a copy that owns its storage: the product's backward pass reads it (see Qwen3Model on Java memory)
          NDArray factor = manager.create((float) lossScale).toType(result.loss().getDataType(), false).duplicate();
          collector.backward(result.loss().mul(factor));
        }
        scores.completeBackward(collector);
      }
      return result.diagnostics();
    }
  }

  private static double[] advantages(List<Row> rows) {
    double[] a = new double[rows.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = rows.get(i).advantage();
    }
    return a;
  }

  private static NDArray padded(NDManager manager, List<float[]> values, int width, DataType type) {
    float[] flat = new float[values.size() * width];
    for (int i = 0; i < values.size(); i++) {
      float[] v = values.get(i);
      System.arraycopy(v, 0, flat, i * width, v.length);
    }
    return manager.create(flat, new Shape(values.size(), width)).toType(type, false);
  }

  private static List<float[]> recorded(List<Row> rows) {
    List<float[]> out = new ArrayList<>(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      if (r.rolloutLogProbs().length != r.response().length) {
        throw new IllegalArgumentException("turn " + i + " recorded " + r.rolloutLogProbs().length
            + " log-probabilities for " + r.response().length + " response tokens; recompute old log-probs instead");
      }
      out.add(r.rolloutLogProbs());
    }
    return out;
  }

  /**
   * Per-row log-probabilities of the responses under {@code scorer} at temperature 1, with no autograd graph, in the
   * rows' order; scored in micro-batches of rows of similar length.
   */
  private List<float[]> score(Qwen3Model scorer, List<Row> given) {
    int[] order = byLength(given);
    List<Row> rows = permuted(given, order);
    float[][] byRow = new float[rows.size()][];
    int next = 0;
    TeacherForcing tf = new TeacherForcing(scorer);
    GradMode noGrad = GradMode.disabled();
    try {
      for (int[] cut : cuts(rows)) {
        int start = cut[0];
        int end = cut[1];
        List<int[]> prompts = new ArrayList<>();
        List<int[]> responses = new ArrayList<>();
        for (Row r : rows.subList(start, end)) {
          prompts.add(r.prompt());
          responses.add(r.response());
        }
        try (NDManager manager = scorer.newManager();
            TokenScores scores = tf.score(manager, prompts, responses, 1.0, false)) {
          float[] flat = scores.logProbs().toType(DataType.FLOAT32, false).toFloatArray();
          int width = (int) scores.logProbs().getShape().get(1);
          for (int i = 0; i < end - start; i++) {
            float[] row = new float[responses.get(i).length];
            System.arraycopy(flat, i * width, row, 0, row.length);
            byRow[order[next++]] = row;
          }
        }
      }
    } finally {
      noGrad.close();
    }
    return Arrays.asList(byRow);
  }
}
