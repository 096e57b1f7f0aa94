/**
 * Credit assignment: {@link org.magejvm.impl.credit.CreditAssigner} turns {@link org.magejvm.api.MetaEpisode}s into
 * {@link org.magejvm.api.ScoredTurn}s (step return and penalised episode score per turn) under a {@link
 * org.magejvm.impl.credit.CreditConfig}: differential (MAGE), cumulative (LaMer) or single-episode (GiGPO) returns,
 * plus invalid-action and length penalties on the episode score.
 */
package org.magejvm.impl.credit;
