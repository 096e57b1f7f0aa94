package org.magejvm.examples.quickstart;

import org.magejvm.api.ContextMode;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentProvider;

/** The training configs of the methods a {@link GameRecipe} compares ({@link GameRecipe#trainingConfig}). */
final class RecipeTrainingConfigs {

  private RecipeTrainingConfigs() {}

  /**
   * The training config of a training preset in a recipe: the recipe's config with the preset's method swapped in
   * (returns, estimator, group size, attempts and context, as {@link #method} describes), and for {@code
   * mage-reference} also the keys in which that preset differs from {@code mage} (the environment's attempt discount
   * and invalid-action penalty, per-attempt episode scores, global anchors, learning rate 1e-6, KL weight 0.1, no
   * anchor check, old log-probabilities recomputed, zero-advantage rows kept, opponents by quota). Its context stays
   * the config's: the recipe's prompts show the earlier attempts' moves and outcomes, since a model of this size
   * writes no useful reflection.
   *
   * @param base the recipe's training config
   * @param provider the game's environment
   * @param preset a training preset
   * @return its config
   * @throws IllegalArgumentException when the preset does not train
   */
  static TrainingConfig of(TrainingConfig base, EnvironmentProvider provider, TrainingPreset preset) {
    if (!preset.trains()) {
      throw new IllegalArgumentException("preset '" + preset.id() + "' trains nothing");
    }
    TrainingConfig c = method(base, provider, preset == TrainingPreset.MAGE_REFERENCE ? TrainingPreset.MAGE : preset);
    if (preset != TrainingPreset.MAGE_REFERENCE) {
      return c;
    }
    TrainingConfig r = preset.config(provider);
    return c.toBuilder()
        .set("preset", r.preset())
        .set("credit.gamma_traj", r.credit().gammaTraj())
        .set("credit.invalid_penalty", r.credit().invalidPenalty())
        .set("credit.episode_score", r.credit().episodeScore())
        .set("advantages.anchor_scope", r.advantages().anchorScope())
        .set("adamw.learning_rate", r.adamw().learningRate())
        .set("loss.kl_coefficient", r.loss().klCoefficient())
        .set("checks.max_anchor_drop", r.checks().maxAnchorDrop())
        .set("checks.anchor_policy", r.checks().anchorPolicy())
        .set("update.old_log_probs", r.update().oldLogProbs())
        .set("update.skip_zero_advantage", r.update().skipZeroAdvantage())
        .set("rollout.opponent_assignment", r.rollout().opponentAssignment())
        .build();
  }

  /**
   * The training config of a method in a recipe: the recipe's config with the method's returns, estimator, group
   * size, attempts and context swapped in (single-episode methods see no earlier attempt; multi-episode ones keep the
   * config's context), so that every method trains on the same budget, the same prompts and the same update
   * settings.
   *
   * @param base the recipe's training config
   * @param provider the game's environment
   * @param method a training preset other than {@code mage-reference}
   * @return its config
   */
  private static TrainingConfig method(TrainingConfig base, EnvironmentProvider provider, TrainingPreset method) {
    TrainingConfig m = method.config(provider);
    return base.toBuilder()
        .set("preset", method == TrainingPreset.MAGE ? base.preset() : m.preset())
        .set("credit.meta_return", m.credit().metaReturn())
        .set("advantages.estimator", m.advantages().estimator())
        .set("rollout.group_size", m.rollout().groupSize())
        .set("rollout.episodes", m.rollout().episodes())
        .set("rollout.context_mode", method.multiEpisode() ? base.rollout().contextMode() : ContextMode.NONE)
        .build();
  }
}
