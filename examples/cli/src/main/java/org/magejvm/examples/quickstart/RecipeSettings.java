package org.magejvm.examples.quickstart;

import java.nio.file.Path;
import java.util.Objects;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.warmstart.WarmStartSettings;

/**
 * Settings of a recipe run ({@link GameRecipe}): the training config and what the recipe adds around it (the warm
 * start, the evaluation). Build them with {@link #builder(Path, TrainingConfig)} and copy them with {@link
 * #toBuilder()}; the canonical constructor validates every component.
 *
 * @param workDir where the tiny model and the warm start are cached
 * @param training the training run: its environment options and step time-out also apply to the warm start's and
 *     the evaluations' rollouts
 * @param warmStartExamples supervised examples (turns) of the warm start, one epoch
 * @param evalMetaEpisodes meta-episodes per evaluation set
 * @param seed the model/warm-start seed and the base seed of the evaluation (the training config has its own)
 * @param repeatShare the share of warm-start turns that repeat the previous attempt's action (see
 *     {@link GameRecipe#DEFAULT_REPEAT_SHARE}); 0 gives a warm start that never reads the earlier attempts
 * @param evalTemperature the evaluation's temperature with neither top-p nor top-k (0: greedy), or NaN for the
 *     reference's evaluation sampling (temperature 0.7, top-p 0.8, top-k 20), which turns any action above 0.8
 *     probability into a certainty
 * @param warmStartEpochs passes of the supervised warm start over its examples (see {@link
 *     GameRecipe#DEFAULT_WARM_START_EPOCHS})
 * @param warmStartLearningRate the supervised warm start's AdamW learning rate (see {@link
 *     GameRecipe#DEFAULT_WARM_START_LEARNING_RATE})
 */
public record RecipeSettings(
    Path workDir, TrainingConfig training, int warmStartExamples, int evalMetaEpisodes, long seed,
    double repeatShare, double evalTemperature, int warmStartEpochs, double warmStartLearningRate) {

  /**
   * Validates.
   *
   * @param workDir work directory
   * @param training training config
   * @param warmStartExamples warm-start examples
   * @param evalMetaEpisodes evaluation size
   * @param seed seed
   * @param repeatShare warm-start repeat share
   * @param evalTemperature evaluation temperature, NaN for the reference's evaluation sampling
   * @param warmStartEpochs warm-start epochs
   * @param warmStartLearningRate warm-start learning rate
   */
  public RecipeSettings {
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(training, "training");
    if (evalMetaEpisodes < 1) {
      throw new IllegalArgumentException("the evaluation size must be >= 1, got " + evalMetaEpisodes);
    }
    // the warm start's values are checked by its settings
    new WarmStartSettings(warmStartExamples, repeatShare, seed, warmStartEpochs, warmStartLearningRate);
    if (!Double.isNaN(evalTemperature) && !(evalTemperature >= 0 && evalTemperature <= 10)) {
      throw new IllegalArgumentException("the evaluation temperature must be in [0, 10] (0: greedy), got "
          + evalTemperature);
    }
  }

  /**
   * A builder with the recipe's defaults: 3,200 warm-start examples, 48 evaluation meta-episodes, seed 1, and the
   * {@code DEFAULT_*} constants of {@link GameRecipe} for the warm start.
   *
   * @param workDir where the tiny model and the warm start are cached
   * @param training the training config
   * @return the builder
   */
  public static RecipeSettingsBuilder builder(Path workDir, TrainingConfig training) {
    return new RecipeSettingsBuilder(workDir, training);
  }

  /** @return a builder preset with these settings */
  public RecipeSettingsBuilder toBuilder() {
    return new RecipeSettingsBuilder(this);
  }

  /** @return the warm start's settings */
  public WarmStartSettings warmStart() {
    return new WarmStartSettings(warmStartExamples, repeatShare, seed, warmStartEpochs, warmStartLearningRate);
  }

  /** @return the sampling of evaluations (without its seed) */
  public SamplingConfig evaluationSampling() {
    if (Double.isNaN(evalTemperature)) {
      return SamplingConfig.evaluation(GameRecipe.MAX_NEW_TOKENS);
    }
    return SamplingConfig.builder().optTemperature(evalTemperature).optMaxNewTokens(GameRecipe.MAX_NEW_TOKENS)
        .build();
  }
}
