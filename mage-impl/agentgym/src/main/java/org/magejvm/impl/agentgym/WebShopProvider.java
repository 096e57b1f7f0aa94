package org.magejvm.impl.agentgym;

import java.util.Map;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * WebShop through an AgentGym WebShop server, id {@code agentgym-webshop}, with the reference's settings (12 turns,
 * 3 episodes, step discount 0.95, episode discount 0.6, invalid-action penalty 0.5, no length penalty, 1024 response
 * tokens).
 *
 * <p>Options: {@code url} (the server's base URL; else the system property {@value #URL_PROPERTY}, else the
 * environment variable {@value #URL_VARIABLE}), {@code tasks} (the goal indices seeds pick from, default {@value
 * #DEFAULT_TASKS}: the reference evaluates on goals 0-499 and trains on 500 and up), {@code timeout} (seconds per
 * request, default 300) and {@code retries} (on connection errors, default 3).
 */
public final class WebShopProvider extends BaseEnvironmentProvider<WebShopEnvironment> {

  /** The provider id. */
  public static final String ID = "agentgym-webshop";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The system property holding the server URL. */
  public static final String URL_PROPERTY = "mage.agentgym.webshop.url";
  /** The environment variable holding the server URL. */
  public static final String URL_VARIABLE = "MAGE_AGENTGYM_WEBSHOP_URL";
  /** The goal indices unless option {@code tasks} says otherwise. */
  public static final String DEFAULT_TASKS = "0-499";

  static final TaskPromptRenderer.Text TEXT = new TaskPromptRenderer.Text(
      "You are an expert autonomous agent shopping on the WebShop e-commerce website.",
      false, true,
      "Think about which admissible action brings you closest to buying the item the instruction asks for.");

  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(12).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(0.5).setLengthPenalty(0.0).setMaxResponseTokens(1024)
      .build();

  /** The provider, as {@link java.util.ServiceLoader} creates it. */
  public WebShopProvider() {
    super(settings(ID, VERSION)
        .optDescription("WebShop (AgentGym server over HTTP): find and buy the product an instruction describes")
        .setDefaults(DEFAULTS)
        .addOptions(AlfWorldProvider.remoteOptions(URL_PROPERTY, DEFAULT_TASKS))
        .addScriptedPolicy("random", RandomPolicy::new));
  }

  @Override
  protected WebShopEnvironment newEnvironment(Map<String, String> options) {
    RemoteSettings s = RemoteSettings.fromOptions(options, URL_PROPERTY, URL_VARIABLE, ID);
    TaskRange tasks = TaskRange.parse(options.getOrDefault("tasks", DEFAULT_TASKS), ID);
    return new WebShopEnvironment(new HttpEnvClient(s), tasks);
  }
}
