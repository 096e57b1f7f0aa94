/**
 * The CPU quick start: a tiny Qwen3-architecture checkpoint written and loaded through the real checkpoint path,
 * MAGE meta-episodes on Tic-Tac-Toe, credit assignment and GiGPO advantages, next to scripted reference players.
 */
package org.magejvm.examples.quickstart;
