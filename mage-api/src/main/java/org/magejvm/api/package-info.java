/**
 * The public vocabulary of MAGE for the JVM.
 *
 * <p>A <em>meta-episode</em> ({@link org.magejvm.api.MetaEpisode}) is a sequence of episodes of the same task
 * against the same opponent, separated by reflection turns whose text is kept in a
 * {@link org.magejvm.api.ReflectionMemory}. Every call to the {@link org.magejvm.api.LanguagePolicy} is recorded
 * as a {@link org.magejvm.api.Turn}. Credit assignment ({@link org.magejvm.api.MetaReturn}) turns the rewards of a
 * meta-episode into per-turn returns and scores ({@link org.magejvm.api.ScoredTurn}), an
 * {@link org.magejvm.api.AdvantageNormalizer} turns those into advantages, and a
 * {@link org.magejvm.api.PolicyOptimizer} (found through {@link org.magejvm.api.PolicyOptimizerProvider})
 * updates the policy.
 *
 * <p>This package holds interfaces, records and enums only; nothing here depends on an implementation.
 */
package org.magejvm.api;
