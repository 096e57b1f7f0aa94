/**
 * Guess the Number, the built-in meta-learning sanity game: a hidden whole number stays the same in every attempt of
 * a meta-episode, and each wrong guess is answered "too low" or "too high". A player that reads its earlier attempts
 * can halve the range each time; one that cannot is stuck with luck. {@link
 * org.magejvm.impl.env.guess.GuessNumberCeilings} computes both exactly.
 */
package org.magejvm.impl.env.guess;
