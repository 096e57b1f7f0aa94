/**
 * The {@code mage} command-line tool: one picocli subcommand class per verb ({@code envs}, {@code play}, ...),
 * wired together in {@link org.magejvm.examples.cli.MageCli}.
 */
package org.magejvm.examples.cli;
