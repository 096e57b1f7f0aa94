package org.magejvm.gigpo;

import java.util.List;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.ScoredTurn;

/**
 * Group-relative normalisation of one value per turn: {@code x - mean(group)} or
 * {@code (x - mean(group)) / (std(group) + epsilon)}, with the group of each turn given as a dense id.
 *
 * <p>Arithmetic: a two-pass computation in double precision. The first pass sums the group's values exactly
 * ({@link ExactSum}) and divides by the group size; the mean is then clamped to the group's [min, max], so a group
 * of identical values gets exactly that value as its mean and exactly zero deviations. The second pass (only for
 * {@link NormalizationMode#MEAN_STD_NORM}) sums the squared deviations exactly and divides by {@code n - 1} (the
 * unbiased estimator the reference's {@code torch.std} uses). Every sum is rounded once, so the result for a turn
 * depends only on the multiset of values in its group, never on the order of the input.
 */
final class GroupNormalization {

  /** What a group holding a single turn yields. */
  enum Singleton {
    /** Mean 0 and standard deviation 1: the term is the value itself, over {@code 1 + epsilon} in std mode. */
    ZERO_MEAN_UNIT_STD,
    /** The turn is its own mean: the term is 0. */
    ZERO_TERM
  }

  private GroupNormalization() {}

  /**
   * Rejects a non-finite result, which only an overflow (values near {@link Double#MAX_VALUE}) can produce.
   *
   * @param values the computed values
   * @param what what they are, for the message
   * @param turns the turns they belong to
   * @throws ArithmeticException naming the first offending turn
   */
  static void requireFinite(double[] values, String what, List<ScoredTurn> turns) {
    for (int i = 0; i < values.length; i++) {
      if (!Double.isFinite(values[i])) {
        ScoredTurn t = turns.get(i);
        throw new ArithmeticException("the " + what + " of turns[" + i + "] (group '" + t.groupId()
            + "', stepReturn " + t.stepReturn() + ", episodeScore " + t.episodeScore() + ") is " + values[i]
            + ": the scores or returns are too large to normalise");
      }
    }
  }

  /**
   * Normalises values within their groups.
   *
   * @param values one finite value per turn
   * @param groupOf the dense group id (0..groupCount-1) of each turn
   * @param groupCount the number of groups; every id in 0..groupCount-1 must be used
   * @param mode mean or mean-and-std normalisation
   * @param epsilon added to the standard deviation in std mode
   * @param singleton what a one-turn group yields
   * @return the normalised term of each turn, indexed like {@code values}
   */
  static double[] normalize(
      double[] values, int[] groupOf, int groupCount, NormalizationMode mode, double epsilon, Singleton singleton) {
    int n = values.length;
    // Counting sort of the turn indices by group, keeping input order inside a group.
    int[] start = new int[groupCount + 1];
    for (int g : groupOf) {
      start[g + 1]++;
    }
    for (int g = 0; g < groupCount; g++) {
      start[g + 1] += start[g];
    }
    int[] members = new int[n];
    int[] fill = start.clone();
    for (int i = 0; i < n; i++) {
      members[fill[groupOf[i]]++] = i;
    }

    double[] out = new double[n];
    ExactSum sum = new ExactSum();
    boolean withStd = mode == NormalizationMode.MEAN_STD_NORM;
    for (int g = 0; g < groupCount; g++) {
      int from = start[g];
      int to = start[g + 1];
      int size = to - from;
      if (size == 1) {
        int i = members[from];
        if (singleton == Singleton.ZERO_TERM) {
          out[i] = 0.0;
        } else {
          out[i] = withStd ? values[i] / (1.0 + epsilon) : values[i];
        }
        continue;
      }
      sum.reset();
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (int k = from; k < to; k++) {
        double v = values[members[k]];
        sum.add(v);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      double mean = Math.min(max, Math.max(min, sum.value() / size));
      if (!withStd) {
        for (int k = from; k < to; k++) {
          int i = members[k];
          out[i] = values[i] - mean;
        }
        continue;
      }
      sum.reset();
      for (int k = from; k < to; k++) {
        double d = values[members[k]] - mean;
        sum.add(d * d);
      }
      double std = Math.sqrt(sum.value() / (size - 1));
      double denominator = std + epsilon;
      for (int k = from; k < to; k++) {
        int i = members[k];
        double d = values[i] - mean;
        if (!Double.isFinite(std)) {
          // squared deviations overflowed: dividing by infinity would silently give 0, so report it instead
          out[i] = Double.NaN;
        } else {
          // A zero denominator needs epsilon 0 and a group without spread: every deviation is then 0 as well.
          out[i] = denominator == 0.0 ? 0.0 : d / denominator;
        }
      }
    }
    return out;
  }
}
