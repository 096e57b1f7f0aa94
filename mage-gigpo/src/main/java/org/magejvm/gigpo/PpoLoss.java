package org.magejvm.gigpo;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Objects;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyLoss;

/**
 * The dual-clip PPO policy loss of GiGPO and GRPO (the reference's {@code compute_policy_loss} with its entropy bonus
 * and k3 KL penalty), as a pure function of arrays.
 *
 * <p>Per response token, with {@code r = exp(logp - logp_old)}, {@code A} the advantage, {@code εl}/{@code εh} the
 * clip ratios and {@code c} the dual-clip constant:
 *
 * <pre>
 * L_clip = max(-A·r, -A·clip(r, 1-εl, 1+εh))
 * L_pg   = min(L_clip, -A·c)   if A &lt; 0
 *        = L_clip              otherwise
 * k3     = clamp(exp(ref - logp) - (ref - logp) - 1, -10, 10)
 * loss   = agg(L_pg) - entropyCoefficient·agg(entropy) + klCoefficient·agg(k3)
 * </pre>
 *
 * where {@code agg} is the configured {@link LossAggregation} divided by {@link LossInput#normalizer()}. See
 * {@code docs/gigpo.md}, "The policy loss", for the micro-batch contract and the diagnostics.
 *
 * <p>Masked positions are removed before any exponential, so garbage there (infinite or NaN log-probabilities)
 * reaches neither the loss, nor the gradient, nor the diagnostics. The log-ratio and the reference gap are also capped
 * before {@code exp}, at points beyond which neither value nor gradient can change (the clipped and clamped
 * regions), so a huge but finite ratio cannot overflow into a NaN gradient. Every array the autograd graph keeps is
 * allocated by the engine rather than borrowed from Java memory (DJL's {@code Number} overloads borrow), so the
 * constant inputs may be closed before {@code backward}.
 *
 * <p>Immutable and thread-safe. The arrays it creates while computing are closed before it returns, except the loss.
 */
public final class PpoLoss implements PolicyLoss {

  /** The k3 KL estimate is clamped to {@code [-KL_CLAMP, KL_CLAMP]}, as in the reference. */
  public static final double KL_CLAMP = 10;

  /**
   * The reference-policy log-gap {@code ref - logp} is capped to {@code ±REF_GAP_CAP} before {@code exp}. The k3
   * estimate passes the clamp bound at a gap of about 2.6 and -11, so nothing below 20 in magnitude can change it.
   */
  private static final double REF_GAP_CAP = 20;

  private final double clipLow;
  private final double clipHigh;
  private final double dualClip;
  private final double entropyCoefficient;
  private final double klCoefficient;
  private final LossAggregation aggregation;
  /** Above this log-ratio every branch of the clipped objective is flat (see the constructor). */
  private final double logRatioCap;

  /**
   * A loss with the clip ratios, dual-clip constant, coefficients and aggregation of {@code config}.
   *
   * @param config the optimizer configuration
   */
  public PpoLoss(OptimizerConfig config) {
    Objects.requireNonNull(config, "config");
    this.clipLow = config.clipRatioLow();
    this.clipHigh = config.clipRatioHigh();
    this.dualClip = config.dualClip();
    this.entropyCoefficient = config.entropyCoefficient();
    this.klCoefficient = config.klCoefficient();
    this.aggregation = config.lossAggregation();
    // For r > max(c, 1 + εh) the per-token loss is -A·(1 + εh) (A > 0), -A·c (A < 0) or 0 (A = 0), so its value and
    // gradient are the same for every larger r; a margin of e^20 keeps the indicator comparisons strict as well.
    this.logRatioCap = Math.log(Math.max(dualClip, 1 + clipHigh)) + 20;
  }

  @Override
  public LossAggregation aggregation() {
    return aggregation;
  }

