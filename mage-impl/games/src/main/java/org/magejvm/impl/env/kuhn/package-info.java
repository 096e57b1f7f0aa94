/**
 * The built-in Kuhn Poker environment ({@code mage-kuhn-poker}): OpenSpiel's {@code kuhn_poker} rules (three cards,
 * antes of one chip, one betting round, player 0 first), the reference's rule-based opponents, a Java CFR solver
 * replicating OpenSpiel's {@code CFRSolver}, exact game analysis (expected values, best responses, full-information
 * oracles, winnable deals) and scripted policies.
 *
 * <p>Strategies are written as {@link org.magejvm.impl.env.kuhn.KuhnStrategy}: the probability of {@code BET} at each
 * information state, an information state being the player's own card plus the betting history ({@code ""},
 * {@code "p"}, {@code "b"} or {@code "pb"}). Information states are written as the card's letter followed by the
 * history, for example {@code Qpb}.
 */
package org.magejvm.impl.env.kuhn;
