/**
 * Environments over HTTP. {@link org.magejvm.impl.agentgym.WebShopProvider} ({@code agentgym-webshop}) and {@link
 * org.magejvm.impl.agentgym.AlfWorldProvider} ({@code agentgym-alfworld}) play the tasks of AgentGym's WebShop and
 * ALFWorld servers with the prompts, action parsing and rewards of the MAGE/LaMer reference; {@link
 * org.magejvm.impl.agentgym.RemoteEnvironmentProvider} ({@code agentgym-remote}) plays any environment that {@code
 * mage env-serve} (package {@code server}) serves. All use the JDK's {@link java.net.http.HttpClient} through {@link
 * org.magejvm.impl.agentgym.HttpEnvClient}: timeouts, retries on connection errors, and a {@link
 * org.magejvm.impl.agentgym.RemoteEnvironmentException} naming the URL and the request on any bad answer, which the
 * rollout engine turns into the failure of one meta-episode. The protocol is described in docs/environments.md.
 */
package org.magejvm.impl.agentgym;
