/**
 * A base for small guessing games: a number from 1 to N, drawn from the task seed, stays hidden and the same in every
 * attempt of a meta-episode; each attempt is one answer, a number from 1 to N inside {@code <action></action>}, which
 * wins the attempt or earns a clue.
 *
 * <p>A game extends {@link org.magejvm.spi.small.HiddenNumberEnvironment} (the rules: how an answer is read and
 * judged, what the observations say and what scripted players see), {@link
 * org.magejvm.spi.small.HiddenNumberPromptRenderer} (its sentences) and {@link
 * org.magejvm.spi.small.HiddenNumberProvider} (the provider with its one option, N). Scripted players that read the
 * environment's state extend {@link org.magejvm.spi.policy.StatePolicy}.
 */
package org.magejvm.spi.small;
