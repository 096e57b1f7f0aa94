package org.magejvm.impl.train.warmstart;

import org.magejvm.api.annotation.Api;

/**
 * What a {@link ScriptedWarmStart} is made with; a cached warm start is reused only while these (and the rollouts'
 * environment options and, for a reflective one, its player and context) are the same ({@link
 * ScriptedWarmStart#key()}).
 *
 * @param examples supervised examples (turns) of the warm start, one epoch
 * @param repeatShare the share of later attempts' turns that repeat the previous attempt's action ({@link
 *     MixedScriptedPolicy}); 0 gives a warm start that never reads the earlier attempts
 * @param seed the seed of the scripted rollouts, the players and the supervised training
 * @param epochs passes of the supervised training over its examples
 * @param learningRate its AdamW learning rate
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record WarmStartSettings(int examples, double repeatShare, long seed, int epochs, double learningRate) {

  /**
   * The default share of warm-start turns (after the first attempt) that repeat the previous attempt's action at the
   * same point of the game, whatever its outcome: this teaches the model to read the earlier attempts in its prompt,
   * but not to adapt (a repeating player never changes its line because it lost).
   */
  public static final double DEFAULT_REPEAT_SHARE = 0.5;
  /**
   * The default passes over the examples. With one pass over 3,200 Kuhn Poker turns (100 steps at learning rate 3e-3)
   * the tiny model learned only how often to bet: P(BET) was the same in all twelve information states in every seed
   * probed. With four passes at 3e-3 seed 1 learned to bet with the King and pass with the Jack as the scripted players
   * do but seed 2 did not; four passes at 1e-3 ({@link #DEFAULT_LEARNING_RATE}) learned it in both
   * (docs/lab-notes.md).
   */
  public static final int DEFAULT_EPOCHS = 4;
  /** The default learning rate (see {@link #DEFAULT_EPOCHS}). */
  public static final double DEFAULT_LEARNING_RATE = 1e-3;

  /**
   * Validates.
   *
   * @param examples examples
   * @param repeatShare repeat share
   * @param seed seed
   * @param epochs epochs
   * @param learningRate learning rate
   * @throws IllegalArgumentException naming the value that is out of range
   */
  public WarmStartSettings {
    if (examples < 1) {
      throw new IllegalArgumentException("the warm start needs at least 1 example, got " + examples);
    }
    if (epochs < 1) {
      throw new IllegalArgumentException("the warm start needs at least 1 epoch, got " + epochs);
    }
    if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
      throw new IllegalArgumentException("the warm start's learning rate must be finite and > 0, got "
          + learningRate);
    }
    if (!(repeatShare >= 0 && repeatShare <= 1)) {
      throw new IllegalArgumentException("the warm start's repeat share must be in [0, 1], got " + repeatShare);
    }
  }
}
