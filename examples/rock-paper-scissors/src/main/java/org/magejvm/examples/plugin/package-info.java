/**
 * A custom environment plugin, written the way a host application would write one: Rock-Paper-Scissors played as a
 * three-round match against opponents with habits the agent can learn within a meta-episode.
 *
 * <p>The minimum a game needs is two classes:
 *
 * <ul>
 *   <li>{@link org.magejvm.examples.plugin.RpsEnvironment}, the {@link org.magejvm.spi.Environment}: rules, state,
 *       observations, anchors and prompts;
 *   <li>{@link org.magejvm.examples.plugin.RpsProvider}, the {@link org.magejvm.spi.EnvironmentProvider}: id,
 *       version, defaults, opponent pool and scripted policies.
 * </ul>
 *
 * <p>{@link org.magejvm.examples.plugin.RpsOpponent} holds the opponents. The provider is registered through {@code
 * META-INF/services/org.magejvm.spi.EnvironmentProvider} (so {@code mage envs} lists {@code rps}), and {@link
 * org.magejvm.examples.plugin.RegisterProgrammatically} shows the programmatic way. The walk-through is {@code
 * docs/plugins.md}.
 */
package org.magejvm.examples.plugin;
