/**
 * Research programs behind docs/results.md: the method comparison ({@code mage experiment methods --env ID}, with
 * the aliases {@code kuhn-methods} and {@code ttt-methods}), the Kuhn Poker advantage and adaptation experiments
 * ({@code mage bench kuhn-advantages}, {@code kuhn-adaptation}) and the policy probe of saved models ({@code mage
 * bench kuhn-probe}), and the Tic-Tac-Toe ceilings those comparisons print ({@link
 * org.magejvm.examples.research.TicTacToeCeilings}, reported alone by {@code TicTacToeCeilingsReport}). They live in
 * {@code mage-research}, which no module of {@code mage-all} and not the tool itself depends on: the tool finds them
 * by name when the launcher puts the jar on the class path.
 */
package org.magejvm.examples.research;
