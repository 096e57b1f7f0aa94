/**
 * The env server behind {@code mage env-serve}: {@link org.magejvm.impl.agentgym.server.EnvServer} serves any
 * environment of an {@link org.magejvm.spi.EnvironmentRegistry} over the AgentGym-shaped protocol of
 * docs/environments.md, on the JDK's {@link com.sun.net.httpserver.HttpServer}, for {@link
 * org.magejvm.impl.agentgym.RemoteEnvironmentProvider} or any HTTP client.
 */
package org.magejvm.impl.agentgym.server;
