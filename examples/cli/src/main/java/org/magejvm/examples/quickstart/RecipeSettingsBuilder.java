package org.magejvm.examples.quickstart;

import java.nio.file.Path;
import java.util.Objects;
import org.magejvm.impl.train.TrainingConfig;

/**
 * Builds {@link RecipeSettings}: {@link RecipeSettings#builder} starts one with the recipe's defaults
 * (3,200 warm-start examples, 48 evaluation meta-episodes, seed 1, and the {@code DEFAULT_*} constants of {@link
 * GameRecipe} for the warm start), {@link RecipeSettings#toBuilder()} with a run's settings; {@link #build()}
 * validates them all.
 */
public final class RecipeSettingsBuilder {
  private final Path workDir;
  private TrainingConfig training;
  private int warmStartExamples = 3200;
  private int evalMetaEpisodes = 48;
  private long seed = 1;
  private double repeatShare = GameRecipe.DEFAULT_REPEAT_SHARE;
  private double evalTemperature = Double.NaN;
  private int warmStartEpochs = GameRecipe.DEFAULT_WARM_START_EPOCHS;
  private double warmStartLearningRate = GameRecipe.DEFAULT_WARM_START_LEARNING_RATE;

  RecipeSettingsBuilder(Path workDir, TrainingConfig training) {
    this.workDir = Objects.requireNonNull(workDir, "workDir");
    this.training = Objects.requireNonNull(training, "training");
  }

  /** A builder preset with a run's settings. */
  RecipeSettingsBuilder(RecipeSettings s) {
    this(s.workDir(), s.training());
    warmStartExamples = s.warmStartExamples();
    evalMetaEpisodes = s.evalMetaEpisodes();
    seed = s.seed();
    repeatShare = s.repeatShare();
    evalTemperature = s.evalTemperature();
    warmStartEpochs = s.warmStartEpochs();
    warmStartLearningRate = s.warmStartLearningRate();
  }

  /**
   * @param v the training config
   * @return this builder
   */
  public RecipeSettingsBuilder optTraining(TrainingConfig v) {
    training = v;
    return this;
  }

  /**
   * @param v supervised warm-start examples
   * @return this builder
   */
  public RecipeSettingsBuilder optWarmStartExamples(int v) {
    warmStartExamples = v;
    return this;
  }

  /**
   * @param v meta-episodes per evaluation set
   * @return this builder
   */
  public RecipeSettingsBuilder optEvalMetaEpisodes(int v) {
    evalMetaEpisodes = v;
    return this;
  }

  /**
   * @param v the model, warm-start and evaluation seed
   * @return this builder
   */
  public RecipeSettingsBuilder optSeed(long v) {
    seed = v;
    return this;
  }

  /**
   * @param v the warm start's repeat share (default {@link GameRecipe#DEFAULT_REPEAT_SHARE})
   * @return this builder
   */
  public RecipeSettingsBuilder optRepeatShare(double v) {
    repeatShare = v;
    return this;
  }

  /**
   * @param v the evaluation temperature, NaN for the reference's evaluation sampling
   * @return this builder
   */
  public RecipeSettingsBuilder optEvalTemperature(double v) {
    evalTemperature = v;
    return this;
  }

  /**
   * @param epochs passes of the warm start (default {@link GameRecipe#DEFAULT_WARM_START_EPOCHS})
   * @param lr its learning rate (default {@link GameRecipe#DEFAULT_WARM_START_LEARNING_RATE})
   * @return this builder
   */
  public RecipeSettingsBuilder optWarmStart(int epochs, double lr) {
    warmStartEpochs = epochs;
    warmStartLearningRate = lr;
    return this;
  }

  /** @return the settings, validated */
  public RecipeSettings build() {
    return new RecipeSettings(workDir, training, warmStartExamples, evalMetaEpisodes, seed, repeatShare,
        evalTemperature, warmStartEpochs, warmStartLearningRate);
  }
}