  @Override
  public LossResult compute(LossInput in) {
    Objects.requireNonNull(in, "input");
    if (klCoefficient > 0 && in.refLogProbs() == null) {
      throw new IllegalArgumentException(
          "refLogProbs is required when klCoefficient > 0 (klCoefficient is " + klCoefficient + ")");
    }
    if (entropyCoefficient > 0 && in.entropies() == null) {
      throw new IllegalArgumentException(
          "entropies are required when entropyCoefficient > 0 (entropyCoefficient is " + entropyCoefficient + ")");
    }
    NDArray logp = in.logProbs();
    NDManager owner = logp.getManager();
    DataType type = logp.getDataType();
    NDArray total;
    LossDiagnostics diagnostics;
    try (NDScope scope = new NDScope()) {
      scope.suppressNotUsedWarning();
      NDArray mask = in.mask().stopGradient();
      NDArray keep = mask.neq(0);

      // counts first: they validate the mask and the normalizer before any real work
      NDArray keepCount = keep.toType(DataType.INT64, false);
      long[] counts = NDArrays.stack(new NDList(
          mask.eq(0).logicalOr(mask.eq(1)).logicalNot().toType(DataType.INT64, false).sum(),
          keepCount.sum(),
          keepCount.sum(new int[] {1}).gt(0).toType(DataType.INT64, false).sum())).toLongArray();
      if (counts[0] != 0) {
        throw new IllegalArgumentException("mask must hold only 0 and 1, found " + counts[0] + " other values");
      }
      long tokens = counts[1];
      long sequences = counts[2];
      long units = aggregation == LossAggregation.TOKEN_MEAN ? tokens : sequences;
      if (in.normalizer() < units) {
        throw new IllegalArgumentException("normalizer " + in.normalizer() + " is smaller than this micro-batch's "
            + units + (aggregation == LossAggregation.TOKEN_MEAN ? " response tokens" : " non-empty sequences")
            + "; pass the count of the whole minibatch");
      }

      // Every array the autograd graph may save is allocated by libtorch here, never borrowed from Java memory:
      // DJL's Number overloads (mul(2.0), clip(a, b), ...) wrap the number in a Java-backed array and close it, and a
      // backward pass reading such an array after the garbage collector freed it would read garbage. The caller's
      // constant inputs are only read while the graph is built, so they may be closed before backward.
      NDArray zeros = logp.zerosLike();
      Constants c = new Constants(owner.zeros(new Shape(), type));
      NDArray keepF = keep.toType(type, false);
      Aggregator agg = new Aggregator(aggregation, keepF, c.of(in.normalizer()), c.of(1));

      // advantages: constants, broadcast per row, 0 at masked positions
      NDArray adv = in.advantages().stopGradient();
      if (adv.getShape().dimension() == 1) {
        adv = adv.expandDims(1).broadcast(logp.getShape());
      }
      adv = NDArrays.where(keep, adv, zeros);

      // log-ratio: 0 at masked positions before anything is exponentiated
      NDArray logRatio = NDArrays.where(keep, logp.sub(in.oldLogProbs().stopGradient()), zeros);
      NDArray ratio = clamp(logRatio, zeros, Double.NEGATIVE_INFINITY, logRatioCap).exp();
      NDArray negAdv = adv.neg();
      NDArray unclipped = negAdv.mul(ratio);
      NDArray clippedRatio = negAdv.mul(clamp(ratio, zeros, 1 - clipLow, 1 + clipHigh));
      NDArray clipped = NDArrays.maximum(unclipped, clippedRatio);
      NDArray capped = negAdv.mul(dualClip);
      NDArray negative = adv.lt(0);
      NDArray perToken = NDArrays.where(negative, NDArrays.minimum(clipped, capped), clipped);
      NDArray pgLoss = agg.apply(perToken);
      total = pgLoss;

      NDArray branchClipped = clippedRatio.gt(unclipped);
      NDArray clipLowFrac = agg.apply(branchClipped.logicalAnd(negative).toType(type, false));
      NDArray clipHighFrac = agg.apply(branchClipped.logicalAnd(adv.gt(0)).toType(type, false));
      NDArray dualFrac = agg.apply(clipped.gt(capped).logicalAnd(negative).toType(type, false));
      NDArray ppoKl = agg.apply(logRatio.stopGradient().neg());

      NDArray entropy = null;
      if (in.entropies() != null) {
        NDArray ent = NDArrays.where(keep, in.entropies(), zeros);
        if (entropyCoefficient > 0) {
          entropy = agg.apply(ent);
          total = total.sub(entropy.mul(c.of(entropyCoefficient)));
        } else {
          entropy = agg.apply(ent.stopGradient());
        }
      }
      NDArray kl = null;
      if (in.refLogProbs() != null) {
        NDArray source = klCoefficient > 0 ? logp : logp.stopGradient();
        NDArray gap = clamp(NDArrays.where(keep, in.refLogProbs().stopGradient().sub(source), zeros), zeros,
            -REF_GAP_CAP, REF_GAP_CAP);
        NDArray k3 = clamp(gap.exp().sub(gap).sub(c.of(1)), zeros, -KL_CLAMP, KL_CLAMP);
        kl = agg.apply(k3);
        if (klCoefficient > 0) {
          total = total.add(kl.mul(c.of(klCoefficient)));
        }
      }

      NDArray nan = c.of(Double.NaN);
      double[] v = NDArrays.stack(new NDList(total.stopGradient(), pgLoss.stopGradient(), clipLowFrac,
              clipHighFrac, dualFrac, ppoKl, entropy == null ? nan : entropy.stopGradient(),
              kl == null ? nan : kl.stopGradient()))
          .toType(DataType.FLOAT64, false).toDoubleArray();
      diagnostics = new LossDiagnostics(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], tokens, sequences);
      NDScope.unregister(total);
    }
    total.attach(owner);
    return new LossResult(total, diagnostics);
  }

  /**
   * {@code x} limited to {@code [lo, hi]} with {@code torch.clamp}'s gradient (1 inside and on the bounds, 0
   * outside), built from {@code where} so that no bound array is borrowed from Java memory.
   */
  private static NDArray clamp(NDArray x, NDArray zeros, double lo, double hi) {
    NDArray y = x;
    if (lo != Double.NEGATIVE_INFINITY) {
      y = NDArrays.where(x.lt(lo), zeros.add(lo), y);
    }
    return NDArrays.where(x.gt(hi), zeros.add(hi), y);
  }

  @Override
  public String toString() {
    return "PpoLoss[clip=(" + clipLow + ", " + clipHigh + "), dualClip=" + dualClip + ", entropy="
        + entropyCoefficient + ", kl=" + klCoefficient + ", " + aggregation + "]";
  }

  /** Scalars of the loss's data type, allocated by the engine (not borrowed from Java memory). */
  private static final class Constants {
    private final NDArray zero;

    Constants(NDArray zero) {
      this.zero = zero;
    }

    NDArray of(double value) {
      return zero.add(value);
    }
  }

  /** Sums a {@code (B, T)} matrix that is already 0 at masked positions, the way the aggregation mode asks. */
  private static final class Aggregator {
    private final LossAggregation mode;
    private final NDArray keep;
    private final NDArray normalizer;
    private final NDArray rowTokens;

    Aggregator(LossAggregation mode, NDArray keep, NDArray normalizer, NDArray one) {
      this.mode = mode;
      this.keep = keep;
      this.normalizer = normalizer;
      // a row without response tokens has a zero sum; dividing it by 1 keeps it 0 instead of 0/0
      this.rowTokens = mode == LossAggregation.TOKEN_MEAN ? null : NDArrays.maximum(keep.sum(new int[] {1}), one);
    }

    NDArray apply(NDArray perToken) {
      NDArray weighted = perToken.mul(keep);
      if (mode == LossAggregation.TOKEN_MEAN) {
        return weighted.sum().div(normalizer);
      }
      return weighted.sum(new int[] {1}).div(rowTokens).sum().div(normalizer);
    }
  }
}
