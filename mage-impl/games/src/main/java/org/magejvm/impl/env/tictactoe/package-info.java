/**
 * The built-in Tic-Tac-Toe environment ({@code mage-tictactoe}): the agent always plays X on a 3x3 board, the
 * opponent plays O and answers inside the same step.
 *
 * <p>Contents: the immutable {@link org.magejvm.impl.env.tictactoe.Board} and its
 * {@link org.magejvm.impl.env.tictactoe.TicTacToeState} snapshot; the action parser for {@code <action>(row,
 * col)</action>}; the environment and its provider; the opponents of the reference population (MCTS with random
 * rollouts and proven-value backup, six preferred-position players, a uniform random player) plus a perfect
 * minimax player; and the scripted policies {@code random} and {@code minimax}.
 *
 * <p>Opponents are stateless. The environment owns the only random generator, seeded at
 * {@link org.magejvm.impl.env.tictactoe.TicTacToeEnvironment#reset}, and hands it to the opponent at every move,
 * so a seed and the agent's actions reproduce a whole meta-episode.
 */
package org.magejvm.impl.env.tictactoe;
