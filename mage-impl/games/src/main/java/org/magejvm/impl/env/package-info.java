/**
 * The built-in environments, one sub-package each (Tic-Tac-Toe, Kuhn Poker, Sokoban, and the sanity games Guess the Number and Goalkeeper), registered through
 * {@code META-INF/services/org.magejvm.spi.EnvironmentProvider}.
 */
package org.magejvm.impl.env;
