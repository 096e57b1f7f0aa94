/**
 * What an environment plugin implements.
 *
 * <p>A game is one {@link org.magejvm.spi.Environment} class plus one {@link org.magejvm.spi.EnvironmentProvider},
 * registered in {@code META-INF/services/org.magejvm.spi.EnvironmentProvider} or with {@link
 * org.magejvm.spi.EnvironmentRegistry#register}. The environment parses the policy's text with an {@link
 * org.magejvm.spi.ActionParser}, reports each step as a {@link org.magejvm.spi.StepResult} carrying the anchor key
 * GiGPO groups by, and renders prompts through a {@link org.magejvm.spi.PromptRenderer} (usually a {@link
 * org.magejvm.spi.StandardPromptRenderer} filled with the game's {@link org.magejvm.spi.GameText}).
 */
package org.magejvm.spi;
