/**
 * The meta-episode rollout engine.
 *
 * <p>A {@link org.magejvm.impl.rollout.RolloutConfig} says what to play (environment, B groups of G meta-episodes,
 * N episodes each, context mode, seating, opponents, sampling, base seed); a {@link
 * org.magejvm.impl.rollout.MetaEpisodeRunner} plays it with a {@link org.magejvm.api.LanguagePolicy}, one batched
 * call per step, and returns a {@link org.magejvm.impl.rollout.RolloutResult}: the completed {@link
 * org.magejvm.api.MetaEpisode}s plus a {@link org.magejvm.impl.rollout.WorkerFailure} for each meta-episode whose
 * environment threw (any {@link java.lang.Throwable} but errors that leave the JVM unusable) or timed out, or whose
 * prompt the policy rejected. Seeds are derived as documented in {@link org.magejvm.impl.rollout.Seeds}.
 */
package org.magejvm.impl.rollout;
