package org.magejvm.impl.agentgym;

import java.util.LinkedHashMap;
import java.util.Map;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * ALFWorld (text) through an AgentGym ALFWorld server, id {@code agentgym-alfworld}: 10 turns and 1024 response
 * tokens (the paper, appendix B.2), 3 episodes, step discount 0.95, episode discount 0.6 (LaMer's ALFWorld value),
 * invalid-action penalty 0.1 (verl-agent's ALFWorld script; the MAGE reference states none) and no length penalty.
 *
 * <p>Options: {@code url} (the server's base URL; else the system property {@value #URL_PROPERTY}, else the
 * environment variable {@value #URL_VARIABLE}), {@code tasks} (the game indices seeds pick from, default {@value
 * #DEFAULT_TASKS}; AgentGym's server lists its training games first, then its test games), {@code timeout} (seconds
 * per request, default 300) and {@code retries} (on connection errors, default 3).
 */
public final class AlfWorldProvider extends BaseEnvironmentProvider<AlfWorldEnvironment> {

  /** The provider id. */
  public static final String ID = "agentgym-alfworld";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The system property holding the server URL. */
  public static final String URL_PROPERTY = "mage.agentgym.alfworld.url";
  /** The environment variable holding the server URL. */
  public static final String URL_VARIABLE = "MAGE_AGENTGYM_ALFWORLD_URL";
  /** The game indices unless option {@code tasks} says otherwise. */
  public static final String DEFAULT_TASKS = "0-99";

  static final TaskPromptRenderer.Text TEXT = new TaskPromptRenderer.Text(
      "You are an expert agent acting in the ALFRED embodied household environment.",
      true, false,
      "Think about which admissible action brings you closest to completing the task.");

  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(10).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(0.1).setLengthPenalty(0.0).setMaxResponseTokens(1024)
      .build();

  /** The provider, as {@link java.util.ServiceLoader} creates it. */
  public AlfWorldProvider() {
    super(settings(ID, VERSION)
        .optDescription("ALFWorld text games (AgentGym server over HTTP): household tasks in a text world")
        .setDefaults(DEFAULTS)
        .addOptions(remoteOptions(URL_PROPERTY, DEFAULT_TASKS))
        .addScriptedPolicy("random", RandomPolicy::new));
  }

  @Override
  protected AlfWorldEnvironment newEnvironment(Map<String, String> options) {
    RemoteSettings s = RemoteSettings.fromOptions(options, URL_PROPERTY, URL_VARIABLE, ID);
    TaskRange tasks = TaskRange.parse(options.getOrDefault("tasks", DEFAULT_TASKS), ID);
    return new AlfWorldEnvironment(new HttpEnvClient(s), tasks);
  }

  static Map<String, String> remoteOptions(String property, String tasks) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("url", "the server's base URL, http://HOST:PORT (default: system property " + property + ")");
    m.put("tasks", "task indices FIRST-LAST that seeds pick from (default " + tasks + ")");
    m.put("timeout", "seconds one request may take (default 300)");
    m.put("retries", "retries of a request that could not connect (default 3)");
    return m;
  }
}
