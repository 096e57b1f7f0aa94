/**
 * Evaluation: {@link org.magejvm.impl.eval.EvaluationMetrics} (success, draw and first-win rates per episode, best
 * scores, per-opponent rates, response lengths, invalid-action rates) computed from meta-episodes; the {@link
 * org.magejvm.impl.eval.Evaluator} that plays M independent meta-episodes against one opponent and measures them.
 * The methods' evaluation settings are the training presets' ({@code org.magejvm.impl.train.TrainingPreset}).
 */
package org.magejvm.impl.eval;
