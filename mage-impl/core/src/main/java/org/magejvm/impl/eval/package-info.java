/**
 * Evaluation: {@link org.magejvm.impl.eval.EvaluationMetrics} (success, draw and first-win rates per episode, best
 * scores, per-opponent rates, response lengths, invalid-action rates) computed from meta-episodes; the {@link
 * org.magejvm.impl.eval.Evaluator} that plays M independent meta-episodes against one opponent and measures them;
 * and the {@link org.magejvm.impl.eval.MethodPreset}s (react, reflexion, grpo, gigpo, lamer, mage) that bundle each
 * method's rollout, credit and evaluation settings.
 */
package org.magejvm.impl.eval;
