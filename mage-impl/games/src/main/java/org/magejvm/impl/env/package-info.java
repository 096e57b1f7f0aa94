/**
 * The built-in environments, one sub-package each (Tic-Tac-Toe, Kuhn Poker, Sokoban), registered through
 * {@code META-INF/services/org.magejvm.spi.EnvironmentProvider}.
 */
package org.magejvm.impl.env;
