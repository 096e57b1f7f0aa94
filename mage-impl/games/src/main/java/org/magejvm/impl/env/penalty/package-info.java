/**
 * Penalty Shoot-out, the built-in multi-agent showcase: the agent, in goal, faces a striker drawn from a population of
 * habits and must tell which one from its earlier attempts, with held-out habits never trained on ({@link
 * org.magejvm.impl.env.penalty.PenaltyStrikers}). Three games share the rules: {@code mage-penalty} ({@link
 * org.magejvm.impl.env.penalty.PenaltyProvider}), for identification and generalization, {@code mage-penalty-graded}
 * ({@link org.magejvm.impl.env.penalty.GradedPenaltyProvider}), where a near miss scores half and the optima of MAGE's
 * final-attempt and LaMer's cumulative objectives differ, and {@code mage-penalty-steps} ({@link
 * org.magejvm.impl.env.penalty.StepsPenaltyProvider}), where the held-out strikers can be saved without giving up
 * training saves. {@link org.magejvm.impl.env.penalty.PenaltyCeilings} computes the history-blind and adaptive
 * ceilings exactly, {@link org.magejvm.impl.env.penalty.PenaltyObjectives} both objectives' optima, both by {@link
 * org.magejvm.impl.env.penalty.PenaltyPlanner}'s backward induction over histories, and {@link
 * org.magejvm.impl.env.penalty.PenaltyTransfer} what a keeper that learnt the training population perfectly can reach
 * on the held-out strikers.
 */
package org.magejvm.impl.env.penalty;
