package org.magejvm.gigpo;

import java.util.List;
import java.util.Objects;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.Advantages;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.Grouping;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.ScoredTurn;

/**
 * GiGPO advantages (group-in-group policy optimisation): an episode-level term that compares a turn's episode score
 * with its episode group, plus a step-level term that compares its step return with the turns that acted from the
 * same anchor state.
 *
 * <h2>Groups</h2>
 *
 * <ul>
 *   <li><b>Episode group</b> {@code E(i)}: the turns sharing {@code (groupId, opponentId, seat)} with
 *       {@link Grouping#OPPONENT_STATIONARY} (MAGE's agent-specific normalisation, the default), or sharing
 *       {@code groupId} with {@link Grouping#MIXED}.
 *   <li><b>Step group</b> {@code S(i)}: the turns of {@code E(i)} whose anchors have the same state and (unless
 *       {@link Grouping#MIXED}) the same opponent id, and, with {@link AnchorScope#PER_EPISODE}, the same episode
 *       index. All reflection turns carry {@link AnchorKey#reflection(String)} and so group together.
 * </ul>
 *
 * <h2>Formulas</h2>
 *
 * <p>With {@code s} the episode score, {@code G} the step return, {@code omega} the step weight and {@code eps} the
 * configured epsilon:
 *
 * <pre>
 *   A^E_i = s_i - mean(s over E(i))                                   MEAN_NORM
 *         = (s_i - mean(s over E(i))) / (std(s over E(i)) + eps)      MEAN_STD_NORM
 *   A^S_i = the same formula with G over S(i)
 *   A_i   = A^E_i + omega * A^S_i
 * </pre>
 *
 * <p>Means and standard deviations are taken over turns: every turn of the group contributes its own value,
 * reflection turns included, so a longer meta-episode weighs more (as in the reference). {@code std} is the
 * unbiased sample standard deviation. A one-turn episode group uses mean 0 and standard deviation 1
 * ({@code A^E = s}, or {@code s / (1 + eps)}), as the reference does; a one-turn step group gives {@code A^S = 0}.
 * Unlike the reference, no padding duplicates are added before the computation, and per-episode anchors carry the
 * episode index on every turn. See {@code docs/gigpo.md}.
 *
 * <p>Arithmetic is in double precision with exactly rounded sums, so the advantage of a turn does not depend on the
 * order of the input list. Instances are immutable and thread-safe.
 */
public final class GigpoAdvantageNormalizer implements AdvantageNormalizer {

  private final NormalizationMode normalization;
  private final double stepWeight;
  private final Grouping grouping;
  private final AnchorScope anchorScope;
  private final double epsilon;

  /**
   * A normalizer using the advantage settings of a configuration (normalization, step weight, grouping, anchor
   * scope, epsilon); the loss settings are ignored here.
   *
   * @param config the configuration
   */
  public GigpoAdvantageNormalizer(OptimizerConfig config) {
    Objects.requireNonNull(config, "config");
    this.normalization = config.normalization();
    this.stepWeight = config.stepWeight();
    this.grouping = config.grouping();
    this.anchorScope = config.anchorScope();
    this.epsilon = config.epsilon();
  }

  /**
   * Computes GiGPO advantages.
   *
   * @param turns the turns of one training batch, in any order
   * @return advantages indexed like {@code turns}; empty for an empty list
   * @throws NullPointerException if the list or one of its elements is null
   * @throws ArithmeticException if scores or returns are so large that an advantage overflows
   */
  @Override
  public Advantages compute(List<ScoredTurn> turns) {
    TurnGroups.requireTurns(turns);
    int n = turns.size();
    if (n == 0) {
      return new Advantages(new double[0], new double[0], new double[0], 0, 0.0);
    }
    TurnGroups.Assignment episodes = TurnGroups.episodeGroups(turns, grouping);
    double[] episodeTerm = episodeTerm(turns, episodes);
    double[] returns = new double[n];
    for (int i = 0; i < n; i++) {
      returns[i] = turns.get(i).stepReturn();
    }
    TurnGroups.Assignment steps = TurnGroups.stepGroups(turns, episodes, grouping, anchorScope);
    double[] stepTerm = GroupNormalization.normalize(returns, steps.groupOf(), steps.groupCount(),
        normalization, epsilon, GroupNormalization.Singleton.ZERO_TERM);
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      values[i] = episodeTerm[i] + stepWeight * stepTerm[i];
    }
    GroupNormalization.requireFinite(stepTerm, "step term", turns);
    GroupNormalization.requireFinite(values, "advantage", turns);
    return new Advantages(values, episodeTerm, stepTerm, steps.groupCount(), (double) n / steps.groupCount());
  }

  /**
   * The episode-level term alone (what GRPO uses).
   *
   * @param turns validated, non-empty turns
   * @return the episode term of each turn
   */
  double[] episodeTerm(List<ScoredTurn> turns) {
    return episodeTerm(turns, TurnGroups.episodeGroups(turns, grouping));
  }

  private double[] episodeTerm(List<ScoredTurn> turns, TurnGroups.Assignment episodes) {
    double[] scores = new double[turns.size()];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = turns.get(i).episodeScore();
    }
    double[] term = GroupNormalization.normalize(scores, episodes.groupOf(), episodes.groupCount(),
        normalization, epsilon, GroupNormalization.Singleton.ZERO_MEAN_UNIT_STD);
    GroupNormalization.requireFinite(term, "episode term", turns);
    return term;
  }

  @Override
  public String toString() {
    return "GigpoAdvantageNormalizer[" + normalization + ", stepWeight=" + stepWeight + ", " + grouping + ", "
        + anchorScope + ", epsilon=" + epsilon + "]";
  }
}
