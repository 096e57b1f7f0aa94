/**
 * Evaluation: {@link org.magejvm.impl.eval.EvaluationMetrics} (success, draw and first-win rates per episode, best
 * scores, per-opponent rates, response lengths, invalid-action rates) computed from meta-episodes; the {@link
 * org.magejvm.impl.eval.Evaluator} that plays M independent meta-episodes against one opponent and measures them.
 * The methods' evaluation settings are the training presets' ({@code org.magejvm.impl.train.TrainingPreset}). An
 * {@link org.magejvm.impl.eval.EvaluationSuite} plays a game's {@link org.magejvm.impl.eval.EvaluationSets} (each pool
 * opponent and the held-out one, with their seats) with the same seeds for every policy.
 */
package org.magejvm.impl.eval;
