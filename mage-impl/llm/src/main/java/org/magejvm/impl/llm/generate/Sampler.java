package org.magejvm.impl.llm.generate;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import org.magejvm.api.SamplingConfig;

/**
 * Picks one token per row from a batch of next-token logits, on the logits' device, and reports each pick's
 * log-probability under the unfiltered tempered distribution.
 *
 * <p>The order of the filters is Hugging Face's: temperature, then top-k, then top-p over what top-k kept. The draw
 * is an inverse-CDF lookup: with a uniform {@code u} in (0, 1) supplied by the caller, the token is the first
 * candidate whose cumulative (filtered, unnormalised) probability reaches {@code u} times the total. Tokens with
 * probability zero can never be drawn, because {@code u} is never 0.
 */
final class Sampler {
  /** The last cumulative probability of each row; parsed once, as parsing an index costs more than using it. */
  private static final NDIndex LAST = new NDIndex(":, -1:");

  private final SamplingConfig cfg;
  /** The temperature as an array, or null where dividing by it changes nothing (greedy, temperature 1). */
  private final NDArray temperature;
  /** The top-p threshold as an array, or null without top-p. */
  private final NDArray topP;
  /** The highest candidate index as an array, or null when greedy. */
  private final NDArray lastCandidate;

  /**
   * A sampler for one generation call: the scalars the draw combines with arrays are made once here, because DJL
   * turns a Java scalar operand into a new array on every call. They are the arrays DJL itself would make for those
   * scalars ({@code manager.create(Number)}), so every pick computes exactly what the scalar forms compute.
   *
   * @param manager owns the constants (close it after the call)
   * @param cfg temperature and filters
   * @param vocab the vocabulary size (the width of the logits)
   */
  Sampler(NDManager manager, SamplingConfig cfg, long vocab) {
    this.cfg = cfg;
    boolean sampling = !cfg.greedy();
    temperature = sampling && cfg.temperature() != 1.0 ? manager.create(cfg.temperature()) : null;
    topP = sampling && cfg.topP() < 1 ? manager.create(cfg.topP()) : null;
    long candidates = cfg.topK() > 0 && cfg.topK() < vocab ? cfg.topK() : vocab;
    lastCandidate = sampling ? manager.create(candidates - 1) : null;
  }

  /**
   * The picked tokens and their log-probabilities.
   *
   * @param topIds null, or (B * K) row-major: each row's K most likely tokens under the reported distribution
   * @param topLogProbs null, or (B * K): their log-probabilities, largest first
   */
  record Picks(long[] tokens, float[] logProbs, long[] topIds, float[] topLogProbs) {}

  /**
   * @param logits (B, V) float logits; its manager owns the temporaries
   * @param uniforms one uniform in (0, 1) per row (unused when greedy)
   * @param banned (V) additive mask with minus infinity at tokens that may not be picked now, or null
   * @param topK how many of the most likely tokens (under the distribution the log-probabilities come from) to
   *     report per row, 0 for none
   * @return one token and log-probability per row
   */
  Picks pick(NDArray logits, float[] uniforms, NDArray banned, int topK) {
    long b = logits.getShape().get(0);
    long v = logits.getShape().get(1);
    NDArray tokens;
    NDArray logProbs;
    if (cfg.greedy()) {
      logProbs = logits.logSoftmax(-1);
      NDArray allowed = banned == null ? logits : logits.add(banned);
      tokens = allowed.argMax(-1).reshape(b, 1);
    } else {
      // dividing by 1 returns the same values, so at temperature 1 the division is left out
      NDArray scaled = temperature == null ? logits : logits.div(temperature);
      logProbs = scaled.logSoftmax(-1);
      NDArray allowed = banned == null ? scaled : scaled.add(banned);
      NDArray candidates;
      NDArray candidateIds = null;
      if (cfg.topK() > 0 && cfg.topK() < v) {
        NDList top = allowed.topK(cfg.topK(), -1, true, true);
        candidates = top.get(0);
        candidateIds = top.get(1);
      } else if (cfg.topP() < 1) {
        candidateIds = allowed.argSort(-1, false);
        candidates = allowed.gather(candidateIds, -1);
      } else {
        candidates = allowed;
      }
      NDArray p = candidates.softmax(-1);
      if (cfg.topP() < 1) {
        // candidates are sorted by decreasing probability: keep a token while the mass before it is below top-p
        NDArray before = p.cumSum(-1).sub(p);
        p = p.mul(before.lt(topP).toType(p.getDataType(), false));
      }
      NDArray cdf = p.cumSum(-1);
      NDArray total = cdf.get(LAST);
      NDArray u = logits.getManager().create(uniforms, new Shape(b, 1)).toType(cdf.getDataType(), false);
      NDArray index = cdf.lt(total.mul(u)).toType(DataType.INT64, false).sum(new int[] {-1}, true)
          .minimum(lastCandidate);
      tokens = candidateIds == null ? index : candidateIds.gather(index, -1);
    }
    NDArray chosen = logProbs.gather(tokens, -1);
    long[] topIds = null;
    float[] topLogProbs = null;
    if (topK > 0) {
      // the same tensor the chosen log-probabilities are gathered from, so equal tokens give equal values
      NDList top = logProbs.topK((int) Math.min(topK, v), -1, true, true);
      topIds = top.get(1).toType(DataType.INT64, false).toLongArray();
      topLogProbs = top.get(0).toType(DataType.FLOAT32, false).toFloatArray();
    }
    return new Picks(tokens.toLongArray(), chosen.toType(DataType.FLOAT32, false).toFloatArray(), topIds,
        topLogProbs);
  }
}
