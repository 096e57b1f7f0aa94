/**
 * Small helpers that several modules of the library share: {@link org.magejvm.api.util.AtomicFiles} replaces a file
 * crash-safely (a temporary sibling written, forced to disk and renamed over it), {@link
 * org.magejvm.api.util.SplitMix64} mixes and derives random seeds. Both are {@code INTERNAL}: public only because the
 * other modules need them, not part of the vocabulary a host uses.
 */
package org.magejvm.api.util;
